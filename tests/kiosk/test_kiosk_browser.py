"""The kiosk page in real headless Chromium against a real `adjudicator serve`.

Screenshots go to test-artifacts/ (kiosk-*.png). Each server runs in its own process on a free
port over one prepared data home; each test pairs its own kiosk through the pairing link.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator

import pytest

from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.browser import (
    LOSE_ONE_ANSWER,
    PHONE,
    TABLET,
    Home,
    Server,
    clean_artifacts,
    save_screenshot,
    wait_until,
)

pytestmark = pytest.mark.browser

OPEN_TITLE = "Spring Open, Division A"
ACCEPTABLE = "ACCEPTABLE: the play stands"
UNACCEPTABLE = "UNACCEPTABLE: the play comes off the board"
REFER = "REFER: call a word judge"
LETTERS_ONLY = "use the letters A to Z only. Type a blank as the letter it stands for."


# ---------- fixtures ----------


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    clean_artifacts()
    home = Home.prepare(tmp_path_factory.mktemp("kiosk-home"))
    home.tournament("open", "TINY", "double", OPEN_TITLE)
    home.tournament("perword", "TINY", "5-per-word", "Five per word")
    home.tournament("refer", "REFER", "single", "Referral division")
    return home


@pytest.fixture(scope="module")
def fast_server(home: Home) -> Iterator[Server]:
    """Short timings for the auto-return and auto-clear tests."""
    running = Server(home, verdict_seconds="2", clear_seconds="5")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def short_timeout_server(home: Home) -> Iterator[Server]:
    """The kiosk page gives up on an answer after 2 s instead of 8."""
    running = Server(home, request_timeout_seconds="2")
    yield running
    running.stop()


# ---------- helpers ----------


def chips(page) -> list[str]:
    return page.locator("#chips .chip-word").all_inner_texts()


def judge(page, text: str, key: str | None = None) -> None:
    """Type `text` in the word box, then press JUDGE (or the key given)."""
    page.locator("#word-input").focus()
    page.keyboard.type(text)
    if key:
        page.keyboard.press(key)
    else:
        page.click("#judge-button")


def wait_for_verdict(page) -> dict:
    page.wait_for_selector("#verdict-screen:not([hidden])")
    return {
        "title": page.inner_text("#verdict-word") + ": " + page.inner_text("#verdict-gloss"),
        "word": page.inner_text("#verdict-word"),
        "consequence": page.inner_text("#verdict-consequence"),
        "words": page.locator("#verdict-words li").all_inner_texts(),
        "id": page.inner_text("#verdict-id"),
        "time": page.inner_text("#verdict-time"),
    }


def ink_height(page, selector: str) -> float:
    """The height in px of the letters of an element's text, as drawn in its own font."""
    return page.evaluate(
        """selector => {
            const element = document.querySelector(selector);
            const style = getComputedStyle(element);
            const context = document.createElement('canvas').getContext('2d');
            context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const drawn = context.measureText(element.textContent);
            return drawn.actualBoundingBoxAscent + drawn.actualBoundingBoxDescent;
        }""",
        selector,
    )


