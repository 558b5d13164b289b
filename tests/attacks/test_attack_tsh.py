"""Attacks on the TSH link: a kiosk forging its game, a hostile or broken source behind a link,
and TSH rewriting its file while challenges are recorded. Nothing is recorded that TSH did not
pair, a bad read never replaces good pairings, and nothing answers 500."""

from __future__ import annotations

import threading

import pytest

from adjudicator.hall import kiosks
from adjudicator.hall.tsh import follow, games, links
from adjudicator.record.journal import journal

from support import tsh_files
from support.hall import NWL


@pytest.fixture
def linked(setup, tmp_path):
    made = tsh_files.make_event({"A": 8}, 4, 2)
    path = tsh_files.write_tourney_js(tmp_path / "html" / "tourney.js", made)
    links.link(setup.hall.db, NWL, str(path))
    return setup, made, path, kiosks.add(setup.hall.db, "board-2", NWL, table=2)


def post(client, enrolment, **body):
    return client.post(
        "/api/v1/adjudications",
        json={"words": ["QI"], **body},
        headers={"Authorization": f"Bearer {enrolment.token}"},
    )


@pytest.mark.parametrize(
    "forged",
    [
        {"division": "B", "challenger": "1"},
        {"players": ["Me, Myself", "You, Yourself"], "challenger": "1"},
        {"challenger": {"id": 1}},
        {"challenger": ["1"]},
        {"challenger": "Lee\u202e, Ann"},
    ],
)
def test_a_kiosk_cannot_forge_its_game(linked, client, forged):
    setup, _, _, seated = linked
    answer = post(client, seated, **forged)
    assert answer.status_code == 400, answer.get_json()
    assert "verdict" not in answer.get_json()
    assert journal.newest_id(setup.hall.db) == 0
    assert games.current_game(setup.hall.db, NWL, "2") is not None


def test_a_round_tsh_never_paired_is_recorded_as_typed_never_as_tshs_game(linked, client):
    setup, _, _, seated = linked
    answer = post(client, seated, round="3; DROP TABLE tsh_games", challenger="Anyone")
    assert answer.status_code == 201
    row = answer.get_json()
    assert (row["round"], row["division"], row["players"]) == (
        "3; DROP TABLE tsh_games",
        None,
        None,
    )
    assert games.current_game(setup.hall.db, NWL, "2") is not None


def test_a_challenger_from_another_table_is_refused(linked, client):
    setup, made, _, seated = linked
    elsewhere = tsh_files.seated(made, "A", 3, 1)[0]
    answer = post(client, seated, challenger=elsewhere)
    assert answer.status_code == 400
    assert f"{elsewhere} is not playing at table 2 in round 3" in answer.get_json()["error"]


HOSTILE = [
    b"newt=" + b"[" * 100_000 + b";",
    b'newt={"divisions":[{"name":"A","players":{"1":{}}}]};',
    b'newt={"divisions":[{"name":"A","players":[undefined,{"id":1,"name":"Lee, A",'
    b'"pairings":[99],"etc":{"board":[-3]}}]}]};',
    b'newt={"divisions":[{"name":"A","players":[undefined,{"id":1,"name":"Lee, A",'
    b'"pairings":[1e999]}]}]};',
    b'newt={"divisions":[{"name":"A\\u0000","players":[undefined]}]};',
    b'newt={"config":{"tables":{"A":["\\u202e1"]}},"divisions":[{"name":"A","players":'
    b'[undefined,{"id":1,"name":"Lee, A","pairings":[2],"etc":{"board":[1]}},'
    b'{"id":2,"name":"Xu, B","pairings":[1],"etc":{"board":[1]}}]}]};',
    b"\x00" * 4096,
]


@pytest.mark.parametrize("hostile", HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_file_behind_a_link_keeps_the_good_pairings(linked, hostile):
    setup, _, path, _ = linked
    db = setup.hall.db
    before = games.show(db, NWL)
    path.write_bytes(hostile)
    done = follow.Follower(db, 1, 30).run_once()
    assert done in ({NWL: "failed"}, {NWL: "updated"})
    if done[NWL] == "failed":
        assert games.show(db, NWL) == before
        assert links.get(db, NWL).failure
    else:  # read as TSH's: what was stored is only what TSH could have paired
        for game in games.show(db, NWL):
            assert all(seat.name.isprintable() for seat in game.seats)


def test_tsh_rewriting_while_challenges_are_recorded_never_mixes_two_pairings(linked, client):
    setup, made, path, seated = linked
    db = setup.hall.db
    other = tsh_files.make_event(
        {"A": 8}, 4, 2, names={"A": [f"Other, Player{n}" for n in range(1, 9)]}
    )
    versions = {
        tuple(tsh_files.seated(made, "A", 3, 2)),
        tuple(name.split(":")[0] for name in tsh_files.seated(other, "A", 3, 2)),
    }
    stop = threading.Event()

    def tsh_writes():
        flip = 0
        while not stop.is_set():
            tsh_files.write_tourney_js(path, (made, other)[flip])
            flip = 1 - flip

    def follows():
        follower = follow.Follower(db, 0, 0)
        while not stop.is_set():
            follower.run_once()

    threads = [threading.Thread(target=tsh_writes), threading.Thread(target=follows)]
    for thread in threads:
        thread.start()
    try:
        recorded = []
        for _ in range(40):
            game = client.get(
                "/api/v1/table", headers={"Authorization": f"Bearer {seated.token}"}
            ).get_json()
            answer = post(
                client, seated, round=str(game["round"]), challenger=str(game["players"][0]["id"])
            )
            assert answer.status_code in (201, 400), answer.get_json()
            if answer.status_code == 201:
                recorded.append(answer.get_json())
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert recorded
    for row in recorded:
        assert tuple(row["players"]) in versions
        assert row["challenger"] in row["players"]
    assert journal.verify(db).ok
