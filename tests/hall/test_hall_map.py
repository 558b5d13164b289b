"""The hall at a glance (issue 36): adjudicator/hall/director/hall_map.py and /director/hall
in-process.

A tournament linked to TSH (8 players, 4 boards: tables 1-4, round 3 being played) with kiosks
at tables 2, 3 and 10, one at no table; challenges at tables 2 and 10; a second opinion waiting
at table 4. The browser test (tests/kiosk/test_hall_map_browser.py) runs it in Chromium.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from datetime import UTC, datetime, timedelta

import pytest

from adjudicator.hall import kiosks
from adjudicator.hall.director import hall_map
from adjudicator.hall.tsh import links
from adjudicator.judging.corrections import second_opinion
from adjudicator.record.journal import journal

from support import tsh_files
from support.hall import CSW, NWL

pytestmark = pytest.mark.usefixtures("fast_hashes")

EVENT = tsh_files.make_event({"A": 8}, 4, 2)  # four boards a round, rounds 1 and 2 scored
AT_TWO = tsh_files.seated(EVENT, "A", 3, 2)[1]  # who challenges at table 2 (in round 3)


@pytest.fixture
def hall(staffed, tmp_path):
    """The NWL tournament linked to EVENT, its kiosks seated, a few challenges made."""
    db = staffed.db
    links.link(db, NWL, str(tsh_files.write_tourney_js(tmp_path / "tourney.js", EVENT)))
    kiosks.set_table(db, "table-1", 2)  # the setup's NWL kiosk, paired
    kiosks.add(db, "by-the-door", NWL, table=10)  # a table TSH does not use
    kiosks.add(db, "spare", NWL)  # at no table
    kiosks.add(db, "late", NWL, table=3)
    kiosks.touch(db, "table-1")
    with db.transaction() as cur:  # `late` was last seen twenty minutes ago
        ago = (datetime.now(UTC) - timedelta(minutes=20, seconds=5)).isoformat()
        cur.execute("UPDATE kiosks SET last_seen_at = ? WHERE name = 'late'", (ago,))
    for words in (["QI"], ["ZA", "CAT"]):
        staffed.challenge(words, challenger=AT_TWO)  # table 2, round 3 (its current round)
    earlier = tsh_files.seated(EVENT, "A", 2, 2)[0]
    staffed.challenge(["JO"], round="2", challenger=earlier)  # table 2, round 2: not this one
    door = kiosks.get(db, "by-the-door")
    staffed.setup.hall.adjudicate(door, ["XI"])  # table 10: today's
    at_four = tsh_files.seated(EVENT, "A", 3, 4)
    original = staffed.challenge(["QI", "ZAX"], table="4", challenger=at_four[0])
    second_opinion.give(db, staffed.store, original.id, ["QI", "ZA"], actor="alice",
                        station="judge:alice")  # fmt: skip
    return staffed


def tiles(found: hall_map.HallMap, slug: str = NWL) -> dict[str, hall_map.Tile]:
    (shown,) = [t for t in found.tournaments if t.tournament.slug == slug]
    return {tile.table: tile for tile in shown.tiles}


def test_one_tile_per_table_in_number_order_with_games_kiosks_counts_and_marks(hall):
    found = hall_map.build(hall.db, NWL)
    shown = tiles(found)
    assert list(shown) == ["1", "2", "3", "4", "10"]  # TSH's four tables and the kiosks'
    two = shown["2"]
    assert [seat.name for seat in two.game.seats] == tsh_files.seated(EVENT, "A", 3, 2)
    assert (two.game.round, two.state, two.challenges, two.waiting) == (3, "online", 2, ())
    assert (shown["3"].state, shown["3"].minutes) == ("offline", 20)
    assert (shown["1"].state, shown["1"].challenges) == ("none", 0)  # no kiosk there
    assert shown["4"].waiting == ("second-opinion",) and shown["4"].challenges == 1
    assert (shown["10"].game, shown["10"].state, shown["10"].challenges) == (None, "never", 1)
    (nwl,) = found.tournaments
    assert [k.name for k in nwl.unseated] == ["spare"] and nwl.linked


def test_a_tournament_not_linked_counts_todays_challenges(hall):
    kiosks.set_table(hall.db, "table-2", 7)  # the CSW kiosk
    hall.challenge(["QI"], hall.setup.csw)
    csw = tiles(hall_map.build(hall.db), CSW)
    assert list(csw) == ["7"] and (csw["7"].game, csw["7"].challenges) == (None, 1)


def test_the_version_changes_with_what_the_map_shows_and_only_then(hall):
    db = hall.db
    before = hall_map.version(db, NWL)
    assert hall_map.version(db, NWL) == before
    kiosks.touch(db, "table-1")  # seen again, still online: the map is the same
    assert hall_map.version(db, NWL) == before
    hall.challenge(["QI"], challenger=AT_TWO)
    after_challenge = hall_map.version(db, NWL)
    assert after_challenge != before
    kiosks.set_table(db, "spare", 1)
    assert hall_map.version(db, NWL) != after_challenge
    later = datetime.now(UTC) + timedelta(minutes=3)  # table 2's kiosk goes offline
    assert hall_map.version(db, NWL, now=later) != hall_map.version(db, NWL)


def test_the_page_its_tiles_and_their_refresh(hall):
    director = hall.director()
    page = director.get(f"/director/hall?tournament={NWL}").get_data(as_text=True)
    assert [m for m in re.findall(r'data-table="([^"]+)"', page)] == ["1", "2", "3", "4", "10"]
    two = re.search(r'<a class="tile[^>]*data-table="2"[^>]*>', page).group(0)
    assert 'data-state="online"' in two and 'data-challenges="2"' in two
    first = tsh_files.seated(EVENT, "A", 3, 2)[0]
    link = html.unescape(re.search(r'href="([^"]+)"', two).group(1))
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query) == {
        "tournament": [NWL], "kind": ["challenge"], "player": [first], "round": ["3"],
        "table": ["2"],
    }  # fmt: skip
    assert "offline for 20 min" in page and "never seen" in page and "no kiosk" in page
    assert 'data-kiosk="spare"' in page and "Kiosks at no table:" in page
    assert 'id="nav-hall"' in page and 'src="/static/director-refresh.js"' in page
    version = re.search(r'data-version="([0-9a-f]+)"', page).group(1)
    quiet = director.get(f"/director/hall/tiles?tournament={NWL}",
                         headers={"If-None-Match": f'"{version}"'})  # fmt: skip
    assert quiet.status_code == 304 and quiet.get_data() == b""
    hall.challenge(["ZA"], challenger=AT_TWO)
    fresh = director.get(f"/director/hall/tiles?tournament={NWL}",
                         headers={"If-None-Match": f'"{version}"'})  # fmt: skip
    assert fresh.status_code == 200 and fresh.headers["ETag"] != f'"{version}"'
    assert 'data-table="2" data-state="online" data-challenges="3"' in fresh.get_data(as_text=True)


def test_a_tile_opens_its_tables_challenges_this_round(hall):
    director = hall.director()
    page = director.get(f"/director/hall?tournament={NWL}").get_data(as_text=True)
    two = re.search(r'<a class="tile[^>]*href="([^"]+)"[^>]*data-table="2"', page).group(1)
    rows = director.get(html.unescape(two)).get_data(as_text=True)
    shown = re.findall(r'<tr class="[^"]*" id="row-(\d+)">', rows)
    at_two = [e.id for e in journal.entries(hall.db, NWL) if e.table == "2" and e.round == "3"]
    assert sorted(map(int, shown)) == sorted(at_two) and len(at_two) == 2


def test_the_map_is_the_directors(hall):
    assert hall.client().get("/director/hall").status_code == 302  # to the sign-in page
    assert hall.judge().get("/director/hall").status_code == 403
    assert hall.judge().get("/director/hall/tiles").status_code == 403
    unknown = hall.director().get("/director/hall?tournament=nope")
    assert unknown.status_code == 400 and "No tournament" in unknown.get_data(as_text=True)


def test_the_overview_links_to_the_map_instead_of_listing_every_kiosk(hall):
    page = hall.director().get("/director/").get_data(as_text=True)
    assert f'href="/director/hall?tournament={NWL}"' in page
    assert "by-the-door" not in page and "spare" not in page
    assert "1 of 4 online" in page
