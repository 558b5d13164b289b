"""The hall map on a 1920x1080 projector, read from across the room (issue 44, item 4), in real
Chromium against a real server: 40 TSH tables fill the screen (their tiles span at least 70% of
its height, each table's number at least 28 px), 100 tables all fit on it, every tile shows its
division, and a table with challenges this round and one waiting for the director stand out
from the rest by their colour, measured in the page (getBoundingClientRect, getComputedStyle).
A tile refreshed by itself keeps the size; a window made smaller gets smaller tiles."""

from __future__ import annotations

import json

import pytest

from support import servers, tsh_files
from support.axe import axe_missing_reason, axe_violations
from support.browser import HD, LAPTOP, Home, fill_sign_in, open_page, wait_until

pytestmark = [pytest.mark.browser]

DIRECTOR_PASSWORD = "projector-director-1"
FORTY = tsh_files.make_event({"A": 80}, 4, 2, name="Forty Open")  # 40 tables, round 3 on
HUNDRED = tsh_files.make_event({"B": 200}, 2, 1, name="Big Open")  # 100 tables, round 2 on

MEASURE = """() => {
  const tiles = [...document.querySelectorAll('.tile')];
  const boxes = tiles.map(t => t.getBoundingClientRect());
  const style = e => getComputedStyle(e);
  return {
    count: tiles.length,
    top: Math.min(...boxes.map(b => b.top)),
    bottom: Math.max(...boxes.map(b => b.bottom)),
    out: tiles.filter((t, i) => boxes[i].top < 0 || boxes[i].left < 0 ||
        boxes[i].bottom > innerHeight || boxes[i].right > innerWidth).map(t => t.dataset.table),
    numbers: tiles.map(t => parseFloat(style(t.querySelector('.tile-number')).fontSize)),
    divisions: tiles.map(t => {  // the division's name as shown, and whether it is cut short
      const name = t.querySelector('.tile-division-name');
      const shown = name && name.closest('.tile-when > span');
      return name && [name.textContent, shown.scrollWidth <= shown.clientWidth];
    }),
    backgrounds: Object.fromEntries(tiles.map(t => [t.dataset.table, style(t).backgroundColor])),
    scrollHeight: document.documentElement.scrollHeight,
    height: innerHeight,
    width: innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
  };
}"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("projector-home"))
    home.tournament("forty", "TINY", "double", "Forty Open")
    home.tournament("big", "TINY", "double", "Big Open")
    folder = home.path / "event"
    home.cli("tsh", "link", "forty", str(tsh_files.write_tourney_js(folder / "f.js", FORTY)))
    home.cli("tsh", "link", "big", str(tsh_files.write_tourney_js(folder / "b.js", HUNDRED)))
    for table, words, verdict in (("3", ["QI"], 0), ("3", ["ZA"], 0), ("17", ["QI", "ZAX"], 1)):
        challenger = tsh_files.seated(FORTY, "A", 3, int(table))[1]
        done = servers.run_cli(
            home.path, "judge", "--tournament", "forty", "--round", "3", "--table", table,
            "--challenger", challenger, *words, env=home.env,
        )  # fmt: skip
        assert done.returncode == verdict, done.stderr  # 0 ACCEPTABLE, 1 UNACCEPTABLE
    last = max(row["id"] for row in json.loads(home.cli("journal", "export", "--format", "json")))
    judge = {**home.env, "LOGNAME": "alice", "USER": "alice"}  # another person's opinion
    opinion = servers.run_cli(home.path, "second-opinion", str(last), "QI", "ZA", env=judge)
    assert opinion.returncode == 0, opinion.stderr  # it differs: it waits for the director
    home.cli("director", "set-password", "--password-stdin", stdin=DIRECTOR_PASSWORD + "\n")
    return home


def director_at(browser, server, viewport, path: str):
    page = open_page(browser, viewport, timeout=10_000)
    page.goto(server.url + "/director/login")
    fill_sign_in(page, "director", DIRECTOR_PASSWORD)
    page.wait_for_url(server.url + "/director/")
    page.goto(server.url + path)
    wait_until(page, "document.getElementById('hall-map').dataset.columns !== undefined")
    return page


def test_forty_tables_fill_a_1080p_projector_with_marks_that_stand_out(browser, home, server):
    page = director_at(browser, server, HD, "/director/hall?tournament=forty")
    seen = page.evaluate(MEASURE)
    assert seen["count"] == 40 and seen["out"] == [], seen["out"]
    assert seen["scrollHeight"] <= seen["height"] and seen["scrollWidth"] <= seen["width"]
    assert seen["bottom"] - seen["top"] >= 0.7 * 1080, seen  # the tiles span 70% of the height
    assert min(seen["numbers"]) >= 28, seen["numbers"]  # readable at 5 m
    assert seen["divisions"] == [["A", True]] * 40  # each tile's division, whole

    three, seventeen = page.locator('[data-table="3"]'), page.locator('[data-table="17"]')
    assert three.get_attribute("data-challenges") == "2"
    assert "challenged" in three.get_attribute("class")
    assert "waiting" in seventeen.get_attribute("class")
    quiet = seen["backgrounds"]["1"]
    assert seen["backgrounds"]["3"] not in (quiet, seen["backgrounds"]["17"])  # yellow, red
    assert {b for t, b in seen["backgrounds"].items() if t not in ("3", "17")} == {quiet}
    assert seventeen.locator(".tile-mark").is_visible()
    if axe_missing_reason() is None:
        assert axe_violations(page) == []

    page.set_viewport_size(LAPTOP)  # a smaller screen: smaller tiles, still all on it
    page.wait_for_timeout(300)
    smaller = page.evaluate(MEASURE)
    assert smaller["out"] == [] and max(smaller["numbers"]) < min(seen["numbers"])
    page.context.close()


def test_a_hundred_tables_all_fit_a_1080p_projector(browser, home, server):
    page = director_at(browser, server, HD, "/director/hall?tournament=big")
    seen = page.evaluate(MEASURE)
    assert seen["count"] == 100 and seen["out"] == [], seen["out"]
    assert seen["scrollHeight"] <= seen["height"] and seen["scrollWidth"] <= seen["width"]
    assert min(seen["numbers"]) >= 20, seen["numbers"]
    assert seen["divisions"] == [["B", True]] * 100
    page.context.close()


def test_every_tournament_on_one_map_fits_the_projector(browser, home, server):
    page = director_at(browser, server, HD, "/director/hall")
    seen = page.evaluate(MEASURE)
    assert seen["count"] == 140 and seen["out"] == [], seen["out"]
    columns = page.evaluate("document.getElementById('hall-map').dataset.columns")
    page.evaluate("document.getElementById('hall-map').innerHTML += ''")  # as a refresh does
    wait_until(page, f"document.getElementById('hall-map').dataset.columns === '{columns}'")
    assert page.evaluate(MEASURE)["numbers"] == seen["numbers"]
    page.context.close()
