"""Issue 36's papercuts on the kiosk, in real Chromium against a real server (a hall linked to TSH
with kiosks at its tables, and tournaments that are not linked): a kiosk of an unlinked
tournament asks nothing of /api/v1/table (no 404 in the console or the access log) and starts
asking once its tournament is linked; a table with no game asks for no boxes it does not show;
a phone on its side with eight words keeps JUDGE on screen; a lexicon's English description is
not shown on a kiosk in another language (its translation is, where one exists); the word
counter counts the word still being typed; "Who challenges? Tap their name."; and "Round 3 ·
Table 7" written the same before and after the verdict. The same flows run in WebKit (as on
an iPad), through Selenium and WebKitGTK's WebDriver, at the end."""

from __future__ import annotations

import time
import uuid

import pytest

from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support import tsh_files
from support.browser import TABLET, Home, off_screen, pair_page, wait_until
from support.webkit import off_screen as webkit_off_screen
from support.webkit import pair_in_webkit, set_viewport, text, wait_for

pytestmark = [
    pytest.mark.browser,
    # Selenium's own WebKitGTK driver class still sets this deprecated option
    pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning"),
]

EVENT = tsh_files.make_event({"A": 8}, 4, 2)  # round 3 is the current round, at tables 1-4
LANDSCAPE_PHONE = {"width": 844, "height": 390}
EIGHT_WORDS = "quixotic zebra quixotic zebra quixotic zebra quixotic zebra "
SPANISH = "Spanish words from Debian's wspanish (not an official tournament list)"  # a recipe's
SPANISH_SAID = "Palabras españolas del wspanish de Debian (no es una lista oficial de torneo)"
SERVER_SETTINGS = {"tsh_poll_seconds": "1", "verdict_seconds": "300"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("newcomer-home"))
    LexiconStore(root=home.path / "lexicons").save("ES-T", WordSet.of(["QI"]), description=SPANISH)
    home.tournament("linked", "TINY", "double", "Linked Open")
    home.tournament("linked-dingle", "TINY", "dingle", "Linked Dingle")
    home.tournament("plain", "TINY", "double", "Plain Open")
    home.tournament("plain-dingle", "TINY", "dingle", "Plain Dingle")
    home.tournament("later", "TINY", "double", "Linked Later")
    home.tournament("francais", "TINY", "double", "Open de Paris")
    home.cli("tournament", "set", "francais", "--language", "fr")
    home.tournament("espanol", "ES-T", "double", "Open de Madrid")
    home.cli("tournament", "set", "espanol", "--language", "es")
    path = tsh_files.write_tourney_js(home.path / "event" / "html" / "tourney.js", EVENT)
    for slug in ("linked", "linked-dingle"):
        home.cli("tsh", "link", slug, str(path))
    home.event_path = path
    return home


@pytest.fixture
def kiosk(home, server, new_page):
    """kiosk(tournament, table=None, viewport=TABLET) -> a page paired as a kiosk of the
    tournament, seated at `table` (or at none), its requests and console kept on the page as
    `page.asked` (every URL asked), `page.failed` (answers of 400 and more) and `page.said`."""
    made = []

    def pair(tournament: str, table: int | None = None, viewport=None):
        name = f"{tournament}-{table}-{uuid.uuid4().hex[:8]}"
        options = ("--table", str(table)) if table is not None else ()
        code = home.pairing_code(name, tournament, *options)
        page = new_page(viewport or TABLET)
        page.asked, page.failed, page.said = [], [], []
        page.on("request", lambda request: page.asked.append(request.url))
        page.on(
            "response",
            lambda answer: (
                page.failed.append(f"{answer.status} {answer.url}")
                if answer.status >= 400
                else None
            ),
        )
        page.on("console", lambda message: page.said.append(message.text))
        made.append(pair_page(page, server.url, code, link="/pair#"))
        return page

    return pair


def table_asks(page) -> list[str]:
    return [url for url in page.asked if "/api/v1/table" in url]


def type_words(page, words: str) -> None:
    page.locator("#word-input").focus()
    page.keyboard.type(words)


