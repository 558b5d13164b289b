"""A kiosk knows its game, and a challenge names it (issue 29): GET /api/v1/table, challenges by
TSH number or name recorded with the game's division and players, a challenger not seated
refused naming who is, the counting rules and NASPA 6.2 by these games, the director's overview,
journal page (names, filter by player) and CSV."""

from __future__ import annotations

import csv
import io
import json

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.tsh import follow, links, tourney_js
from adjudicator.record.journal import journal

from support import tsh_files
from support.director import build_staffed
from support.hall import CSW, NWL


@pytest.fixture
def linked(setup, tmp_path):
    """NWL linked to an event of 8 players, 4 rounds paired and 2 scored; a kiosk at table 2."""
    made = tsh_files.make_event({"A": 8}, 4, 2)
    path = tsh_files.write_tourney_js(tmp_path / "event" / "html" / "tourney.js", made)
    links.link(setup.hall.db, NWL, str(path))
    seated = kiosks.add(setup.hall.db, "board-2", NWL, table=2)
    return setup, made, path, seated


def bearer(enrolment):
    return {"Authorization": f"Bearer {enrolment.token}"}


def test_the_kiosk_gets_its_game_this_round(linked, client):
    setup, made, _, seated = linked
    answer = client.get("/api/v1/table", headers=bearer(seated))
    assert answer.status_code == 200
    body = answer.get_json()
    first, second = tsh_files.seated(made, "A", 3, 2)
    assert body == {
        "round": 3,
        "table": "2",
        "division": "A",
        "players": [
            {"id": body["players"][0]["id"], "name": first, "first": True},
            {"id": body["players"][1]["id"], "name": second, "first": False},
        ],
    }


def test_no_game_is_404_and_says_why(linked, client):
    setup, _, _, seated = linked
    unseated = setup.nwl  # a kiosk of no table
    answer = client.get("/api/v1/table", headers=bearer(unseated))
    assert answer.status_code == 404 and "no table" in answer.get_json()["error"]
    far = kiosks.add(setup.hall.db, "board-9", NWL, table=9)
    body = client.get("/api/v1/table", headers=bearer(far)).get_json()
    assert body["status"] == 404 and body["linked"] is True
    assert body["error"] == "No game at table 9 this round."
    csw = kiosks.add(setup.hall.db, "csw-1", CSW, table=1)
    body = client.get("/api/v1/table", headers=bearer(csw)).get_json()
    assert body["linked"] is False and "not linked" in body["error"]
    assert client.get("/api/v1/table").status_code == 401


def test_the_404_is_said_in_the_kiosks_language(linked, client):
    setup, _, _, _ = linked
    far = kiosks.add(setup.hall.db, "board-8", NWL, table=8)
    body = client.get("/api/v1/table", headers={**bearer(far), "Accept-Language": "pl"}).get_json()
    assert body["error"] == "No game at table 8 this round."
    assert body["shown_error"] != body["error"] and "8" in body["shown_error"]


def adjudicate(client, enrolment, **body):
    return client.post(
        "/api/v1/adjudications", json={"words": ["QI"], **body}, headers=bearer(enrolment)
    )


def test_a_challenge_by_number_or_name_is_recorded_with_its_game(linked, client):
    setup, made, _, seated = linked
    first, second = tsh_files.seated(made, "A", 3, 2)
    game = client.get("/api/v1/table", headers=bearer(seated)).get_json()
    by_number = adjudicate(client, seated, challenger=str(game["players"][1]["id"]))
    assert by_number.status_code == 201, by_number.get_json()
    row = by_number.get_json()
    assert (row["round"], row["table"], row["challenger"]) == ("3", "2", second)
    assert (row["division"], row["players"]) == ("A", [first, second])
    last, given = first.split(", ")
    by_name = adjudicate(client, seated, challenger=f"{given.upper()}  {last.lower()}")
    assert by_name.get_json()["challenger"] == first
    then = tsh_files.seated(made, "A", 1, 2)  # a round named: that round's game at the table
    earlier = adjudicate(client, seated, round="01", challenger=then[1])
    assert earlier.status_code == 201
    assert (earlier.get_json()["round"], earlier.get_json()["players"]) == ("1", then)
    if first not in then:
        assert adjudicate(client, seated, round="1", challenger=first).status_code == 400
    assert journal.verify(setup.hall.db).ok


