"""Every kiosk state fits its screen without scrolling, in real Chromium.

Screens: a 1080p hall screen, a 1366x768 laptop, a 768x1024 tablet both ways up, a 390x844
phone. States: idle, eight 15-letter words typed (also with a word refused in the box), each
verdict and NOT JUDGED, each without and with both banners (lexicon unavailable, server
unreachable), and with the compact extra rows other features add (a receipt code on the verdict,
round/table/challenger on the idle screen). Fitting means the page's scroll size is within the
viewport and no visible element of the kiosk lies outside it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.browser import (
    HD,
    SETTLE_JS,
    Home,
    Server,
    clean_artifacts,
    off_screen,
    open_page,
    pair_page,
    save_screenshot,
)

pytestmark = [
    pytest.mark.browser,
]

SCREENS = [(1920, 1080), (1366, 768), (768, 1024), (1024, 768), (390, 844)]
LONG_WORDS = (
    "ACCOMPLISHMENTS",
    "CHARACTERISTICS",
    "EXTRAORDINARILY",
    "INTERNATIONALLY",
    "UNDERSTANDINGLY",
    "OVERSIMPLIFYING",
    "PROFESSIONALISM",
    "DISAPPOINTMENTS",
)
WIDE_WORDS = ("MWMWMWMWMWMWMWM",) * 8  # the widest letters: not words, so UNACCEPTABLE
LONG_ERROR = (
    "Lexicon LONG has changed since the director set it for A rather long tournament title, "
    "Division A (NWL): call the director."
)
TITLE = "A rather long tournament title, Division A (NWL)"
# Verdicts and typed words stay up while every screen size is tried.
SERVER_SETTINGS = {"verdict_seconds": "300", "clear_seconds": "600"}

# Other alphabets: the widest words have 15 tiles of two letters each; Polish has 9 special tiles.
SPANISH_WIDE = (
    "ch" * 15,
    "rr" * 15,
    "ll" * 15,
    "chrr" * 7 + "ch",
    "rrll" * 7 + "rr",
    "llch" * 7 + "ll",
)
SPANISH_SPLIT = ("ch" * 7 + "m", "rr" * 7 + "m")  # 8 tiles, each CH or RR may split: marked
POLISH_WIDE = ("żmśwćmźwńmówąmę", "ŹWŻMŚWĆMŹWŃMÓWĄ")

# What issue 9 and issue 11 add: a receipt code on the verdict, three short fields when idle.
RECEIPT_ROW_JS = """() => {
    const row = document.createElement('div');
    row.id = 'test-receipt';
    row.innerHTML = '<dt>Receipt</dt><dd><code>7KQ4-M2XP-9RWD</code></dd>';
    document.getElementById('verdict-record').appendChild(row);
}"""
FIELDS_ROW_JS = """() => {
    const row = document.createElement('p');
    row.id = 'test-fields';
    row.className = 'instructions';
    for (const name of ['Round', 'Table', 'Challenger']) {
        const label = document.createElement('label');
        label.textContent = name + ' ';
        label.appendChild(document.createElement('input'));
        label.lastChild.size = 6;
        row.appendChild(label);
    }
    const form = document.getElementById('challenge-form');
    form.insertBefore(row, document.getElementById('word-box'));
}"""
REMOVE_JS = "id => document.getElementById(id).remove()"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    clean_artifacts("kiosk-fit-*.png")
    home = Home.prepare(tmp_path_factory.mktemp("fit-home"))
    LexiconStore(root=home.path / "lexicons").save(
        "LONG", WordSet.of((*LONG_WORDS, "QI", "ZA")), description="long words, for layouts"
    )
    home.tournament("long", "LONG", "5-per-word", TITLE)
    home.tournament("refer", "REFER", "single", TITLE)
    for name, words, alphabet in (
        ("ES-WIDE", SPANISH_WIDE + SPANISH_SPLIT, "spanish"),
        ("PL-WIDE", POLISH_WIDE, "polish"),
    ):
        home.import_words(name, words, alphabet)
        home.tournament(name.lower(), name, "double", TITLE)
    home.tournament("es-dingle", "ES-WIDE", "dingle", TITLE)  # asks for round, table, challenger
    return home


def kiosks(browser, home: Home, server: Server, tournaments, ready: str) -> Iterator[dict]:
    """A kiosk of each tournament, paired in a context of its own on a 1080p screen."""
    paired = {
        tournament: pair_page(
            open_page(browser, HD, timeout=10_000),
            server.url,
            home.pairing_code(f"fit-{tournament}", tournament),
            ready=ready,
        )
        for tournament in tournaments
    }
    yield paired
    for page in paired.values():
        page.context.close()


@pytest.fixture(scope="module")
def pages(home: Home, server: Server, browser) -> Iterator[dict]:
    """A kiosk of the `long` tournament and one of the `refer` tournament, paired."""
    # a context each: the pairing cookie is per browser
    yield from kiosks(browser, home, server, ("long", "refer"), "#lexicon-words:not(:empty)")


class Fitting:
    """Tries each state on every screen, collecting what does not fit."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def check(self, page, state: str) -> None:
        for width, height in SCREENS:
            page.set_viewport_size({"width": width, "height": height})
            stuck_out = off_screen(page)
            if stuck_out:
                name = f"kiosk-fit-{state}-{width}x{height}"
                save_screenshot(page, name)
                self.failures.append(f"{state} at {width}x{height}: {stuck_out[:6]}")
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.evaluate(SETTLE_JS)

    def assert_none(self) -> None:
        assert not self.failures, "\n".join(self.failures)


