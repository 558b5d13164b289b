"""A void, a second opinion and a final ruling each carry their challenge's tournament,
lexicon edition and game unchanged, and the station that recorded them (follow_up.py)."""

from __future__ import annotations

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.judging.corrections import second_opinion, voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.record.database.sqlite import SqliteDatabase

GAME = {"table": "7", "round": "3", "challenger": "Ann", "player": "Bob"}
COPIED = (
    "tournament",
    "lexicon_name",
    "lexicon_fingerprint",
    "lexicon_words",
    "table",
    "round",
    "challenger",
    "player",
)


@pytest.fixture
def hall(tmp_path, store, tiny):
    db = SqliteDatabase(str(tmp_path / "journal.sqlite3"))
    hall = Hall(store, db, rate_limit=None, key_path=tmp_path / "receipt_key.pem")
    hall.upgrade()
    tournaments.create(db, store, "open", "TINY", "double", "Open")
    kiosks.add(db, "table-7", "open")
    return hall


def challenge(hall: Hall):
    return hall.adjudicate(kiosks.get(hall.db, "table-7"), ["QI", "ZA"], **GAME)


def follow_ups(hall: Hall):
    """One of each kind of follow-up row, each on its own challenge."""
    voided = challenge(hall)
    void = voids.void(
        hall.db, voided.id, "entered by mistake", actor="director", station="director"
    )
    opined = challenge(hall)
    opinion = second_opinion.give(
        hall.db, hall.store, opined.id, "QI ZA", actor="alice", station="judge:alice"
    ).entry
    ruled = challenge(hall)
    ruling = record_ruling(
        hall.db, ruled.id, "ACCEPTABLE", "both words are good", actor="director", station="desk"
    )
    return [(voided, void, "director"), (opined, opinion, "judge:alice"), (ruled, ruling, "desk")]


def test_each_follow_up_row_copies_its_challenge_and_names_its_station(hall):
    for original, row, station in follow_ups(hall):
        assert row.refers_to == original.id, row.kind
        assert row.kiosk == station, row.kind
        for name in COPIED:
            assert getattr(row, name) == getattr(original, name), (row.kind, name)
        assert (row.table, row.round, row.challenger, row.player) == ("7", "3", "Ann", "Bob")
