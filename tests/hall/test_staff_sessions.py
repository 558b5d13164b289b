"""Staff sessions on the server, on SQLite and PostgreSQL: the id is random, only its hash is
stored, and ending one, ending all of an account's, a new password or expiry each end it."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from argon2 import PasswordHasher

from adjudicator.hall.people import staff, staff_sessions


@pytest.fixture
def db(migrated_db, monkeypatch):
    monkeypatch.setattr(staff, "HASHER", PasswordHasher(time_cost=1, memory_cost=1024))
    staff.set_director_password(migrated_db, "director-pw-12")
    staff.add_judge(migrated_db, "alice", "alice-pw-1234")
    return migrated_db


def test_only_the_hash_of_a_random_id_is_stored(db):
    first, second = staff_sessions.start(db, "director"), staff_sessions.start(db, "director")
    assert first != second and len(first) >= 40
    with db.transaction() as cur:
        stored = {row["id_hash"] for row in cur.execute("SELECT id_hash FROM staff_sessions").all()}
    assert first not in stored and hashlib.sha256(first.encode()).hexdigest() in stored
    assert staff_sessions.member(db, first) == "director"
    assert staff_sessions.member(db, "forged") is None and staff_sessions.member(db, "") is None
    assert staff_sessions.member(db, "x" * 10_000) is None


def test_sign_out_ends_one_session_and_everywhere_ends_all(db):
    laptop, tablet = (staff_sessions.start(db, "director") for _ in range(2))
    judge = staff_sessions.start(db, "alice")
    staff_sessions.end(db, laptop)
    assert staff_sessions.member(db, laptop) is None
    assert staff_sessions.member(db, tablet) == "director"
    assert staff_sessions.end_all(db, "director") == 1
    assert staff_sessions.member(db, tablet) is None
    assert staff_sessions.member(db, judge) == "alice"


def test_a_new_password_ends_that_accounts_sessions(db):
    director, judge = staff_sessions.start(db, "director"), staff_sessions.start(db, "alice")
    staff.set_password(db, "alice", "alice-pw-5678")
    assert staff_sessions.member(db, judge) is None
    assert staff_sessions.member(db, director) == "director"
    staff.set_director_password(db, "director-pw-34")
    assert staff_sessions.member(db, director) is None


def test_an_expired_session_opens_nothing_and_is_cleared_at_the_next_sign_in(db):
    expired = staff_sessions.start(db, "director", lifetime=timedelta(seconds=-1))
    assert staff_sessions.member(db, expired) is None
    staff_sessions.start(db, "alice")
    with db.transaction() as cur:
        names = [row["name"] for row in cur.execute("SELECT name FROM staff_sessions").all()]
    assert names == ["alice"]