def type_words(page, words) -> None:
    page.locator("#word-input").fill(" ".join(words) + " ")
    assert page.locator("#chips .chip").count() == len(words)


def judge_and_wait(page, words, verdict: str) -> None:
    type_words(page, words)
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert page.inner_text("#verdict-word") == verdict


def ink_height(page) -> float:
    """The height in px of the verdict word's letters as drawn."""
    return page.evaluate("""() => {
        const word = document.getElementById('verdict-word');
        const style = getComputedStyle(word);
        const context = document.createElement('canvas').getContext('2d');
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const drawn = context.measureText(word.textContent);
        return drawn.actualBoundingBoxAscent + drawn.actualBoundingBoxDescent;
    }""")


def raise_banners(page) -> None:
    """Lexicon unavailable (from the status), then the server unreachable: both banners up."""

    def unavailable(route):
        response = route.fetch()
        if response.status != 200:  # a held poll's 304: nothing to change
            route.fulfill(response=response)
            return
        body = response.json()
        body["lexicon"]["available"] = False
        route.fulfill(response=response, json=body)

    page.route("**/api/v1/kiosk*", unavailable)
    page.evaluate("Kiosk.refreshStatus()")  # a status at once (the poll is held until a change)
    page.wait_for_selector("#lexicon-alert:not([hidden])")
    page.unroute("**/api/v1/kiosk*")
    page.route("**/api/v1/kiosk*", lambda route: route.abort())
    page.evaluate("Kiosk.refreshStatus()")
    page.wait_for_selector("#offline-alert:not([hidden])")


def every_state(pages: dict, fitting: Fitting, banners: str) -> None:
    page, refer = pages["long"], pages["refer"]
    fitting.check(page, f"idle{banners}")
    page.evaluate(FIELDS_ROW_JS)
    fitting.check(page, f"idle-with-fields{banners}")
    type_words(page, LONG_WORDS)
    fitting.check(page, f"typing-8-long-words-with-fields{banners}")
    page.evaluate(REMOVE_JS, "test-fields")
    page.locator("#word-input").fill("qu?t")
    assert "has a question mark" in page.inner_text("#word-hint")
    fitting.check(page, f"typing-refused-word{banners}")
    page.locator("#word-input").fill("")

    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert page.inner_text("#verdict-word") == "ACCEPTABLE"
    fitting.check(page, f"acceptable{banners}")
    page.evaluate(RECEIPT_ROW_JS)
    fitting.check(page, f"acceptable-with-receipt{banners}")
    page.evaluate(REMOVE_JS, "test-receipt")
    page.click("#verdict-done")

    judge_and_wait(page, WIDE_WORDS, "UNACCEPTABLE")
    page.evaluate(RECEIPT_ROW_JS)
    fitting.check(page, f"unacceptable-with-receipt{banners}")
    page.evaluate(REMOVE_JS, "test-receipt")
    page.click("#verdict-done")

    judge_and_wait(refer, LONG_WORDS, "REFER")
    refer.evaluate(RECEIPT_ROW_JS)
    fitting.check(refer, f"refer-with-receipt{banners}")
    refer.evaluate(REMOVE_JS, "test-receipt")
    refer.click("#verdict-done")

    body = {"ok": False, "status": 503, "error": LONG_ERROR}
    page.route("**/api/v1/adjudications", lambda route: route.fulfill(status=503, json=body))
    type_words(page, LONG_WORDS)
    page.click("#judge-button")
    page.wait_for_selector("#error-screen:not([hidden])")
    fitting.check(page, f"not-judged{banners}")
    page.unroute("**/api/v1/adjudications")
    page.click("#error-back")
    page.locator("#chips .chip-remove").first.wait_for()
    while page.locator("#chips .chip").count():
        page.locator("#chips .chip-remove").first.click()


def test_every_state_fits_every_screen(pages: dict):
    fitting = Fitting()
    every_state(pages, fitting, "")
    for page in pages.values():
        raise_banners(page)
    every_state(pages, fitting, "-banners")
    fitting.assert_none()