def test_an_unlinked_tournaments_kiosk_never_asks_for_its_table(home, server, kiosk):
    """Papercut 1: no request to /api/v1/table, so no 404 in the console or the access log,
    over three status polls; a linked kiosk at a table does ask (so this test can fail), once
    here: it asks again only when its status says the table's game changed."""
    log_before = len(server.read_log())
    seated = kiosk("plain", 3)
    unseated = kiosk("plain")
    linked = kiosk("linked", 3)
    time.sleep(16)  # three status polls (5 s)
    for page in (seated, unseated):
        assert table_asks(page) == []
        assert page.failed == []
        assert not [text for text in page.said if "404" in text or "Failed to load" in text]
        assert page.locator("#table-none").is_hidden() and page.locator("#table-game").is_hidden()
    assert len(table_asks(linked)) >= 1 and linked.failed == []
    assert linked.inner_text("#table-game-title") == "Round 3 · Table 3"
    logged = server.read_log()[log_before:]
    assert "/api/v1/table" in logged  # the linked kiosk's, answered 200
    assert " 404 " not in logged and '/api/v1/table HTTP/1.1" 404' not in logged


def test_a_kiosk_starts_asking_once_its_tournament_is_linked_and_stops_when_unlinked(home, kiosk):
    page = kiosk("later", 2)
    time.sleep(6)  # a status poll: still not linked, nothing asked
    assert table_asks(page) == []
    home.cli("tsh", "link", "later", str(home.event_path))
    wait_until(page, "!document.getElementById('table-game').hidden", timeout=15)
    assert page.inner_text("#table-game-title") == "Round 3 · Table 2"
    home.cli("tsh", "unlink", "later")
    wait_until(page, "document.getElementById('table-game').hidden", timeout=15)
    asked = len(table_asks(page))
    time.sleep(11)  # two more status polls: it asks no more
    assert len(table_asks(page)) == asked
    assert page.failed == [] or all("/api/v1/table" in url for url in page.failed)


def test_a_table_with_no_game_asks_for_no_boxes_it_does_not_show(home, kiosk):
    """Papercut 2: under a rule that needs no game, the kiosk at a table with no game says so
    and asks for nothing; under one that counts challenges it shows the boxes it asks for; and
    when the rule changes, the sentence follows."""
    page = kiosk("linked", 9)
    wait_until(page, "!document.getElementById('table-none').hidden")
    assert page.inner_text("#table-none") == "No game at table 9 this round."
    assert page.locator("#game-details").is_hidden()
    counting = kiosk("linked-dingle", 9)
    wait_until(counting, "!document.getElementById('table-none').hidden")
    assert counting.inner_text("#table-none") == (
        "No game at table 9 this round. Type the round and table as usual."
    )
    assert counting.locator("#game-round").is_visible()
    assert counting.locator("#game-table").is_visible()

    home.cli("tournament", "set", "linked", "--rule", "dingle")
    try:
        wait_until(page, "!document.getElementById('game-details').hidden", timeout=15)
        assert page.inner_text("#table-none") == (
            "No game at table 9 this round. Type the round and table as usual."
        )
    finally:
        home.cli("tournament", "set", "linked", "--rule", "double")
    wait_until(page, "document.getElementById('game-details').hidden", timeout=15)
    assert page.inner_text("#table-none") == "No game at table 9 this round."
    type_words(page, "qi")
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert page.inner_text("#verdict-word") == "ACCEPTABLE"


@pytest.mark.parametrize("tournament", ["linked-dingle", "plain-dingle", "linked"])
def test_a_phone_on_its_side_with_eight_words_keeps_judge_on_screen(kiosk, tournament):
    """Papercut 6: 844x390, a kiosk at its table (the names to tap, or the game's boxes), eight
    long words typed: everything fits, JUDGE too, and it judges."""
    page = kiosk(tournament, 2, LANDSCAPE_PHONE)
    if tournament.startswith("linked"):
        wait_until(page, "!document.getElementById('table-game').hidden")
    type_words(page, EIGHT_WORDS)
    assert page.inner_text("#word-count") == "8 of 8 words"
    assert off_screen(page) == []
    judge = page.locator("#judge-button").bounding_box()
    assert judge["y"] >= 0 and judge["y"] + judge["height"] <= LANDSCAPE_PHONE["height"]
    if tournament.startswith("linked"):
        page.click("#table-player-1")
    else:
        page.fill("#game-round", "3")
        page.fill("#game-challenger", "Ann")
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert page.inner_text("#verdict-word") == "ACCEPTABLE"  # QUIXOTIC and ZEBRA are in TINY