def test_a_challenger_not_seated_there_is_refused_naming_who_is(linked, client):
    setup, made, _, seated = linked
    first, second = tsh_files.seated(made, "A", 3, 2)
    answer = adjudicate(client, seated, challenger="Nobody, Here")
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert "Nobody, Here is not playing at table 2 in round 3" in error
    assert first in error and second in error
    assert "verdict" not in answer.get_json()
    assert journal.newest_id(setup.hall.db) == 0  # nothing judged


def test_a_table_with_no_game_judges_as_typed(linked, client):
    setup, _, _, _ = linked
    far = kiosks.add(setup.hall.db, "board-7", NWL, table=7)
    answer = adjudicate(client, far, round="3", challenger="Ann")
    assert answer.status_code == 201
    row = answer.get_json()
    assert (row["table"], row["round"], row["challenger"], row["players"]) == (
        "7",
        "3",
        "Ann",
        None,
    )


def test_the_counting_rules_count_by_tshs_game_and_player(linked, client, tmp_path):
    setup, made, path, _ = linked
    hall = setup.hall
    tournaments.create(hall.db, setup.store, "dingle-open", "TINY-NWL", "dingle")
    links.link(hall.db, "dingle-open", str(path))
    seated = kiosks.add(hall.db, "dingle-2", "dingle-open", table=2)
    first, second = tsh_files.seated(made, "A", 3, 2)
    number = client.get("/api/v1/table", headers=bearer(seated)).get_json()["players"][0]["id"]
    one = adjudicate(client, seated, challenger=str(number))  # QI stands: unsuccessful
    two = adjudicate(client, seated, challenger=first.upper())  # the same player, by name
    other = adjudicate(client, seated, challenger=second)
    assert one.get_json()["penalty"]["challenger_loses_turn"] is False  # dingle's first: free
    assert two.get_json()["penalty"]["challenger_loses_turn"] is True
    assert other.get_json()["penalty"]["challenger_loses_turn"] is False
    # the next round at the table is another game: the count starts again
    tsh_files.score_round(made, "A", 3)
    tsh_files.write_tourney_js(path, made)
    follow.Follower(hall.db, 1, 30).run_once()
    next_round = client.get("/api/v1/table", headers=bearer(seated)).get_json()
    assert next_round["round"] == 4
    again = adjudicate(client, seated, challenger=str(next_round["players"][0]["id"]))
    assert again.get_json()["penalty"]["challenger_loses_turn"] is False


def test_naspa_6_2_flags_a_second_look_up_by_the_same_player_not_the_opponents(linked, client):
    setup, made, path, _ = linked
    hall = setup.hall
    tournaments.create(
        hall.db,
        setup.store,
        "naspa-open",
        "TINY-NWL",
        "double",
        rulebook="naspa",
        off_rulebook="a tiny list for the test",
    )
    links.link(hall.db, "naspa-open", str(path))
    seated = kiosks.add(hall.db, "naspa-2", "naspa-open", table=2)
    first, second = tsh_files.seated(made, "A", 3, 2)
    adjudicate(client, seated, challenger=first)
    by_same = adjudicate(client, seated, challenger=first)  # one play looked up in parts?
    by_other = adjudicate(client, seated, challenger=second)  # the opponent's next play
    flagged = {e.id: e.flag for e in journal.select(hall.db, "tournament = ?", ("naspa-open",))}
    assert flagged[by_same.get_json()["id"]] == "separate-lookup"
    assert flagged[by_other.get_json()["id"]] is None


@pytest.fixture
def staffed_linked(tmp_path, fast_hashes):
    staffed = build_staffed(tmp_path)
    made = tsh_files.make_event({"A": 8}, 4, 2)
    path = tsh_files.write_tourney_js(tmp_path / "event" / "html" / "tourney.js", made)
    links.link(staffed.db, NWL, str(path))
    seated = kiosks.add(staffed.db, "board-2", NWL, table=2)
    return staffed, made, path, seated