def test_the_verdict_reads_from_3_metres_on_a_hall_screen(pages: dict):
    """ACCEPTABLE and UNACCEPTABLE in letters at least 80 px high at 1920x1080, with 8 words."""
    page = pages["long"]
    page.set_viewport_size({"width": 1920, "height": 1080})
    for words, verdict in ((LONG_WORDS, "ACCEPTABLE"), (WIDE_WORDS, "UNACCEPTABLE")):
        judge_and_wait(page, words, verdict)
        page.evaluate(SETTLE_JS)
        assert ink_height(page) >= 80, verdict
        assert page.locator(f"#icon-{verdict.lower()}").is_visible()
        assert off_screen(page) == []
        save_screenshot(page, f"kiosk-{verdict.lower()}-8-words-hd")
        page.click("#verdict-done")


@pytest.fixture(scope="module")
def alphabet_pages(home: Home, server: Server, browser) -> Iterator[dict]:
    """A Spanish and a Polish kiosk, paired, with their rows of special tiles."""
    yield from kiosks(
        browser, home, server, ("es-wide", "pl-wide", "es-dingle"), "#tile-row:not([hidden])"
    )


def type_and_read(page, words) -> None:
    type_words(page, words)
    page.wait_for_function("() => !document.querySelector('#chips .chip-unread')")


def clear_words(page) -> None:
    page.locator("#word-input").fill("")
    while page.locator("#chips .chip").count():
        page.locator("#chips .chip-remove").first.click()


def test_kiosks_in_other_alphabets_fit_every_screen(alphabet_pages: dict):
    """The tile row, eight words of 15 two-letter tiles, split marks, a refusal, the verdict."""
    fitting = Fitting()
    spanish, polish = alphabet_pages["es-wide"], alphabet_pages["pl-wide"]
    for page, name in ((spanish, "spanish"), (polish, "polish")):
        fitting.check(page, f"{name}-idle-tile-row")
        page.evaluate(FIELDS_ROW_JS)
        fitting.check(page, f"{name}-idle-tile-row-with-fields")
        page.evaluate(REMOVE_JS, "test-fields")

    wide = (SPANISH_WIDE * 2)[:8]
    type_and_read(spanish, wide)
    assert spanish.locator("#chips .tile-multi").count() == 8 * 15
    fitting.check(spanish, "spanish-typing-8-words-of-15-digraphs")
    spanish.locator("#word-input").fill("whisky")
    assert "\u201cw\u201d" in spanish.inner_text("#word-hint")
    fitting.check(spanish, "spanish-typing-8-words-and-a-refusal")
    spanish.locator("#word-input").fill("")
    spanish.click("#judge-button")
    spanish.wait_for_selector("#verdict-screen:not([hidden])")
    assert spanish.inner_text("#verdict-word") == "ACCEPTABLE"
    assert spanish.locator("#verdict-words .tile-multi").count() == 8 * 15
    fitting.check(spanish, "spanish-verdict-8-words-of-15-digraphs")
    spanish.evaluate(RECEIPT_ROW_JS)
    fitting.check(spanish, "spanish-verdict-with-receipt")
    spanish.click("#verdict-done")

    type_and_read(spanish, SPANISH_SPLIT * 4)
    assert spanish.locator("#chips .chip-split").count() == 8
    spanish.click("#chips .chip-split >> nth=0")
    assert spanish.locator("#split-help").is_visible()
    fitting.check(spanish, "spanish-typing-8-words-to-split")
    clear_words(spanish)

    type_and_read(polish, (POLISH_WIDE * 4)[:8])
    fitting.check(polish, "polish-typing-8-wide-words")
    polish.click("#judge-button")
    polish.wait_for_selector("#verdict-screen:not([hidden])")
    assert polish.inner_text("#verdict-word") == "ACCEPTABLE"
    fitting.check(polish, "polish-verdict-8-wide-words")
    polish.click("#verdict-done")
    fitting.assert_none()


def test_a_spanish_kiosk_under_a_rule_that_asks_for_the_game_fits_every_screen(
    alphabet_pages: dict,
):
    """The real game fields (dingle: round, table, challenger) above the word box, with the tile
    row and eight words of 15 digraphs; then the verdict with the game and the tiles."""
    fitting = Fitting()
    page = alphabet_pages["es-dingle"]
    page.wait_for_selector("#game-details:not([hidden])")
    fitting.check(page, "spanish-dingle-idle")
    page.fill("#game-round", "12")
    page.fill("#game-table", "7")
    page.fill("#game-challenger", "Ana")
    type_and_read(page, (SPANISH_WIDE * 2)[:8])
    assert page.locator("#chips .tile-multi").count() == 8 * 15
    fitting.check(page, "spanish-dingle-typing-8-words-of-15-digraphs")
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert page.inner_text("#verdict-word") == "ACCEPTABLE"
    assert page.locator("#verdict-words .tile-multi").count() == 8 * 15
    assert "challenger ana" in page.inner_text("#verdict-game").lower()
    fitting.check(page, "spanish-dingle-verdict")
    page.click("#verdict-done")
    fitting.assert_none()