def test_a_lexicons_english_description_is_not_shown_in_another_language(kiosk):
    """Papercut 7: the name only on a French kiosk; the translation where the catalogue has
    one (a shipped recipe's description, on a Spanish kiosk); English on an English kiosk."""
    english = kiosk("plain")
    assert english.inner_text("#lexicon-description") == "(tiny test lexicon)"
    french = kiosk("francais")
    assert french.inner_text("#lexicon-name") == "TINY"
    assert french.inner_text("#lexicon-description") == ""
    assert french.get_attribute("#lexicon-description", "title") == ""
    assert "tiny test lexicon" not in french.inner_text("body")
    spanish = kiosk("espanol")
    assert spanish.inner_text("#lexicon-description") == f"({SPANISH_SAID})"
    assert SPANISH not in spanish.inner_text("body")


def test_the_counter_counts_the_word_still_being_typed(kiosk):
    """Papercut 12: "QI ZA" typed is two words on screen before the space that makes ZA a tile;
    a word taken away is counted off; a ninth word is counted, and said to be one too many."""
    page = kiosk("plain")
    type_words(page, "qi z")
    assert page.inner_text("#word-count") == "2 of 8 words"
    type_words(page, "a")
    assert page.inner_text("#word-count") == "2 of 8 words"
    type_words(page, " ")
    assert page.inner_text("#word-count") == "2 of 8 words"
    page.keyboard.press("Backspace")  # the last word taken away
    assert page.inner_text("#word-count") == "1 of 8 words"
    type_words(page, "za cat dog fox jo xi aa qi")
    assert page.inner_text("#word-count") == "9 of 8 words"
    assert "at most 8 words" in page.inner_text("#word-hint")


def test_who_challenges_and_the_round_and_table_before_and_after_the_verdict(kiosk):
    """Papercuts 8 and 12: the hint asks "Who challenges? Tap their name." (not who plays
    first), and the verdict names the game as the page did before it: "Round 3 · Table 2"."""
    page = kiosk("linked", 2)
    wait_until(page, "!document.getElementById('table-game').hidden")
    before = page.inner_text("#table-game-title")
    assert before == "Round 3 · Table 2"
    assert page.inner_text(".table-game-ask") == "Who challenges? Tap their name."
    type_words(page, "qi")
    page.click("#judge-button")
    wait_until(page, "document.getElementById('word-hint').textContent !== ''")
    assert page.inner_text("#word-hint") == "Who challenges? Tap their name."
    page.click("#table-player-2")
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert page.inner_text("#verdict-game").startswith(before + " · ")


# ---------- the same flows in WebKit ----------

TABLE_ASKS_JS = (
    "return performance.getEntriesByType('resource')"
    ".filter(e => e.name.indexOf('/api/v1/table') >= 0).length"
)


def pair_webkit(driver, home: Home, server, tournament: str, table: int | None = None) -> None:
    """Pair the WebKit window as a new kiosk of `tournament` (at `table`, or at none)."""
    options = ("--table", str(table)) if table is not None else ()
    code = home.pairing_code(f"ipad-{tournament}-{uuid.uuid4().hex[:8]}", tournament, *options)
    pair_in_webkit(driver, server.url, code)


def type_in_webkit(driver, words: str) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "word-input")
    box.click()
    box.send_keys(words)


