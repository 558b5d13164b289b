"""The kiosk page under a rule that counts challenges (WESPA 3.10.15(c)), in real Chromium.

Under dingle, 5-then-10 and escalating the penalty depends on the challenger's earlier
unsuccessful challenges in the same game, so the kiosk asks for the round, the table and who
challenges; a tablet remembers round and table between challenges. Under the standard rules
it asks for nothing more than the words.
"""

from __future__ import annotations

import time

import pytest

from support.axe import axe_missing_reason, axe_violations
from support.browser import (
    TABLET,
    Home,
    off_screen,
    pair_page,
    save_screenshot,
    type_and_judge,
    wait_until,
)

pytestmark = [
    pytest.mark.browser,
]

FIRST = "Unsuccessful challenge number 1 by the challenger in this game. No penalty"
SECOND = (
    "Unsuccessful challenge number 2 by the challenger in this game. "
    "The challenger loses their turn."
)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("game-home"))
    home.tournament("dingle-open", "TINY", "dingle", "Dingle Open")
    home.tournament("double-open", "TINY", "double", "Double Open")
    home.tournament("school-open", "TINY", "double", "School Open")
    home.cli(
        "tournament",
        "set",
        "school-open",
        "--rulebook",
        "school-2011",
        "--off-rulebook",
        "tiny list",
    )
    return home


@pytest.fixture
def tablet(paired):
    """tablet(tournament) -> a page paired as a new kiosk of that tournament; errors fail."""
    return lambda tournament, viewport=None: paired(tournament, viewport=viewport or TABLET)


def judge(page, words: str, **game: str) -> dict:
    """Fill the game fields given, type the words, press JUDGE; the verdict screen's text."""
    for name, value in game.items():
        page.fill(f"#game-{name}", value)
    type_and_judge(page, words)
    return {
        "title": page.inner_text("#verdict-title"),
        "consequence": page.inner_text("#verdict-consequence"),
        "id": page.inner_text("#verdict-id"),
        "game": page.inner_text("#verdict-game"),
    }


def back_to_words(page) -> None:
    page.wait_for_timeout(1600)  # the verdict screen ignores input for 1.5 s
    page.click("#verdict-done")
    page.wait_for_selector("#idle-screen:not([hidden])")


def test_wespa_3_10_15_c_i_dingle_on_a_tablet(tablet):
    """Dingle: no penalty for the challenger's first unsuccessful challenge in the game, loss of
    turn for the next; the tablet keeps round and table, asks who challenges each time."""
    page = tablet("dingle-open")
    assert page.locator("#game-details").is_visible()
    assert page.inner_text("#rule-title").startswith("Dingle: no penalty for a player's first")
    save_screenshot(page, "kiosk-game-idle")
    assert page.evaluate("document.activeElement.id") == "game-round"  # asked first

    # Without the game, nothing is sent: a hint says what is missing.
    page.locator("#word-input").focus()
    page.keyboard.type("QI")
    page.click("#judge-button")
    wait_until(page, "document.getElementById('word-hint').textContent.includes('round')")
    assert page.inner_text("#word-hint").startswith("Give the round, table, challenger first")
    assert page.locator("#verdict-screen").is_hidden()
    assert page.evaluate("document.activeElement.id") == "game-round"
    page.locator("#chips .chip-remove").click()  # start again with no words

    first = judge(page, "QI", round="3", table="12", challenger="Ann")
    assert first["title"].startswith("ACCEPTABLE") and FIRST in first["consequence"]
    assert first["game"] == "Round 3 · Table 12 · challenger ANN"  # as the journal keeps it
    save_screenshot(page, "kiosk-game-dingle-first")
    back_to_words(page)
    # round and table kept, the challenger asked again
    assert page.input_value("#game-round") == "3" and page.input_value("#game-table") == "12"
    assert page.input_value("#game-challenger") == ""
    assert page.evaluate("document.activeElement.id") == "game-challenger"

    second = judge(page, "ZA", challenger="ann")  # case does not make another player
    assert SECOND in second["consequence"]
    back_to_words(page)

    unsuccessful_for_bob = judge(page, "JO", challenger="Bob")
    assert FIRST in unsuccessful_for_bob["consequence"]
    back_to_words(page)
    successful = judge(page, "QX", challenger="Ann")  # a successful challenge costs Ann nothing
    assert successful["title"].startswith("UNACCEPTABLE")
    back_to_words(page)

    page.reload()  # the tablet restarts: round and table come back, no challenger
    wait_until(page, "!document.getElementById('game-details').hidden")
    assert page.input_value("#game-round") == "3" and page.input_value("#game-table") == "12"
    assert page.input_value("#game-challenger") == ""
    third = judge(page, "XI", challenger="Ann")
    assert "Unsuccessful challenge number 3 by the challenger" in third["consequence"]
    save_screenshot(page, "kiosk-game-dingle-third")


