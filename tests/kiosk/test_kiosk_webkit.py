"""The kiosk's main flows in WebKit (as on an iPad), through Selenium and WebKitGTK's WebDriver.

Pair with the pairing link, type, judge both verdicts, see NOT JUDGED when the lexicon is
unavailable, see a refused character named rather than changed, and judge Spanish words typed
with the row of special tiles and split into tiles by the players; against a real
`adjudicator serve`. Each screen is also checked to fit the browser's window.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.browser import OFF_SCREEN_JS, Home, Server
from support.webkit import webkit_driver, webkit_missing_reason, xvfb_display

MISSING = webkit_missing_reason()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(MISSING is not None and not os.environ.get("CI"), reason=str(MISSING)),
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


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    assert MISSING is None, MISSING  # under CI, a missing WebKit fails rather than skips
    with xvfb_display() as name:
        yield name


@pytest.fixture
def driver(display: str) -> Iterator:
    with webkit_driver(display) as session:
        yield session


def wait_for(driver, script: str, timeout: float = 10):
    """Wait until a JS expression is true in the page."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(
        lambda d: d.execute_script(f"return {script}")
    )


def text(driver, element_id: str) -> str:
    return driver.execute_script(
        "return document.getElementById(arguments[0]).innerText.trim()", element_id
    )


def pair(driver, home: Home, server: Server, kiosk: str, tournament: str = "open") -> None:
    from selenium.webdriver.common.by import By

    code = home.pairing_code(kiosk, tournament)
    driver.get(f"{server.url}/pair/{code}")
    assert driver.find_element(By.ID, "code").get_attribute("value") == code
    driver.find_element(By.ID, "pair-button").click()
    wait_for(
        driver,
        "document.getElementById('lexicon-words') && "
        "document.getElementById('lexicon-words').textContent !== ''",
    )


def type_and_judge(driver, words: str) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "word-input")
    box.click()
    box.send_keys(words)
    driver.find_element(By.ID, "judge-button").click()


def off_screen(driver) -> list[str]:
    return driver.execute_script(f"return ({OFF_SCREEN_JS})()")


def verdict_word(driver) -> str:
    wait_for(driver, "!document.getElementById('verdict-screen').hidden")
    return text(driver, "verdict-word")


def test_pair_type_and_judge_both_verdicts_in_webkit(driver, home: Home, server: Server):
    from selenium.webdriver.common.by import By

    pair(driver, home, server, "ipad-1")
    assert "AppleWebKit" in driver.execute_script("return navigator.userAgent")
    assert text(driver, "tournament-title") == TITLE
    assert text(driver, "lexicon-name") == "TINY"
    assert off_screen(driver) == []

    type_and_judge(driver, "qi za")
    assert verdict_word(driver) == "ACCEPTABLE"
    assert text(driver, "verdict-gloss") == "the play stands"
    assert text(driver, "verdict-consequence") == (
        "The play stands; 5 points x 2 words: the player adds 10; the challenger keeps the turn."
    )
    assert driver.execute_script(
        "return [...document.querySelectorAll('#verdict-words li')].map(li => li.textContent)"
    ) == ["QI", "ZA"]
    assert off_screen(driver) == []
    verdict_id = text(driver, "verdict-id")

    wait_for(driver, "!document.getElementById('verdict-done').disabled")
    driver.find_element(By.ID, "verdict-done").click()
    wait_for(driver, "!document.getElementById('idle-screen').hidden")
    type_and_judge(driver, "qi zzz")
    assert verdict_word(driver) == "UNACCEPTABLE"
    assert text(driver, "verdict-gloss") == "the play comes off and scores zero"
    assert off_screen(driver) == []

    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    kiosk_rows = [r for r in rows if r["kiosk"] == "ipad-1"]
    assert [(r["words"], r["verdict"]) for r in kiosk_rows] == [
        (["QI", "ZA"], "ACCEPTABLE"),
        (["QI", "ZZZ"], "UNACCEPTABLE"),
    ]
    assert f"#{kiosk_rows[0]['id']}" == verdict_id


def test_not_judged_in_webkit_when_the_lexicon_is_unavailable(driver, home: Home, server: Server):
    store = LexiconStore(root=home.path / "lexicons")
    store.save("SHIFTY", WordSet.of(["QI", "ZA"]))
    home.tournament("shifty", "SHIFTY", "double", "Shifty division")
    pair(driver, home, server, "ipad-2", "shifty")
    store.save("SHIFTY", WordSet.of(["QI", "ZA", "XU"]))  # not the edition the director set
    type_and_judge(driver, "qi za")
    wait_for(driver, "!document.getElementById('error-screen').hidden")
    assert text(driver, "error-title") == "NOT JUDGED"
    assert "call the director" in text(driver, "error-message")
    assert driver.execute_script("return document.getElementById('verdict-screen').hidden")
    assert text(driver, "verdict-word") == ""
    assert off_screen(driver) == []
    wait_for(driver, "!document.getElementById('lexicon-alert').hidden")


def test_a_refused_character_is_named_in_webkit(driver, home: Home, server: Server):
    from selenium.webdriver.common.by import By

    pair(driver, home, server, "ipad-3")
    type_and_judge(driver, "za qu?t")
    hint = text(driver, "word-hint")
    assert "Word 2 (\u201cqu?t\u201d) has a question mark \u201c?\u201d at position 3" in hint
    assert driver.find_element(By.ID, "word-input").get_attribute("value") == "qu?t"
    assert driver.execute_script("return document.getElementById('verdict-screen').hidden")
    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    assert not [r for r in rows if r["kiosk"] == "ipad-3"]  # nothing was judged


def chip_tiles(driver) -> list[list[str]]:
    return driver.execute_script(
        "return [...document.querySelectorAll('#chips .chip-word')].map(word => "
        "[...word.querySelectorAll('.tile')].map(tile => tile.textContent))"
    )


def test_spanish_tiles_from_the_row_and_a_split_in_webkit(driver, home: Home, server: Server):
    from selenium.webdriver.common.by import By

    pair(driver, home, server, "ipad-es", "es")
    wait_for(driver, "!document.getElementById('tile-row').hidden")
    assert text(driver, "alphabet-name") == "spanish"
    box = driver.find_element(By.ID, "word-input")
    box.click()
    box.send_keys("chat perro a")
    driver.find_element(By.CSS_SELECTOR, "#tile-row .tile-key[data-tile='\u00d1']").click()
    box.send_keys("o ")
    wait_for(driver, "document.querySelectorAll('#chips .chip-word .tile').length === 10")
    assert chip_tiles(driver) == [["CH", "A", "T"], ["P", "E", "RR", "O"], ["A", "\u00d1", "O"]]
    driver.find_element(By.CSS_SELECTOR, "#chips .chip-split[data-index='0']").click()
    wait_for(driver, "document.querySelectorAll('#chips .chip-word .tile').length === 11")
    assert chip_tiles(driver)[0] == ["C", "H", "A", "T"]
    assert off_screen(driver) == []
    driver.find_element(By.ID, "judge-button").click()
    assert verdict_word(driver) == "ACCEPTABLE"
    assert off_screen(driver) == []
    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    assert [r["words"] for r in rows if r["kiosk"] == "ipad-es"] == [["CHAT", "PE[RR]O", "AÑO"]]
