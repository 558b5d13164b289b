"""The kiosk's main flows in WebKit (as on an iPad), through Selenium and WebKitGTK's WebDriver.

Pair with the pairing link, type, judge both verdicts, see NOT JUDGED when the lexicon is
unavailable, see a refused character named rather than changed, and judge Spanish words typed
with the row of special tiles and split into tiles by the players; against a real
`adjudicator serve`. Each screen is also checked to fit the browser's window.
"""

from __future__ import annotations

import json

import pytest

from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.browser import LOSE_ONE_ANSWER, Home, Server
from support.webkit import off_screen, pair_in_webkit, text, wait_for

pytestmark = [
    pytest.mark.browser,
    # Selenium's own WebKitGTK driver class still sets this deprecated option
    pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning"),
]

TITLE = "Spring Open, Division A"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("webkit-home"))
    home.tournament("open", "TINY", "5-per-word", TITLE)
    home.import_words("ES-T", ["chico", "perro", "año", "[c][h]at"], "spanish")
    home.tournament("es", "ES-T", "double", "Open de Madrid")
    return home


def pair(driver, home: Home, server: Server, kiosk: str, tournament: str = "open") -> None:
    pair_in_webkit(driver, server.url, home.pairing_code(kiosk, tournament))


def type_and_judge(driver, words: str) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "word-input")
    box.click()
    box.send_keys(words)
    driver.find_element(By.ID, "judge-button").click()


def verdict_word(driver) -> str:
    wait_for(driver, "!document.getElementById('verdict-screen').hidden")
    return text(driver, "verdict-word")


def test_pair_type_and_judge_both_verdicts_in_webkit(webkit, home: Home, server: Server):
    from selenium.webdriver.common.by import By

    pair(webkit, home, server, "ipad-1")
    assert "AppleWebKit" in webkit.execute_script("return navigator.userAgent")
    assert text(webkit, "tournament-title") == TITLE
    assert text(webkit, "lexicon-name") == "TINY"
    assert off_screen(webkit) == []

    type_and_judge(webkit, "qi za")
    assert verdict_word(webkit) == "ACCEPTABLE"
    assert text(webkit, "verdict-gloss") == "the play stands"
    assert text(webkit, "verdict-consequence") == (
        "2 words challenged, 5 each: the player adds 10; the challenger keeps the turn."
    )
    assert webkit.execute_script(
        "return [...document.querySelectorAll('#verdict-words li')].map(li => li.textContent)"
    ) == ["QI", "ZA"]
    assert off_screen(webkit) == []
    verdict_id = text(webkit, "verdict-id")

    wait_for(webkit, "!document.getElementById('verdict-done').disabled")
    webkit.find_element(By.ID, "verdict-done").click()
    wait_for(webkit, "!document.getElementById('idle-screen').hidden")
    type_and_judge(webkit, "qi zzz")
    assert verdict_word(webkit) == "UNACCEPTABLE"
    assert text(webkit, "verdict-gloss") == "the play comes off the board"
    assert off_screen(webkit) == []

    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    kiosk_rows = [r for r in rows if r["kiosk"] == "ipad-1"]
    assert [(r["words"], r["verdict"]) for r in kiosk_rows] == [
        (["QI", "ZA"], "ACCEPTABLE"),
        (["QI", "ZZZ"], "UNACCEPTABLE"),
    ]
    assert f"#{kiosk_rows[0]['id']}" == verdict_id


def test_not_judged_in_webkit_when_the_lexicon_is_unavailable(webkit, home: Home, server: Server):
    store = LexiconStore(root=home.path / "lexicons")
    store.save("SHIFTY", WordSet.of(["QI", "ZA"]))
    home.tournament("shifty", "SHIFTY", "double", "Shifty division")
    pair(webkit, home, server, "ipad-2", "shifty")
    store.save("SHIFTY", WordSet.of(["QI", "ZA", "XU"]))  # not the edition the director set
    type_and_judge(webkit, "qi za")
    wait_for(webkit, "!document.getElementById('error-screen').hidden")
    assert text(webkit, "error-title") == "NOT JUDGED"
    assert "call the director" in text(webkit, "error-message")
    assert webkit.execute_script("return document.getElementById('verdict-screen').hidden")
    assert text(webkit, "verdict-word") == ""
    assert off_screen(webkit) == []
    wait_for(webkit, "!document.getElementById('lexicon-alert').hidden")