def test_a_tablet_seated_at_a_table_keeps_its_table(home, server, new_page):
    """A kiosk the director seated at table 6 (`kiosk add --table 6`) shows table 6, read-only,
    and its challenges are table 6's: the players give only the round and who challenges."""
    code = home.pairing_code("seated-6", "dingle-open", "--table", "6")
    page = pair_page(new_page(TABLET), server.url, code, link="/pair#")
    assert page.input_value("#game-table") == "6"
    assert page.get_attribute("#game-table", "readonly") is not None
    assert page.evaluate("document.activeElement.id") == "game-round"
    verdict = judge(page, "QI", round="2", challenger="Cy")
    assert verdict["game"] == "Round 2 · Table 6 · challenger CY"
    back_to_words(page)
    assert page.get_attribute("#game-table", "readonly") is not None  # still, after a verdict
    assert page.input_value("#game-table") == "6"
    page.reload()
    wait_until(page, "!document.getElementById('game-details').hidden")
    assert page.input_value("#game-table") == "6"


def test_the_api_refuses_a_challenge_without_the_game(tablet):
    """WESPA 3.10.15(c) rules need the game: 400, an error that says what to give, no verdict."""
    page = tablet("dingle-open")

    def post():
        return page.request.post(
            page.url.rstrip("/") + "/api/v1/adjudications",
            data={"words": ["QI"], "round": "1", "table": "4"},
            headers={"Content-Type": "application/json"},
        )

    answer = post()
    if answer.status == 429:  # the page's browser holds the kiosk's six connections, all just used
        assert "as many connections open as a kiosk may" in answer.json()["error"]
        time.sleep(1.5)  # one idle a second makes room (kiosk/server/admission.py)
        answer = post()
    body = answer.json()
    assert answer.status == 400 and body["ok"] is False
    assert "give the challenger" in body["error"] and "Nothing was judged" in body["error"]
    assert "verdict" not in body and "ACCEPTABLE" not in body["error"]


def test_a_standard_rule_asks_for_the_words_only(tablet):
    page = tablet("double-open")
    assert page.locator("#game-details").is_hidden()
    verdict = judge(page, "QI")
    assert verdict["consequence"] == "The challenger loses their turn."  # the gloss: play stands


@pytest.mark.parametrize(
    "screen", [(1920, 1080), (1366, 768), (768, 1024), (1024, 768), (390, 844)], ids=str
)
def test_the_game_fields_fit_every_screen(tablet, screen):
    """The three fields and eight long words still need no scrolling (see test_kiosk_fit)."""
    page = tablet("dingle-open", {"width": screen[0], "height": screen[1]})
    page.fill("#game-round", "12")
    page.fill("#game-table", "104")
    page.fill("#game-challenger", "Alexandra Smith")
    page.locator("#word-input").focus()
    page.keyboard.type("QI ZA JO XI CAT DOG FOX ZEBRA")
    assert off_screen(page) == []
    save_screenshot(page, f"kiosk-game-fit-{screen[0]}x{screen[1]}")


@pytest.mark.skipif(axe_missing_reason() is not None, reason=str(axe_missing_reason()))
def test_the_game_fields_pass_axe(tablet):
    page = tablet("dingle-open")
    assert axe_violations(page) == []
    judge(page, "QI", round="1", table="2", challenger="Ann")
    assert axe_violations(page) == []


def test_school_rule_12_the_kiosk_asks_for_the_final_play_only_under_the_school_rulebook(tablet):
    """ "There is no penalty for challenging the final play of the game": the box is there
    under school-2011, sent with the challenge, and cleared for the next one."""
    page = tablet("double-open")
    assert page.locator("#final-play-row").is_hidden()
    page = tablet("school-open")
    wait_until(page, "!document.getElementById('final-play-row').hidden")
    page.check("#final-play")
    verdict = judge(page, "qi")
    assert verdict["consequence"] == (
        "No penalty for challenging the final play of the game (school rule 12)."  # gloss: stands
    )
    back_to_words(page)
    assert not page.locator("#final-play").is_checked()
    verdict = judge(page, "za")
    assert "The challenger loses their turn." in verdict["consequence"]
