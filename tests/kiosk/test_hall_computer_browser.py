"""The hall's one challenge computer (issue 44, item 2), in real Chromium against a real server
whose kiosk limit is the program's own (ADJUDICATOR_KIOSK_RATE_LIMIT unset): the kiosk of no
table that every table walks to judges 30 challenges in a minute from 30 tables through the
page, each recorded with its table; a kiosk at a table is refused at its seventh challenge in a
minute, NOT JUDGED, with what the director can do, and nothing recorded."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from support.browser import Home, open_page, pair_page

pytestmark = [pytest.mark.browser]

SERVER_SETTINGS = {"kiosk_rate_limit": "", "verdict_seconds": "300"}  # unset: the program's own
LOCKOUT_MS = 1600  # a verdict cannot be dismissed for 1.5 s (kiosk-screens.js): run past it


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("hall-computer-home"))
    home.tournament("open", "TINY", "5-then-10", "Open (every table's game counted)")
    home.tournament("club", "TINY", "double", "Club night")
    return home


def kiosk_page(browser, home: Home, server, name: str, tournament: str, *options: str):
    page = open_page(browser, {"width": 1366, "height": 768}, timeout=10_000)
    page.clock.install()  # the verdict's lockout is run past, not waited for
    return pair_page(page, server.url, home.pairing_code(name, tournament, *options))


def judge(page, words: str) -> str:
    """Type `words`, press JUDGE; the verdict's word, or NOT JUDGED's message."""
    page.locator("#word-input").focus()
    page.keyboard.type(words)
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden]), #error-screen:not([hidden])")
    if page.locator("#error-screen").is_visible():
        return "NOT JUDGED: " + page.inner_text("#error-message")
    word = page.inner_text("#verdict-word")
    page.clock.run_for(LOCKOUT_MS)
    page.click("#verdict-done")
    page.wait_for_selector("#idle-screen:not([hidden])")
    return word


def rows_of(home: Home, kiosk: str) -> list[dict]:
    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    return [row for row in rows if row["kiosk"] == kiosk]


def test_the_halls_computer_takes_thirty_challenges_in_a_minute_from_thirty_tables(
    browser, home: Home, server
):
    page = kiosk_page(browser, home, server, "hall-computer", "open")
    try:
        page.fill("#game-round", "2")
        verdicts = []
        for table in range(1, 31):
            page.fill("#game-table", str(table))
            page.fill("#game-challenger", f"Player {table}")
            verdicts.append(judge(page, "qi za"))
    finally:
        page.context.close()
    assert verdicts == ["ACCEPTABLE"] * 30
    rows = rows_of(home, "hall-computer")
    assert [row["table"] for row in rows] == [str(table) for table in range(1, 31)]
    first, last = (datetime.fromisoformat(rows[i]["recorded_at"]) for i in (0, -1))
    assert (last - first).total_seconds() < 60  # all thirty within one minute


def test_a_tables_kiosk_is_refused_at_its_seventh_challenge_saying_what_to_do(
    browser, home: Home, server
):
    page = kiosk_page(browser, home, server, "table-9", "club", "--table", "9")
    try:
        verdicts = [judge(page, "qi") for _ in range(6)]
        refused = judge(page, "za")
        assert page.inner_text("#error-title") == "NOT JUDGED"
        assert page.locator("#verdict-screen").is_hidden()
    finally:
        page.context.close()
    assert verdicts == ["ACCEPTABLE"] * 6
    assert refused.startswith(
        "NOT JUDGED: This table's kiosk has judged 6 challenges in a short time: please wait a "
        "moment, or call the director."
    )
    assert "(adjudicator kiosk table NAME none)" in refused  # what the director can do
    assert [row["words"] for row in rows_of(home, "table-9")] == [["QI"]] * 6  # ZA: nothing