def test_a_refused_character_is_named_in_webkit(webkit, home: Home, server: Server):
    from selenium.webdriver.common.by import By

    pair(webkit, home, server, "ipad-3")
    type_and_judge(webkit, "za qu?t")
    hint = text(webkit, "word-hint")
    assert "Word 2 (\u201cqu?t\u201d) has a question mark \u201c?\u201d at position 3" in hint
    assert webkit.find_element(By.ID, "word-input").get_attribute("value") == "qu?t"
    assert webkit.execute_script("return document.getElementById('verdict-screen').hidden")
    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    assert not [r for r in rows if r["kiosk"] == "ipad-3"]  # nothing was judged


def chip_tiles(webkit) -> list[list[str]]:
    return webkit.execute_script(
        "return [...document.querySelectorAll('#chips .chip-word')].map(word => "
        "[...word.querySelectorAll('.tile')].map(tile => tile.textContent))"
    )


def test_spanish_tiles_from_the_row_and_a_split_in_webkit(webkit, home: Home, server: Server):
    from selenium.webdriver.common.by import By

    pair(webkit, home, server, "ipad-es", "es")
    wait_for(webkit, "!document.getElementById('tile-row').hidden")
    assert text(webkit, "alphabet-name") == "Spanish"  # an English kiosk
    box = webkit.find_element(By.ID, "word-input")
    box.click()
    box.send_keys("chat perro a")
    webkit.find_element(By.CSS_SELECTOR, "#tile-row .tile-key[data-tile='\u00d1']").click()
    box.send_keys("o ")
    wait_for(webkit, "document.querySelectorAll('#chips .chip-word .tile').length === 10")
    assert chip_tiles(webkit) == [["CH", "A", "T"], ["P", "E", "RR", "O"], ["A", "\u00d1", "O"]]
    webkit.find_element(By.CSS_SELECTOR, "#chips .chip-split[data-index='0']").click()
    wait_for(webkit, "document.querySelectorAll('#chips .chip-word .tile').length === 11")
    assert chip_tiles(webkit)[0] == ["C", "H", "A", "T"]
    assert off_screen(webkit) == []
    webkit.find_element(By.ID, "judge-button").click()
    assert verdict_word(webkit) == "ACCEPTABLE"
    assert off_screen(webkit) == []
    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    assert [r["words"] for r in rows if r["kiosk"] == "ipad-es"] == [["CHAT", "PE[RR]O", "AÑO"]]


def test_a_lost_answer_then_a_reload_shows_the_verdict_recorded_once_in_webkit(
    webkit, home: Home, server: Server
):
    """An iPad's answer lost on the way back, its page reloaded, the same words judged: the
    verdict recorded is shown, and the journal holds the challenge once."""
    pair(webkit, home, server, "ipad-retry")
    webkit.execute_script(f"({LOSE_ONE_ANSWER})()")
    type_and_judge(webkit, "qi za")
    wait_for(webkit, "!document.getElementById('error-screen').hidden")
    assert text(webkit, "error-title") == "NOT JUDGED"
    recorded = webkit.execute_script("return window.lostAnswer")["body"]
    webkit.refresh()
    wait_for(webkit, "document.getElementById('tournament-title').textContent !== ''")
    type_and_judge(webkit, "qi za")
    assert verdict_word(webkit) == "ACCEPTABLE"
    assert text(webkit, "verdict-id") == f"#{recorded['id']}"
    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    assert [r["id"] for r in rows if r["kiosk"] == "ipad-retry"] == [recorded["id"]]