def test_webkit_asks_for_the_table_only_where_tsh_links_it_and_names_the_game_alike(
    webkit, home, server
):
    """Papercuts 1, 8 and 12 in WebKit: an unlinked tournament's seated kiosk asks nothing of
    /api/v1/table over three status polls; a linked one does, shows "Round 3 · Table 3", asks
    "Who challenges? Tap their name." and names the game after the verdict the same way."""
    from selenium.webdriver.common.by import By

    pair_webkit(webkit, home, server, "plain", 3)
    time.sleep(16)
    assert webkit.execute_script(TABLE_ASKS_JS) == 0
    assert webkit.execute_script("return document.getElementById('table-game').hidden")

    pair_webkit(webkit, home, server, "linked", 3)
    wait_for(webkit, "!document.getElementById('table-game').hidden")
    assert webkit.execute_script(TABLE_ASKS_JS) >= 1
    before = text(webkit, "table-game-title")
    assert before == "Round 3 · Table 3"
    type_in_webkit(webkit, "qi")
    webkit.find_element(By.ID, "judge-button").click()
    wait_for(webkit, "document.getElementById('word-hint').textContent !== ''")
    assert text(webkit, "word-hint") == "Who challenges? Tap their name."
    webkit.find_element(By.ID, "table-player-1").click()
    webkit.find_element(By.ID, "judge-button").click()
    wait_for(webkit, "!document.getElementById('verdict-screen').hidden")
    assert text(webkit, "verdict-game").startswith(before + " · ")


def test_webkit_no_game_here_and_a_phone_on_its_side(webkit, home, server):
    """Papercuts 2 and 6 in WebKit: no boxes asked for under a rule that needs none; at 844x390
    a seated kiosk with eight long words keeps everything, JUDGE too, on screen, and judges."""
    from selenium.webdriver.common.by import By

    pair_webkit(webkit, home, server, "linked", 9)
    wait_for(webkit, "!document.getElementById('table-none').hidden")
    assert text(webkit, "table-none") == "No game at table 9 this round."
    assert webkit.execute_script("return document.getElementById('game-details').hidden")

    set_viewport(webkit, LANDSCAPE_PHONE["width"], LANDSCAPE_PHONE["height"])
    for tournament in ("linked-dingle", "plain-dingle"):
        pair_webkit(webkit, home, server, tournament, 2)
        if tournament.startswith("linked"):
            wait_for(webkit, "!document.getElementById('table-game').hidden")
        type_in_webkit(webkit, EIGHT_WORDS)
        wait_for(webkit, "document.querySelectorAll('#chips .chip').length === 8")
        assert text(webkit, "word-count") == "8 of 8 words"
        wait_for(webkit, "document.documentElement.scrollHeight <= innerHeight")
        assert webkit_off_screen(webkit) == [], tournament
        judge = webkit.find_element(By.ID, "judge-button").rect
        assert judge["y"] >= 0 and judge["y"] + judge["height"] <= LANDSCAPE_PHONE["height"]
        if tournament.startswith("linked"):
            webkit.find_element(By.ID, "table-player-2").click()
        else:
            webkit.find_element(By.ID, "game-round").send_keys("3")
            webkit.find_element(By.ID, "game-challenger").send_keys("Ann")
        webkit.find_element(By.ID, "judge-button").click()
        wait_for(webkit, "!document.getElementById('verdict-screen').hidden")
        assert text(webkit, "verdict-word") == "ACCEPTABLE"


def test_webkit_descriptions_in_the_kiosks_language_and_the_word_being_typed(webkit, home, server):
    """Papercuts 7 and 12 in WebKit: no English description on a French kiosk, its translation
    on a Spanish one; the word still being typed is counted."""
    pair_webkit(webkit, home, server, "francais")
    assert text(webkit, "lexicon-name") == "TINY"
    assert text(webkit, "lexicon-description") == ""
    pair_webkit(webkit, home, server, "espanol")
    assert text(webkit, "lexicon-description") == f"({SPANISH_SAID})"
    pair_webkit(webkit, home, server, "plain")
    type_in_webkit(webkit, "qi z")
    wait_for(webkit, "document.querySelectorAll('#chips .chip').length === 1")
    assert text(webkit, "word-count") == "2 of 8 words"
