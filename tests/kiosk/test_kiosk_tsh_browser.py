"""A kiosk at a table of a tournament linked to TSH, in real Chromium against a real server
(two workers, each following the link): the kiosk shows "Round R · Table T" and the two
players, the challenger is tapped, the verdict names the game, the director's journal page
shows the names; TSH writing a new round reaches the open page by itself; a table with no
game this round still judges; the page speaks the tournament's language."""

from __future__ import annotations

import pytest

from support import tsh_files
from support.axe import axe_missing_reason, axe_violations
from support.browser import (
    LAPTOP,
    TABLET,
    Home,
    fill_sign_in,
    off_screen,
    open_page,
    pair_page,
    save_screenshot,
    type_and_judge,
    wait_until,
)

pytestmark = [pytest.mark.browser]

SERVER_SETTINGS = {"tsh_poll_seconds": "1"}
SERVER_WORKERS = 2
DIRECTOR_PASSWORD = "tsh-director-pass-1"
EVENT = tsh_files.make_event({"A": 8}, 4, 2)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("tsh-home"))
    home.tournament("tsh-open", "TINY", "double", "TSH Open")
    home.tournament("tsh-dingle", "TINY", "dingle", "TSH Dingle")
    home.tournament("tsh-pl", "TINY", "double", "Turniej TSH")
    home.cli("tournament", "set", "tsh-pl", "--language", "pl")
    path = tsh_files.write_tourney_js(home.path / "event" / "html" / "tourney.js", EVENT)
    for slug in ("tsh-open", "tsh-dingle", "tsh-pl"):
        home.cli("tsh", "link", slug, str(path))
    home.cli("director", "set-password", "--password-stdin", stdin=DIRECTOR_PASSWORD + "\n")
    home.event_path = path
    return home


@pytest.fixture
def at_table(home, server, new_page):
    """at_table(tournament, table) -> a tablet page paired as a kiosk seated at that table."""
    made = []

    def pair(tournament: str, table: int, viewport=None):
        name = f"{tournament}-t{table}-{len(made)}"
        code = home.pairing_code(name, tournament, "--table", str(table))
        page = pair_page(new_page(viewport or TABLET), server.url, code, link="/pair#")
        made.append(page)
        return page

    return pair


def shows_game(page) -> None:
    wait_until(page, "!document.getElementById('table-game').hidden")


def test_tap_a_name_judge_and_see_the_names_in_the_journal(home, server, at_table, browser):
    page = at_table("tsh-open", 2)
    shows_game(page)
    first, second = tsh_files.seated(EVENT, "A", 3, 2)
    assert page.inner_text("#table-game-title") == "Round 3 · Table 2"
    assert page.inner_text("#table-player-1-name") == first
    assert page.inner_text("#table-player-2-name") == second
    assert page.locator("#table-player-1-first").is_visible()
    assert not page.locator("#table-player-2-first").is_visible()
    assert off_screen(page) == []
    save_screenshot(page, "kiosk-tsh-game")
    type_and_judge(page, "QI", verdict=False)  # nobody tapped yet: a hint, no verdict
    wait_until(
        page,
        "document.getElementById('word-hint').textContent === 'Who challenges? Tap their name.'",
    )
    assert page.locator("#idle-screen").is_visible()
    page.click("#table-player-2")
    assert page.get_attribute("#table-player-2", "aria-pressed") == "true"
    assert page.get_attribute("#table-player-1", "aria-pressed") == "false"
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert page.inner_text("#verdict-game") == (
        f"Round 3 · Table 2 · {first} v {second} · challenger {second}"
    )
    director = open_page(browser, LAPTOP)
    director.goto(server.url + "/director/login")
    fill_sign_in(director, "director", DIRECTOR_PASSWORD)
    director.wait_for_url(server.url + "/director/")
    director.goto(server.url + "/director/journal?tournament=tsh-open")
    row = director.locator("#journal tbody tr").first
    assert row.locator("td.players").inner_text() == f"{first} v {second} (division A)"
    assert second in row.inner_text()
    director.fill("input[name=player]", first)
    director.click("#journal-filters button[type=submit]")
    director.wait_for_url("**player=*")
    assert director.locator("#journal tbody tr").count() == 1
    overview = director.goto(server.url + "/director/")
    assert overview.ok
    assert "TSH Open" in director.inner_text("#overview-tsh-open")
    assert "Spring Open" in director.inner_text("#overview-tsh-open-tsh")


