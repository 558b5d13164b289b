"""Kiosk names, tournament slugs and word judges' names: each refused with what to type
instead, through the one check (textcheck.check_name) they share."""

from __future__ import annotations

import pytest

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.hall.kiosks import KioskError
from adjudicator.hall.people import staff
from adjudicator.hall.people.staff import StaffError
from adjudicator.hall.tournaments import TournamentError
from adjudicator.record.database.sqlite import SqliteDatabase


@pytest.fixture
def db(tmp_path, store, tiny):
    database = SqliteDatabase(str(tmp_path / "journal.sqlite3"))
    Hall(store, database, rate_limit=None, key_path=tmp_path / "key.pem").upgrade()
    tournaments.create(database, store, "open", "TINY", "double", "Open")
    return database


def test_a_kiosk_name_of_another_shape_is_refused_with_the_shape_to_use(db):
    with pytest.raises(KioskError) as refused:
        kiosks.add(db, "table/1", "open")
    assert str(refused.value) == (
        "Invalid kiosk name 'table/1': use up to 40 letters, digits, spaces, '.', '-' or '_'."
    )
    with pytest.raises(KioskError, match=r"^Invalid kiosk name: The kiosk name holds an invisible"):
        kiosks.add(db, "table\u200b1", "open")
    assert kiosks.add(db, "Table 1.b", "open").kiosk.name == "Table 1.b"


def test_a_tournament_slug_of_another_shape_is_refused_with_an_example():
    with pytest.raises(TournamentError) as refused:
        tournaments.check_slug("Spring Open")
    assert str(refused.value) == (
        "Invalid tournament slug 'Spring Open': use lower-case letters, digits and dashes, "
        "such as spring-open-nwl."
    )
    with pytest.raises(TournamentError, match=r"^Invalid tournament slug: .* at most 63"):
        tournaments.check_slug("a" * 64)
    assert tournaments.check_slug("spring-open-nwl") == "spring-open-nwl"


@pytest.mark.parametrize("name", ["director", "Alice", "-alice", "a" * 33])
def test_a_word_judge_may_not_be_called_director_or_take_another_shape(name):
    with pytest.raises(StaffError, match=r"^Invalid word judge name") as refused:
        staff.check_judge_name(name)
    assert isinstance(refused.value, AdjudicatorError)
    if len(name) <= 32:
        assert "(and not 'director')" in str(refused.value)


@pytest.mark.parametrize("name", ["alice", "directors", "the-director", "a" * 32])
def test_a_word_judge_name_of_the_right_shape_is_kept(name):
    assert staff.check_judge_name(name) == name
