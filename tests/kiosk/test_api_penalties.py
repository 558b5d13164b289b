"""The API's side of issue 11, items 7 and 8: the penalty as numbers in every 201, and the
game (round, table, challenger) required under the rules that count challenges."""

from __future__ import annotations

import pytest

from adjudicator.hall import tournaments
from adjudicator.record.journal import journal

from support.hall import NWL


def post(client, setup, body):
    return client.post("/api/v1/adjudications", json=body, headers=setup.headers())


@pytest.mark.parametrize(
    ("rule", "words", "penalty"),
    [
        ("5-per-word", ["QI", "ZA", "JO"], (True, 15, False)),
        ("7-per-turn", ["QI", "ZA", "JO"], (True, 7, False)),
        ("double", ["QI"], (True, 0, True)),
        ("single", ["QI"], (True, 0, False)),
        ("double", ["QI", "QX"], (False, 0, False)),
    ],
)
def test_the_201_carries_the_penalty_as_numbers(client, setup, rule, words, penalty):
    """Issue 11 item 8: scorekeeping software reads the penalty, not the sentence."""
    tournaments.update(setup.hall.db, setup.store, NWL, rule=rule)
    body = post(client, setup, {"words": words}).get_json()
    play_stands, points, loses_turn = penalty
    assert body["penalty"] == {
        "play_stands": play_stands,
        "points_to_player": points,
        "challenger_loses_turn": loses_turn,
        "points_to_challenger": 0,
    }
    assert ("keeps the turn" in body["consequence"]) is (play_stands and not loses_turn)
    stored = journal.get(setup.hall.db, body["id"])
    assert stored.penalty_numbers() == body["penalty"]


def test_the_kiosk_status_says_when_the_game_is_needed(client, setup):
    status = client.get("/api/v1/kiosk", headers=setup.headers()).get_json()
    assert status["rule"]["needs_game"] is False
    tournaments.update(setup.hall.db, setup.store, NWL, rule="escalating")
    status = client.get("/api/v1/kiosk", headers=setup.headers()).get_json()
    title = (
        "Escalating: 5, 5, 10, 20, 30, then 30 points for each unsuccessful challenge "
        "by a player in a game"
    )
    assert status["rule"] == {
        "name": "escalating",
        "title": title,
        "shown_title": title,  # in the tournament's language: English here
        "needs_game": True,
        "asks_final_play": False,  # only under the school-2011 rulebook (issue 20)
    }


@pytest.mark.parametrize(
    ("given", "missing"),
    [
        ({}, "round, table, challenger"),
        ({"round": "1", "table": "2"}, "challenger"),
        ({"round": "1", "challenger": "Ann"}, "table"),
        ({"table": "2", "challenger": "Ann", "round": "  "}, "round"),
    ],
)
def test_wespa_3_10_15_c_without_the_game_400_and_no_verdict(client, setup, given, missing):
    tournaments.update(setup.hall.db, setup.store, NWL, rule="dingle")
    response = post(client, setup, {"words": ["QI"], **given})
    body = response.get_json()
    assert response.status_code == 400 and body["ok"] is False
    assert f"give the {missing}" in body["error"] and "Nothing was judged" in body["error"]
    assert "verdict" not in body and "ACCEPTABLE" not in body["error"]
    assert list(journal.entries(setup.hall.db)) == []


@pytest.mark.parametrize("odd", ["²", "½", "٣", "Ⅻ", "0" * 40])
def test_odd_numbers_in_the_game_never_break_it(client, setup, odd):
    tournaments.update(setup.hall.db, setup.store, NWL, rule="dingle")
    response = post(client, setup, {"words": ["QI"], "round": odd, "table": odd, "challenger": odd})
    assert response.status_code == 201, response.get_json()
    replaced = post(client, setup, {"words": ["QI"], "replaces": "²", "round": "1"})
    assert replaced.status_code == 400 and "replaces must be" in replaced.get_json()["error"]


def test_with_the_game_the_count_goes_on(client, setup):
    tournaments.update(setup.hall.db, setup.store, NWL, rule="5-then-10")
    game = {"round": 1, "table": 2, "challenger": "Ann"}
    first = post(client, setup, {"words": ["QI"], **game}).get_json()
    second = post(client, setup, {"words": ["ZA"], **game}).get_json()
    assert [first["penalty"]["points_to_player"], second["penalty"]["points_to_player"]] == [5, 10]
    assert (second["round"], second["table"], second["challenger"]) == ("1", "2", "ANN")