def test_a_new_round_from_tsh_reaches_the_open_page(home, at_table):
    page = at_table("tsh-dingle", 1)
    shows_game(page)
    assert page.inner_text("#table-game-title") == "Round 3 · Table 1"
    assert not page.locator("#game-details").is_visible()  # the typed fields give way to names
    for round_number in (3, 4):
        tsh_files.score_round(EVENT, "A", round_number)
    tsh_files.pair_round(EVENT, "A")
    tsh_files.write_tourney_js(home.event_path, EVENT)  # TSH rewrites its tourney.js
    wait_until(
        page,
        "document.getElementById('table-game-title').textContent === 'Round 5 · Table 1'",
        timeout=20,
    )
    first, second = tsh_files.seated(EVENT, "A", 5, 1)
    assert page.inner_text("#table-player-1-name") == first
    page.click("#table-player-1")
    type_and_judge(page, "QI")
    assert "Round 5 · Table 1" in page.inner_text("#verdict-game")
    assert "Unsuccessful challenge number 1" in page.inner_text("#verdict-consequence")


def test_a_table_with_no_game_says_so_and_still_judges(at_table):
    page = at_table("tsh-dingle", 9)
    wait_until(page, "!document.getElementById('table-none').hidden")
    assert page.inner_text("#table-none") == (
        "No game at table 9 this round. Type the round and table as usual."
    )
    assert page.locator("#game-details").is_visible()  # typed as before this round
    assert page.input_value("#game-table") == "9"
    page.fill("#game-round", "3")
    page.fill("#game-challenger", "Ann")
    type_and_judge(page, "QI")
    assert page.inner_text("#verdict-game") == "Round 3 · Table 9 · challenger ANN"


def test_the_page_speaks_the_tournaments_language(at_table):
    page = at_table("tsh-pl", 3)
    shows_game(page)
    assert page.inner_text("#table-game-title").startswith("Runda ")
    assert "Stół 3" in page.inner_text("#table-game-title")
    assert "Kto sprawdza?" in page.inner_text("#table-game")
    page.click("#table-player-1")
    type_and_judge(page, "QI")
    assert page.inner_text("#verdict-game").startswith("Runda ")


@pytest.mark.skipif(bool(axe_missing_reason()), reason=axe_missing_reason() or "")
def test_the_names_to_tap_have_no_accessibility_violations(at_table):
    page = at_table("tsh-open", 4)
    shows_game(page)
    assert axe_violations(page) == []


def test_asking_for_the_table_again_and_again_keeps_one_question_at_a_time(at_table):
    """After each verdict and each idle clear the page asks for its game again; with a slow
    server those asks must not pile up into parallel poll loops that never end."""
    page = at_table("tsh-open", 3)
    shows_game(page)
    page.evaluate(
        """() => {
          window.tableAsks = { now: 0, most: 0, all: 0 };
          const plain = window.fetch;
          window.fetch = function (url, options) {
            if (String(url).indexOf("/api/v1/table") < 0) return plain(url, options);
            const asks = window.tableAsks;
            asks.now += 1; asks.all += 1; asks.most = Math.max(asks.most, asks.now);
            return new Promise((done) => setTimeout(done, 400))   // a slow server
              .then(() => plain(url, options))
              .finally(() => { asks.now -= 1; });
          };
        }"""
    )
    for _ in range(6):  # verdicts and idle clears in quick succession
        page.evaluate("() => { Kiosk.refreshTable(); }")  # not awaited
        page.wait_for_timeout(50)
    page.wait_for_timeout(3000)
    asks = page.evaluate("() => window.tableAsks")
    assert asks["most"] == 1, asks
    assert asks["all"] <= 3, asks  # one for the burst, then one each poll interval (5 s)
