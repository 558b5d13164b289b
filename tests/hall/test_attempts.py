"""Sign-in attempts counted per address (adjudicator.hall.people.attempts,
staff.authenticate), with the clock in the test's hands: growing waits, the lock-out, what a
right password from elsewhere does, IPv6 counted per /64, and what setting a password clears."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from adjudicator.hall.people import attempts, staff
from adjudicator.hall.people.staff import LoginPolicy, LoginRefused

from support.director import DIRECTOR_PASSWORD

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff

POLICY = LoginPolicy(free_attempts=3, lockout_after=6, lockout_seconds=900)
START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
GUESSER, DESK = "10.0.0.1", "10.0.0.2"


def attempt(staffed, name, password, address, now, policy=POLICY) -> LoginRefused | staff.Staff:
    """One sign-in: the account, or the refusal."""
    try:
        return staff.authenticate(staffed.db, name, password, address, policy=policy, now=now)
    except LoginRefused as refused:
        return refused


def test_waits_grow_then_the_address_is_locked_but_not_the_right_password_elsewhere(staffed):
    now, waits = START, []
    for _ in range(6):  # each try made exactly when the last refusal said it could be
        refused = attempt(staffed, "director", "wrong", GUESSER, now)
        assert isinstance(refused, LoginRefused) and "Wrong name or password." in str(refused)
        waits.append(refused.retry_after(now))
        now += timedelta(seconds=waits[-1]) if waits[-1] < 900 else timedelta(0)
    assert waits == [0, 0, 0, 2, 4, 900]
    assert refused.locked and "12:15 UTC" in str(refused) and "from another device" in str(refused)
    # locked: the right password from the guessing address is refused unchecked...
    again = attempt(staffed, "director", DIRECTOR_PASSWORD, GUESSER, now)
    assert isinstance(again, LoginRefused) and again.locked
    assert "Wrong name" not in str(again)
    # ...but from another address the director signs in at once
    assert attempt(staffed, "director", DIRECTOR_PASSWORD, DESK, now).is_director
    # and once the lock-out is over, from the guessing address too
    later = now + timedelta(seconds=901)
    assert attempt(staffed, "director", DIRECTOR_PASSWORD, GUESSER, later).is_director


def test_a_try_made_while_waiting_is_counted_unchecked_and_lengthens_the_wait(staffed):
    for _ in range(4):
        attempt(staffed, "director", "wrong", GUESSER, START)
    too_soon = attempt(staffed, "director", DIRECTOR_PASSWORD, GUESSER, START)
    assert isinstance(too_soon, LoginRefused)
    assert "Too many wrong passwords. Wait 4 seconds" in str(too_soon)  # was 2, now 4
    ok = attempt(staffed, "director", DIRECTOR_PASSWORD, GUESSER, START + timedelta(seconds=4))
    assert isinstance(ok, staff.Staff)


def test_a_right_password_starts_its_names_count_again(staffed):
    for _ in range(3):
        attempt(staffed, "director", "wrong", GUESSER, START)
    assert isinstance(attempt(staffed, "director", DIRECTOR_PASSWORD, GUESSER, START), staff.Staff)
    for _ in range(3):  # three more free ones
        refused = attempt(staffed, "director", "wrong", GUESSER, START)
        assert refused.retry_after(START) == 0


def test_guesses_at_one_name_leave_other_names_at_that_address_alone(staffed):
    for _ in range(6):
        attempt(staffed, "director", "wrong", GUESSER, START)
    assert attempt(staffed, "director", DIRECTOR_PASSWORD, GUESSER, START).locked
    assert attempt(staffed, "alice", "alice-secret-12", GUESSER, START).name == "alice"


def test_an_address_trying_many_names_is_slowed_then_locked(staffed):
    # for any name: free until 2 names could be locked (12), locked at 3 x 6 = 18
    for n in range(12):
        refused = attempt(staffed, f"nobody{n}", "x", GUESSER, START)
        assert refused.retry_after(START) == 0
    waited = attempt(staffed, "nobody-else", "x", GUESSER, START)
    assert waited.retry_after(START) == 2
    for n in range(4):  # too soon: counted, never checked (attempts 14 to 17)
        assert "Too many" in str(attempt(staffed, f"more{n}", "x", GUESSER, START))
    locked = attempt(staffed, "alice", "alice-secret-12", GUESSER, START)  # the 18th
    assert isinstance(locked, LoginRefused) and locked.locked
    assert attempt(staffed, "alice", "alice-secret-12", DESK, START).name == "alice"


def test_failures_are_forgotten_after_a_quiet_lockout_period(staffed):
    for _ in range(3):
        attempt(staffed, "director", "wrong", GUESSER, START)
    quiet = START + timedelta(seconds=901)
    assert attempt(staffed, "director", "wrong", GUESSER, quiet).retry_after(quiet) == 0
    with staffed.db.transaction() as cur:
        rows = cur.execute("SELECT name, failures FROM attempts").all()
    assert {row["name"]: row["failures"] for row in rows} == {"director": 1, "": 1}


def test_ipv6_addresses_count_one_by_one_as_on_the_halls_network(staffed):
    # every device on the hall's network shares one /64: a guesser must not lock it all out
    for _ in range(6):
        attempt(staffed, "director", "wrong", "2001:db8:1:2::1", START)
    locked = attempt(staffed, "director", DIRECTOR_PASSWORD, "2001:db8:1:2:0:0:0:1", START)
    assert isinstance(locked, LoginRefused) and locked.locked  # the same address, written long
    assert attempt(staffed, "director", DIRECTOR_PASSWORD, "2001:db8:1:2::9", START).is_director


@pytest.mark.parametrize(
    "address, key",
    [
        ("10.0.0.1", "10.0.0.1"),
        ("::ffff:10.0.0.1", "10.0.0.1"),
        ("2001:db8::1", "2001:db8::1"),
        ("2001:DB8:0:0::0001", "2001:db8::1"),
        ("", "-"),
        (None, "-"),
        ("not an address" * 10, ("not an address" * 10)[:64]),
    ],
)
def test_client_key(address, key):
    assert attempts.client_key(address) == key


def test_setting_the_directors_password_clears_every_lock(staffed):
    for address in (GUESSER, DESK):
        for _ in range(6):
            attempt(staffed, "director", "wrong", address, START)
    staff.set_director_password(staffed.db, "a-brand-new-pw")
    assert attempt(staffed, "director", "a-brand-new-pw", GUESSER, START).is_director


def test_setting_a_judges_password_clears_that_judges_locks_only(staffed):
    for name in ("alice", "director"):
        for _ in range(6):
            attempt(staffed, name, "wrong", GUESSER, START)
    staff.set_password(staffed.db, "alice", "alice-secret-99")
    assert attempt(staffed, "alice", "alice-secret-99", GUESSER, START).name == "alice"
    assert attempt(staffed, "director", DIRECTOR_PASSWORD, GUESSER, START).locked


def test_thirty_attempts_at_once_are_counted_once_each_on_either_backend(migrated_db):
    policy = attempts.Policy(free_attempts=9, lockout_after=10, lockout_seconds=900)
    start, outcomes = threading.Barrier(30), []

    def one() -> None:
        start.wait()
        try:
            attempts.reserve(migrated_db, "login", GUESSER, "director", policy)
        except attempts.TooManyAttempts:
            outcomes.append("refused")
        else:
            outcomes.append("allowed")

    threads = [threading.Thread(target=one) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert Counter(outcomes) == {"allowed": 10, "refused": 20}
    with migrated_db.transaction() as cur:
        row = cur.execute("SELECT failures FROM attempts WHERE name = 'director'").one()
    assert row["failures"] == 30


def test_a_clock_set_back_neither_locks_the_director_out_nor_forgives_a_guesser(staffed):
    """Failures counted while the laptop's clock ran an hour ahead: once it is set right, a wait
    lasts what the policy gave it, not an hour more, and the count still stands."""
    attempt(staffed, "director", "wrong", DESK, START)  # a slip at the desk: no wait
    for _ in range(4):  # a guesser: its 4th failure gave a 2 s wait
        attempt(staffed, "director", "wrong", GUESSER, START + timedelta(seconds=30))
    set_back = START - timedelta(hours=1)
    assert attempt(staffed, "director", DIRECTOR_PASSWORD, DESK, set_back).is_director
    refused = attempt(staffed, "director", DIRECTOR_PASSWORD, GUESSER, set_back)
    assert isinstance(refused, LoginRefused) and not refused.locked
    assert refused.retry_after(set_back) == 4  # counted on: the 5th, made while waiting
    later = set_back + timedelta(seconds=4)
    assert attempt(staffed, "director", DIRECTOR_PASSWORD, GUESSER, later).is_director
