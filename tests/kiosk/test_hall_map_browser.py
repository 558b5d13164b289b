"""The hall map (/director/hall, issue 36) in real Chromium against a real server: a tournament
linked to TSH with kiosks paired at its tables. The tiles' tables, kiosk states, games and
counts; a challenge judged at a kiosk shows on the open map at its next refresh (every 5 s,
run on the page's clock); 100 tables on one 1920x1080 screen; nothing sideways at 390 px; axe
finds nothing in any of the five languages."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from support import tsh_files
from support.axe import axe_missing_reason, axe_violations
from support.browser import (
    HD,
    LAPTOP,
    PHONE,
    TABLET,
    Home,
    fill_sign_in,
    pair_page,
    type_and_judge,
    wait_until,
)

pytestmark = [pytest.mark.browser]

SERVER_SETTINGS = {"verdict_seconds": "1"}

DIRECTOR_PASSWORD = "hall-map-director-1"
EVENT = tsh_files.make_event({"A": 8}, 4, 2)  # tables 1-4, round 3 being played
BIG = tsh_files.make_event({"B": 200}, 2, 1, name="Big Open")  # 100 tables
LANGUAGES = ("en", "pl", "es", "ca", "fr")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("hall-map-home"))
    home.tournament("open", "TINY", "double", "Spring Open")
    home.tournament("big", "TINY", "double", "Big Open")
    folder = home.path / "event"
    home.cli("tsh", "link", "open", str(tsh_files.write_tourney_js(folder / "a.js", EVENT)))
    home.cli("tsh", "link", "big", str(tsh_files.write_tourney_js(folder / "b.js", BIG)))
    home.cli("kiosk", "add", "away", "--tournament", "open", "--table", "3")
    home.cli("kiosk", "add", "spare", "--tournament", "open")
    with sqlite3.connect(home.path / "journal.sqlite3") as db:  # `away` was seen 12 min ago
        ago = (datetime.now(UTC) - timedelta(minutes=12, seconds=5)).isoformat()
        db.execute("UPDATE kiosks SET last_seen_at = ? WHERE name = 'away'", (ago,))
    home.cli("director", "set-password", "--password-stdin", stdin=DIRECTOR_PASSWORD + "\n")
    return home


def director(new_page, server, viewport=LAPTOP, language: str = "en"):
    page = new_page(viewport)
    page.context.set_extra_http_headers({"Accept-Language": language})
    page.goto(server.url + "/director/login")
    fill_sign_in(page, "director", DIRECTOR_PASSWORD)
    page.wait_for_url(server.url + "/director/")
    return page


def tile(page, table: str):
    return page.locator(f'#hall-open .tile[data-table="{table}"]')


def judge_at(page, words: str) -> None:
    page.click("#table-player-1")
    type_and_judge(page, words)


def test_tiles_states_games_and_counts_and_a_new_challenge_shows(home, server, new_page):
    code = home.pairing_code("at-two", "open", "--table", "2")
    kiosk = pair_page(new_page(TABLET), server.url, code, link="/pair#")
    wait_until(kiosk, "!document.getElementById('table-game').hidden")
    judge_at(kiosk, "QI")
    page = director(new_page, server)
    page.click("#nav-hall")
    page.wait_for_url("**/director/hall")
    assert page.locator("#hall-open [data-table]").evaluate_all(
        "a => a.map(e => e.dataset.table)"
    ) == ["1", "2", "3", "4"]
    assert page.locator("[data-table]").evaluate_all(
        "all => all.every(e => e.classList.contains('tile'))"
    )  # only tiles carry data-table
    first, second = tsh_files.seated(EVENT, "A", 3, 2)
    two = tile(page, "2")
    assert (two.get_attribute("data-state"), two.get_attribute("data-challenges")) == (
        "online",
        "1",
    )
    assert two.locator(".tile-player").all_inner_texts() == [first, second]
    assert "round 3" in two.inner_text() and "1 challenge" in two.inner_text()
    assert tile(page, "3").get_attribute("data-state") == "offline"
    assert "offline for 12 min" in tile(page, "3").inner_text()
    assert tile(page, "1").get_attribute("data-state") == "none"
    assert "no kiosk" in tile(page, "1").inner_text()
    assert "spare (never seen)" in page.inner_text("#hall-open-unseated")

    page.clock.install()
    page.reload()
    page.evaluate("window.notReloaded = true")
    kiosk.wait_for_selector("#verdict-screen", state="hidden")  # back by itself after 1 s
    judge_at(kiosk, "ZA")
    page.clock.run_for(5_500)  # the next refresh
    wait_until(
        page, "document.querySelector('#hall-open [data-table=\"2\"]').dataset.challenges == 2"
    )
    assert page.evaluate("window.notReloaded") is True  # the tiles were fetched, not the page
    page.clock.run_for(5_500)  # nothing new: a 304, the tiles stay
    assert tile(page, "2").get_attribute("data-challenges") == "2"
    assert "Refreshes by itself" in page.inner_text("#hall-refresh")

    tile(page, "2").click()  # its challenges this round
    page.wait_for_url("**/director/journal?**")
    assert page.locator("#journal tbody tr").count() == 2
    assert (
        page.input_value("input[name=table]") == "2"
        and page.input_value("input[name=round]") == "3"
    )


def test_a_hundred_tables_fit_one_1920x1080_screen(home, server, new_page):
    page = director(new_page, server, HD)
    page.goto(server.url + "/director/hall?tournament=big")
    assert page.locator(".tile").count() == 100
    fits = page.evaluate(
        """() => {
          const w = window.innerWidth, h = window.innerHeight;
          const page = document.documentElement;
          const out = [...document.querySelectorAll('.tile')].filter(t => {
            const b = t.getBoundingClientRect();
            return b.left < 0 || b.top < 0 || b.right > w || b.bottom > h;
          }).map(t => t.dataset.table);
          return {scrollWidth: page.scrollWidth, scrollHeight: page.scrollHeight, w, h, out};
        }"""
    )
    assert fits["out"] == [] and fits["scrollHeight"] <= fits["h"], fits
    assert fits["scrollWidth"] <= fits["w"], fits


def test_a_phone_scrolls_nothing_sideways(home, server, new_page):
    page = director(new_page, server, PHONE)
    for path in ("/director/hall", "/director/hall?tournament=big"):
        page.goto(server.url + path)
        width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], (path, width)


@pytest.mark.skipif(bool(axe_missing_reason()), reason=axe_missing_reason() or "")
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_map_has_no_accessibility_violations(home, server, new_page, language):
    page = director(new_page, server, LAPTOP, language)
    page.goto(server.url + "/director/hall")
    assert page.locator("html").get_attribute("lang") == language
    assert page.locator(".tile").count() > 100
    assert axe_violations(page) == []