def test_the_journal_page_shows_the_names_and_filters_by_player(staffed_linked):
    staffed, made, _, seated = staffed_linked
    kiosk_client = staffed.app.test_client()
    first, second = tsh_files.seated(made, "A", 3, 2)
    adjudicate(kiosk_client, seated, challenger=first)
    elsewhere = kiosks.add(staffed.db, "board-1", NWL, table=1)
    adjudicate(kiosk_client, elsewhere, challenger=tsh_files.seated(made, "A", 3, 1)[0])
    director = staffed.director()
    page = director.get("/director/journal").get_data(as_text=True)
    assert f"{first} v {second}" in page and "division A" in page
    assert f'<option value="{first}">' in page  # the filter offers TSH's names
    mine = director.get("/director/journal", query_string={"player": second.upper()})
    rows = mine.get_data(as_text=True).split('id="journal"')[1]
    assert f"{first} v {second}" in rows and tsh_files.seated(made, "A", 3, 1)[0] not in rows
    nobody = director.get("/director/journal", query_string={"player": "Nobody, At All"})
    assert "No row matches the filters" in nobody.get_data(as_text=True)
    polish = director.get("/director/journal", headers={"Accept-Language": "pl"})
    assert f"{first} – {second}" in polish.get_data(as_text=True)  # the game, in Polish
    exported = director.get("/director/journal.csv", query_string={"player": second})
    records = list(csv.DictReader(io.StringIO(exported.get_data(as_text=True))))
    assert len(records) == 1
    assert records[0]["challenger"] == first and records[0]["division"] == "A"
    assert json.loads(records[0]["players"]) == [first, second]


def test_the_overview_says_what_failed_and_since_when(staffed_linked):
    staffed, made, path, _ = staffed_linked
    director = staffed.director()
    page = director.get("/director/").get_data(as_text=True)
    assert "TSH pairings" in page and "Spring Open" in page and "tsh-failure" not in page
    path.write_bytes(b"newt={")
    follow.Follower(staffed.db, 1, 30).run_once()
    page = director.get("/director/overview").get_data(as_text=True)
    assert "Reading it again has failed since" in page and "ends early" in page
    assert "The kiosks keep the pairings read at" in page


def test_the_overview_shows_a_failure_nobody_foresaw(staffed_linked, monkeypatch):
    staffed, made, path, _ = staffed_linked
    director = staffed.director()

    def unforeseen(data, where):
        raise KeyError("a case no check foresaw")

    monkeypatch.setattr(tourney_js, "read", unforeseen)
    path.write_bytes(path.read_bytes() + b"\n")
    follow.Follower(staffed.db, 1, 30).run_once()
    page = director.get("/director/overview").get_data(as_text=True)
    assert "Reading it again has failed since" in page and "unexpected error" in page
    assert "KeyError" not in page  # the details are for the server's log


def test_the_journal_filter_finds_a_game_whose_first_player_tsh_settled_later(
    staffed_linked, tmp_path
):
    """A row keeps the seats of its challenge; TSH may record who went first afterwards, and
    the stored game then holds the two the other way round: the row is still the player's."""
    staffed, made, path, seated = staffed_linked
    lower, higher = sorted(
        (p for p in made["divisions"][0]["players"][1:] if p["etc"]["board"][2] == 2),
        key=lambda p: p["id"],
    )
    lower["etc"]["p12"][2] = higher["etc"]["p12"][2] = 4  # TSH: not yet known
    links.link(staffed.db, NWL, str(tsh_files.write_tourney_js(path, made)))
    answer = adjudicate(staffed.app.test_client(), seated, challenger=lower["name"])
    assert answer.get_json()["players"] == [lower["name"], higher["name"]]
    lower["etc"]["p12"][2], higher["etc"]["p12"][2] = 2, 1  # the higher number went first
    links.link(staffed.db, NWL, str(tsh_files.write_tourney_js(path, made)))
    director = staffed.director()
    for name in (lower["name"], higher["name"]):
        page = director.get("/director/journal", query_string={"player": name})
        rows = page.get_data(as_text=True).split('id="journal"')[1]
        assert f"{lower['name']} v {higher['name']}" in rows, name