def visible_icons(page) -> list[str]:
    return [
        icon
        for icon in ("icon-acceptable", "icon-unacceptable", "icon-refer")
        if page.locator(f"#{icon}").is_visible()
    ]


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def inside_width(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    width = page.evaluate("window.innerWidth")
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width


# ---------- pairing ----------


def test_unpaired_browser_sees_only_how_to_pair(server: Server, new_page):
    page = new_page()
    page.goto(server.url + "/")
    text = page.inner_text("body")
    assert "This screen is not a kiosk yet" in text
    assert "pairing link" in text and page.locator("#code").is_visible()
    assert page.locator("#kiosk").count() == 0
    for secret in (OPEN_TITLE, "TINY", "JUDGE", "Double challenge"):
        assert secret not in text
    answer = page.request.get(server.url + "/api/v1/kiosk")
    assert answer.status == 401 and answer.json()["ok"] is False
    save_screenshot(page, "kiosk-unpaired")


def test_pairing_link_confirms_then_pairs_once(home: Home, server: Server, new_page):
    code = home.pairing_code("pair-once", "open")
    page = new_page()
    page.goto(f"{server.url}/pair#{code}")  # the link as printed: the code after '#'
    assert page.input_value("#code") == code
    assert page.url == f"{server.url}/pair"  # and gone from the address bar
    assert page.locator("#kiosk").count() == 0  # the link alone does not pair: a form confirms
    save_screenshot(page, "kiosk-pair-confirm")
    page.click("#pair-button")
    page.wait_for_url(server.url + "/")
    wait_until(page, "document.getElementById('lexicon-words').textContent !== ''")
    assert page.inner_text("#tournament-title") == OPEN_TITLE
    assert page.inner_text("#lexicon-name") == "TINY"
    assert "tiny test lexicon" in page.inner_text("#lexicon-description")
    assert page.inner_text("#lexicon-words") == "11"
    assert re.fullmatch(r"[0-9a-f]{12}", page.inner_text("#lexicon-fingerprint"))
    assert page.inner_text("#rule-title").startswith("Double challenge")
    assert page.locator("#lexicon-alert").is_hidden()

    other = new_page()
    other.goto(f"{server.url}/pair#{code}")
    other.click("#pair-button")
    assert "not valid, was already used" in other.inner_text(".error")
    assert other.locator("#kiosk").count() == 0
    assert code not in server.read_log()  # the server never saw the code in a URL


# ---------- typing ----------


def test_typing_makes_upper_case_chips(paired):
    page = paired()
    box = page.locator("#word-input")
    for name, value in (
        ("spellcheck", "false"),
        ("autocorrect", "off"),
        ("autocomplete", "off"),
        ("autocapitalize", "off"),
    ):
        assert box.get_attribute(name) == value
    box.focus()
    page.keyboard.type("qi za,cat")
    page.keyboard.press("Enter")
    page.keyboard.type("dOg")
    assert chips(page) == ["QI", "ZA", "CAT"]
    assert box.input_value() == "dOg"  # kept as typed until it becomes a chip, shown upper case
    assert box.evaluate("e => getComputedStyle(e).textTransform") == "uppercase"
    # the word still being typed counts: four words on screen, "4 of 8" (issue 36, item 12)
    assert page.inner_text("#word-count") == "4 of 8 words"
    assert page.evaluate("""() => [...document.querySelectorAll('#chips, #chips *')]
        .every(e => !e.isContentEditable && e.closest('[spellcheck=false]'))""")
    save_screenshot(page, "kiosk-typing-hd")

    for _ in range(4):  # three letters, then the last chip
        page.keyboard.press("Backspace")
    assert chips(page) == ["QI", "ZA"] and box.input_value() == ""
    page.click("#chips .chip-remove >> nth=0")  # the x on QI
    assert chips(page) == ["ZA"]
    page.keyboard.type("fox jo")  # focus went back to the box
    assert chips(page) == ["ZA", "FOX"] and box.input_value() == "jo"


def posts_to_judge(page) -> list:
    """The adjudication requests this page sends from now on."""
    sent: list = []
    page.on(
        "request",
        lambda request: sent.append(request) if "/api/v1/adjudications" in request.url else None,
    )
    return sent


def hint(page) -> str:
    return page.inner_text("#word-hint").strip()


def test_a_character_that_is_not_a_letter_is_named_and_never_dropped(paired):
    page = paired()
    sent = posts_to_judge(page)
    box = page.locator("#word-input")
    box.focus()
    assert hint(page) == ""
    page.keyboard.type("q1i")
    assert box.input_value() == "q1i"  # kept as typed, not changed into QI
    assert hint(page) == (
        "Word 1 (\u201cq1i\u201d) has the digit \u201c1\u201d at position 2: "
        + LETTERS_ONLY
        + " Nothing is judged until it is fixed."
    )
    assert box.get_attribute("aria-invalid") == "true"
    page.keyboard.press("Enter")  # cannot become a word
    assert chips(page) == [] and box.input_value() == "q1i"
    page.click("#judge-button")
    page.wait_for_timeout(300)
    assert sent == [] and page.locator("#verdict-screen").is_hidden()
    assert "Word 1" in hint(page)
    save_screenshot(page, "kiosk-hint-letters")

    box.fill("")
    assert hint(page) == "" and box.get_attribute("aria-invalid") is None
    box.fill("z\u00e9a")  # a paste or a phone keyboard's accented letter
    assert "the letter \u201c\u00e9\u201d (U+00E9), which is not one of the letters A to Z" in hint(
        page
    )
    box.fill("q\u200bi")  # an invisible character, as copied from a web page
    assert "has an invisible character (U+200B) at position 2" in hint(page)
    box.fill("za ")
    assert chips(page) == ["ZA"] and hint(page) == ""


def test_a_blank_written_as_a_question_mark_or_a_hyphenated_word_is_not_judged(home: Home, paired):
    """`qu?t` is not QUT and `re-enter` is not REENTER: both are refused until fixed."""
    page = paired()
    sent = posts_to_judge(page)
    box = page.locator("#word-input")
    box.fill("za qu?t re-enter")  # pasted: ZA is taken, the rest waits in the box
    assert chips(page) == ["ZA"]
    assert box.input_value() == "qu?t re-enter"
    assert hint(page).startswith(
        "Word 2 (\u201cqu?t\u201d) has a question mark \u201c?\u201d at position 3: "
    )
    page.click("#judge-button")
    box.press("Tab")
    page.wait_for_timeout(300)
    assert sent == [] and page.locator("#verdict-screen").is_hidden()
    assert chips(page) == ["ZA"] and box.input_value() == "qu?t re-enter"

    box.fill("quit re-enter")
    assert chips(page) == ["ZA", "QUIT"]
    assert hint(page).startswith(
        "Word 3 (\u201cre-enter\u201d) has a hyphen \u201c-\u201d at position 3: "
    )
    box.fill("reenter")
    assert hint(page) == ""
    page.click("#judge-button")
    verdict = wait_for_verdict(page)
    assert verdict["words"] == ["ZA", "QUIT", "REENTER"]
    assert len(sent) == 1
    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    judged = [r["words"] for r in rows]
    assert ["ZA", "QUIT", "REENTER"] in judged
    assert not [words for words in judged if "QUT" in words or "RE" in words]


def test_at_most_8_words_of_at_most_15_letters(paired):
    page = paired()
    sent = posts_to_judge(page)
    box = page.locator("#word-input")
    box.focus()
    page.keyboard.type("aa ab qi za jo xi cat dog fox")
    assert chips(page) == ["AA", "AB", "QI", "ZA", "JO", "XI", "CAT", "DOG"]
    assert box.input_value() == "fox"  # not dropped: refused, and nothing is judged
    assert "Word 9 (\u201cfox\u201d) is one too many: a play forms at most 8 words" in hint(page)
    page.keyboard.press("Tab")
    page.wait_for_timeout(300)
    assert sent == [] and page.locator("#verdict-screen").is_hidden()

    box.fill("")
    for _ in range(8):
        page.keyboard.press("Backspace")
    assert chips(page) == [] and hint(page) == ""
    page.keyboard.type("abcdefghijklmnopq")
    assert box.input_value() == "abcdefghijklmnopq"  # never cut to 15 letters
    assert "has 17 letters: no word on a 15 x 15 board has more than 15" in hint(page)
    page.keyboard.press("Enter")
    assert chips(page) == []
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    assert hint(page) == ""
    page.keyboard.press("Enter")
    assert chips(page) == ["ABCDEFGHIJKLMNO"]


# ---------- verdicts ----------


def test_acceptable_verdict_fills_the_screen(home: Home, paired):
    page = paired("perword")
    judge(page, "qi za")
    verdict = wait_for_verdict(page)
    assert verdict["title"] == ACCEPTABLE
    assert visible_icons(page) == ["icon-acceptable"]
    assert page.get_attribute("#icon-acceptable", "aria-label") == "Tick"
    heading = re.compile(r"^ACCEPTABLE ?: the play stands$")  # blocks may add a space
    assert page.get_by_role("heading", name=heading).is_visible()
    assert verdict["consequence"] == (  # the gloss says the play stands: said once (issue 23)
        "2 words challenged, 5 each: the player adds 10; the challenger keeps the turn."
    )
    assert verdict["words"] == ["QI", "ZA"]
    assert re.fullmatch(r"#\d+", verdict["id"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", verdict["time"])
    assert page.locator("#idle-screen").is_hidden()
    wait_until(page, "document.getElementById('live').textContent.includes('ACCEPTABLE')")
    assert page.inner_text("#live").startswith(ACCEPTABLE)
    # readable from 3 m on a 1080p screen: the letters themselves at least 80 px high
    assert ink_height(page, "#verdict-word") >= 80
    save_screenshot(page, "kiosk-acceptable-hd")

    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    row = next(r for r in rows if f"#{r['id']}" == verdict["id"])
    assert row["verdict"] == "ACCEPTABLE" and row["words"] == ["QI", "ZA"]


def test_unacceptable_verdict_judged_with_tab_and_its_print_view(paired):
    page = paired()
    judge(page, "qi zzz", key="Tab")
    verdict = wait_for_verdict(page)
    assert verdict["title"] == UNACCEPTABLE
    assert visible_icons(page) == ["icon-unacceptable"]
    assert verdict["consequence"] == "It scores zero, and the turn passes to the challenger."
    assert verdict["words"] == ["QI", "ZZZ"]
    assert page.inner_text("#verdict-tournament") == OPEN_TITLE
    assert page.inner_text("#verdict-lexicon").startswith("TINY")
    save_screenshot(page, "kiosk-unacceptable-hd")

    page.emulate_media(media="print")
    assert page.locator("#status").is_hidden() and page.locator("#print-button").is_hidden()
    for shown in (
        "#verdict-title",
        "#verdict-words",
        "#verdict-consequence",
        "#verdict-id",
        "#verdict-time",
        "#verdict-tournament",
        "#verdict-lexicon",
    ):
        assert page.locator(shown).is_visible(), shown
    save_screenshot(page, "kiosk-print")
    page.emulate_media(media="screen")


def test_refer_verdict(paired):
    page = paired("refer")
    judge(page, "qi abcdefgh")
    verdict = wait_for_verdict(page)
    assert verdict["title"] == REFER
    assert visible_icons(page) == ["icon-refer"]
    assert verdict["consequence"] == "A dictionary check is needed before the play is ruled on."
    save_screenshot(page, "kiosk-refer-hd")


def test_verdict_page_does_not_depend_on_which_word_was_bad(paired):
    """The same page (text and HTML), once the words, id and time are masked out."""
    page = paired()

    def snapshot(text: str) -> tuple[str, str]:
        judge(page, text, key="Enter")  # Enter commits the last word
        page.keyboard.press("Enter")  # Enter on the empty box judges
        shown = wait_for_verdict(page)
        assert shown["title"] == UNACCEPTABLE
        page.wait_for_selector("#receipt-qr:not([hidden])", state="attached")  # the docket's QR
        page.wait_for_timeout(300)  # let the status refresh after the verdict settle
        html = page.inner_html("body")
        body = page.inner_text("body")
        masks = [
            shown["id"],
            shown["time"],
            page.get_attribute("#verdict-time", "datetime"),
            page.inner_text("#verdict-receipt"),  # the row hash's first digits
            page.get_attribute("#receipt-qr", "src"),  # the whole receipt
            *text.upper().split(),
        ]
        for value in sorted(masks, key=len, reverse=True):
            html, body = html.replace(value, "<MASK>"), body.replace(value, "<MASK>")
        countdown = re.compile(r"in \d+ s")
        # The 1.5 s lock-out depends on when the snapshot is taken, never on the words.
        html = html.replace('class="kiosk locked"', 'class="kiosk"').replace(' disabled=""', "")
        return countdown.sub("in N s", html), countdown.sub("in N s", body)

    second_bad = snapshot("cat dogx")
    page.keyboard.press("x")  # within the lock-out: a stray key does not dismiss the verdict
    assert page.locator("#verdict-screen").is_visible()
    page.wait_for_timeout(1600)
    page.keyboard.press("x")
    page.wait_for_selector("#idle-screen:not([hidden])")
    assert chips(page) == []
    first_bad = snapshot("catx dog")
    assert first_bad[1] == second_bad[1]
    assert first_bad[0] == second_bad[0]


def test_verdict_returns_to_idle_after_verdict_seconds(paired, fast_server: Server):
    page = paired(on=fast_server)
    judge(page, "qi za")
    wait_for_verdict(page)
    started = time.monotonic()
    page.wait_for_selector("#idle-screen:not([hidden])", timeout=5000)
    elapsed = time.monotonic() - started
    assert 1.2 < elapsed < 4, elapsed
    assert page.locator("#verdict-screen").is_hidden()
    assert chips(page) == [] and page.input_value("#word-input") == ""


def test_typed_words_are_cleared_after_clear_seconds(paired, fast_server: Server):
    page = paired(on=fast_server)
    page.locator("#word-input").focus()
    page.keyboard.type("qi za ca")
    typed_at = time.monotonic()
    page.wait_for_timeout(3000)
    assert chips(page) == ["QI", "ZA"] and page.input_value("#word-input") == "ca"
    wait_until(page, "document.querySelectorAll('#chips .chip').length === 0", timeout=5)
    assert time.monotonic() - typed_at > 4.5
    assert page.input_value("#word-input") == ""


# ---------- no verdict ----------


def test_not_judged_when_the_server_is_stopped(home: Home, paired):
    doomed = Server(home)
    try:
        page = paired(on=doomed)
        page.locator("#word-input").focus()
        page.keyboard.type("qi za")
    finally:
        doomed.kill()
    page.click("#judge-button")
    page.wait_for_selector("#error-screen:not([hidden])")
    assert page.inner_text("#error-title") == "NOT JUDGED"
    assert "Cannot reach" in page.inner_text("#error-message")
    assert "call the director" in page.inner_text("#error-advice")
    assert page.locator("#verdict-screen").is_hidden()
    assert "ACCEPTABLE" not in page.inner_text("body")
    wait_until(page, "document.getElementById('live').textContent.includes('NOT JUDGED')")
    save_screenshot(page, "kiosk-not-judged")
    page.wait_for_timeout(1600)
    page.click("#error-back")
    assert chips(page) == ["QI", "ZA"]  # kept, to try again
    page.wait_for_selector("#offline-alert:not([hidden])", timeout=3000)  # refreshed at once


def test_not_judged_when_the_server_does_not_answer_in_time(paired, short_timeout_server):
    page = paired(on=short_timeout_server)
    held = []  # the POST is held here, never answered, until the page has given up on it
    page.route("**/api/v1/adjudications", lambda route: held.append(route))
    judge(page, "qi za")
    started = time.monotonic()
    page.wait_for_selector("#error-screen:not([hidden])", timeout=6000)
    waited = time.monotonic() - started
    assert len(held) == 1 and held[0].request.method == "POST"
    assert 1.5 < waited < 6, f"gave up after {waited:.1f} s, not the 2 s the status set"
    assert page.inner_text("#error-title") == "NOT JUDGED"
    assert page.inner_text("#error-message") == "The server did not answer in time."
    assert "press JUDGE again" in page.inner_text("#error-advice")
    assert page.locator("#verdict-screen").is_hidden()
    assert page.inner_text("#verdict-word") == ""
    assert "ACCEPTABLE" not in page.inner_text("body")
    page.wait_for_timeout(1600)
    page.click("#error-back")
    page.wait_for_selector("#idle-screen:not([hidden])")
    assert chips(page) == ["QI", "ZA"]  # kept, to try again
    page.unroute("**/api/v1/adjudications")
    for route in held:
        with contextlib.suppress(Exception):  # the page already aborted it
            route.abort()


def judged_with_its_answer_lost(home: Home, page):
    """ "qi za" judged and recorded, its answer lost on the way back: NOT JUDGED shown, no
    verdict. The journal's rows (read anew each call), their count before, the row recorded."""
    journal_rows = lambda: json.loads(home.cli("journal", "export", "--format", "json"))  # noqa: E731
    before = len(journal_rows())
    page.evaluate(LOSE_ONE_ANSWER)
    judge(page, "qi za")
    page.wait_for_selector("#error-screen:not([hidden])")
    assert page.inner_text("#error-title") == "NOT JUDGED"
    assert "ACCEPTABLE" not in page.inner_text("body")
    lost = page.evaluate("window.lostAnswer")
    assert lost["status"] == 201 and len(journal_rows()) == before + 1
    return journal_rows, before, lost["body"]


def the_next_challenge_is_new(page, journal_rows, before: int, recorded: dict) -> None:
    """After the verdict shown, the same words judged again are a new challenge, a new row."""
    page.wait_for_timeout(1600)
    page.keyboard.press("Escape")
    page.wait_for_selector("#idle-screen:not([hidden])")
    judge(page, "qi za")
    assert int(wait_for_verdict(page)["id"].lstrip("#")) > recorded["id"]
    assert len(journal_rows()) == before + 2


def test_judge_again_after_a_lost_answer_shows_the_verdict_recorded_once(home: Home, paired):
    """The challenge reached the hall and was recorded, but its answer was lost on the way
    back (the hall's Wi-Fi dropped it): NOT JUDGED, the words kept. JUDGE again shows the
    verdict recorded, and the journal holds the challenge once: a second row would count as
    another challenge of the game. The next challenge is judged as a new one."""
    page = paired()
    journal_rows, before, recorded = judged_with_its_answer_lost(home, page)
    page.wait_for_timeout(1600)
    page.click("#error-back")
    page.wait_for_selector("#idle-screen:not([hidden])")
    assert chips(page) == ["QI", "ZA"]
    page.click("#judge-button")
    verdict = wait_for_verdict(page)
    assert int(verdict["id"].lstrip("#")) == recorded["id"]
    assert verdict["word"] == "ACCEPTABLE" and verdict["words"] == ["QI", "ZA"]
    assert len(journal_rows()) == before + 1  # recorded once
    the_next_challenge_is_new(page, journal_rows, before, recorded)


def test_a_page_reloaded_after_a_lost_answer_still_judges_the_same_challenge_once(
    home: Home, paired
):
    """The answer lost, the tablet's page is reloaded (the director's first remedy): the
    player types the same words, and the hall gives back the verdict it recorded. The tab
    keeps the failed try's key and a digest of the challenge, not the words themselves."""
    page = paired()
    journal_rows, before, recorded = judged_with_its_answer_lost(home, page)
    kept = page.evaluate("window.sessionStorage.getItem('adjudicator-attempt')")
    assert kept and "QI" not in kept.upper() and "ZA" not in kept.upper()
    page.reload()
    page.wait_for_selector("#idle-screen:not([hidden])")
    judge(page, "qi za")
    verdict = wait_for_verdict(page)
    assert int(verdict["id"].lstrip("#")) == recorded["id"]
    assert len(journal_rows()) == before + 1  # recorded once
    assert page.evaluate("window.sessionStorage.getItem('adjudicator-attempt')") is None
    the_next_challenge_is_new(page, journal_rows, before, recorded)


def test_the_same_words_judged_again_minutes_later_are_a_new_challenge(home: Home, paired):
    """Past the retry window (3 minutes after the failed try), the same words and game are a
    play made again on a later turn: recorded as a challenge of its own, never the old row."""
    page = paired()
    journal_rows, before, _ = judged_with_its_answer_lost(home, page)
    page.evaluate("window.Kiosk.state.attempt.failed -= 4 * 60 * 1000")  # four minutes on
    page.wait_for_timeout(1600)
    page.click("#error-back")
    page.wait_for_selector("#idle-screen:not([hidden])")
    page.click("#judge-button")
    verdict = wait_for_verdict(page)
    rows = journal_rows()
    assert len(rows) == before + 2
    assert int(verdict["id"].lstrip("#")) == max(row["id"] for row in rows)


def test_a_conflict_answered_makes_the_next_judge_a_new_challenge(paired):
    """A 409 (the key was judged as another challenge, the event closed) recorded nothing for
    this try: pressing JUDGE again sends a new key, never the refused one for three minutes."""
    page = paired()
    keys = []

    def conflict(route) -> None:
        keys.append(json.loads(route.request.post_data)["attempt"])
        route.fulfill(status=409, json={"ok": False, "status": 409, "error": "A conflict."})

    page.route("**/api/v1/adjudications", conflict)
    judge(page, "qi za")
    page.wait_for_selector("#error-screen:not([hidden])")
    assert page.inner_text("#error-message") == "A conflict."
    page.wait_for_timeout(1600)
    page.click("#error-back")
    page.wait_for_selector("#idle-screen:not([hidden])")
    page.click("#judge-button")
    page.wait_for_selector("#error-screen:not([hidden])")
    assert len(keys) == 2 and keys[0] != keys[1]
    page.unroute("**/api/v1/adjudications")


ERROR_ANSWERS = [
    (
        429,
        {"ok": False, "status": 429, "error": "Too many adjudications."},
        "Too many adjudications.",
        "wait a moment",
    ),
    (
        503,
        {"ok": False, "status": 503, "error": "NOT JUDGED: could not be recorded."},
        "could not be recorded",
        "call the director",
    ),
    (500, "<html>Internal Server Error</html>", "could not give a verdict", "call the director"),
    # a verdict is shown only from a 201 that adjudicates exactly the words sent
    (
        200,
        {"id": 1, "verdict": "ACCEPTABLE", "words": ["QI", "ZA"]},
        "could not give a verdict",
        "call the director",
    ),
    (
        201,
        {"id": 1, "verdict": "ACCEPTABLE", "words": ["QI"]},
        "could not give a verdict",
        "call the director",
    ),
    (
        201,
        {"id": 1, "verdict": "MAYBE", "words": ["QI", "ZA"]},
        "could not give a verdict",
        "call the director",
    ),
]


def test_input_error_shows_not_judged_and_keeps_the_words(paired):
    page = paired()
    error = "Word 2 has 1 letter: a word has at least 2 letters."
    page.route(
        "**/api/v1/adjudications",
        lambda route: route.fulfill(status=400, json={"ok": False, "status": 400, "error": error}),
    )
    judge(page, "qi za")
    page.wait_for_selector("#error-screen:not([hidden])")
    assert page.inner_text("#error-title") == "NOT JUDGED"
    assert page.inner_text("#error-message") == error
    assert "Fix the words" in page.inner_text("#error-advice")
    assert page.locator("#verdict-screen").is_hidden()
    page.wait_for_timeout(1600)
    page.keyboard.press("Escape")
    page.wait_for_selector("#idle-screen:not([hidden])")
    assert chips(page) == ["QI", "ZA"]


def answer_with(status: int, body: dict | str) -> Callable:
    """A route handler that answers every request with this status and body."""
    if isinstance(body, dict):
        return lambda route: route.fulfill(status=status, json=body)
    return lambda route: route.fulfill(status=status, body=body, content_type="text/html")


def test_other_answers_show_not_judged_never_a_verdict(paired):
    page = paired()
    for status, body, message, advice in ERROR_ANSWERS:
        page.unroute("**/api/v1/adjudications")
        page.route("**/api/v1/adjudications", answer_with(status, body))
        page.reload()
        page.wait_for_selector("#lexicon-words:not(:empty)")  # the status first, as a player
        judge(page, "qi za")
        page.wait_for_selector("#error-screen:not([hidden])")
        case = f"{status} {body}"
        assert message in page.inner_text("#error-message"), case
        assert advice in page.inner_text("#error-advice"), case
        assert page.locator("#verdict-screen").is_hidden(), case
        assert page.inner_text("#verdict-word") == "", case


# ---------- the director's changes ----------


def test_tournament_change_shows_without_reload(home: Home, paired):
    home.tournament("change", "TINY", "double", "Before the change")
    page = paired("change")
    page.evaluate("window.notReloaded = true")
    assert page.inner_text("#lexicon-name") == "TINY"
    home.cli(
        "tournament",
        "set",
        "change",
        "--lexicon",
        "OTHER",
        "--rule",
        "5-per-word",
        "--title",
        "After the change",
    )
    wait_until(
        page, "document.getElementById('lexicon-name').textContent === 'OTHER'", timeout=8000
    )
    assert page.inner_text("#tournament-title") == "After the change"
    assert page.inner_text("#lexicon-words") == "7"
    assert page.inner_text("#rule-title") == "5 points per word challenged"
    assert page.evaluate("window.notReloaded") is True
    judge(page, "ok ew")
    verdict = wait_for_verdict(page)
    assert verdict["title"] == ACCEPTABLE and "2 words challenged, 5 each" in verdict["consequence"]


def test_lexicon_unavailable_is_shown_and_not_judged(home: Home, paired):
    store = LexiconStore(root=home.path / "lexicons")
    store.save("SHIFTY", WordSet.of(["QI", "ZA"]))
    home.tournament("shifty", "SHIFTY", "double", "Shifty division")
    page = paired("shifty")
    assert page.locator("#lexicon-alert").is_hidden()
    store.save("SHIFTY", WordSet.of(["QI", "ZA", "XU"]))  # not the edition the director set
    judge(page, "qi za")
    page.wait_for_selector("#error-screen:not([hidden])")
    assert page.inner_text("#error-title") == "NOT JUDGED"
    assert "call the director" in page.inner_text("#error-message")
    assert page.locator("#verdict-screen").is_hidden()
    page.wait_for_selector("#lexicon-alert:not([hidden])")  # the status is refreshed at once
    alert = page.inner_text("#lexicon-alert").strip()
    assert alert.endswith("Lexicon unavailable: call the director.")
    save_screenshot(page, "kiosk-lexicon-unavailable")


# ---------- tablet and phone ----------


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_small_screens_fit_without_horizontal_scrolling(paired, viewport):
    page = paired(viewport=viewport)
    name = "tablet" if viewport is TABLET else "phone"
    page.locator("#word-input").focus()
    page.keyboard.type("quixotic zebra qi za cat")
    assert no_horizontal_scroll(page)
    assert inside_width(page, "#judge-button") and inside_width(page, "#word-box")
    assert page.locator("#judge-button").is_visible()
    assert page.evaluate(
        "document.getElementById('judge-button').getBoundingClientRect().bottom"
        " <= window.innerHeight"
    ), "JUDGE is below the fold"
    save_screenshot(page, f"kiosk-typing-{name}")
    page.click("#judge-button")
    verdict = wait_for_verdict(page)
    assert verdict["title"] == ACCEPTABLE
    assert no_horizontal_scroll(page)
    for selector in ("#verdict-title", "#icon-acceptable", "#verdict-words", "#verdict-id"):
        assert inside_width(page, selector), selector
    assert page.evaluate(
        "document.getElementById('verdict-title').getBoundingClientRect().bottom"
        " <= window.innerHeight"
    )
    save_screenshot(page, f"kiosk-verdict-{name}")
