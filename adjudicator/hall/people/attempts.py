"""Guesses counted per client address: wrong passwords and wrong pairing codes.

An attempt is counted BEFORE the password or code is checked, in one write transaction, so
parallel guesses cannot slip past the count: thirty at once count as thirty, and only the
ones the policy allows reach the check. A try made while the address must wait counts too,
so hammering only lengthens the wait. Nothing here is counted per account alone: guesses
from one address never lock out the right password typed at another. An IPv6 address counts
on its own, not per /64: on the hall's network every device shares one /64, and counting it
whole would let one guesser lock every IPv6 device out.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from adjudicator.errors import AdjudicatorError
from adjudicator.record.database.db import Database

ANY_NAME = ""  # the row counting an address's attempts whatever name they were for


@dataclass(frozen=True)
class Policy:
    """`free_attempts` cost nothing; then waits of 2, 4, 8... seconds; then a lock-out."""

    free_attempts: int = 3
    lockout_after: int = 10
    lockout_seconds: int = 900

    def delay_after(self, failures: int) -> int:
        """Seconds to wait after `failures` attempts in a row."""
        if failures >= self.lockout_after:
            return self.lockout_seconds
        if failures <= self.free_attempts:
            return 0
        return min(2 ** (failures - self.free_attempts), self.lockout_seconds)

    def for_any_name(self, names: int) -> Policy:
        """The policy for an address's attempts on any name: free until `names - 1` names
        could each have been locked out, and locked at `names` times the lock-out."""
        return Policy(
            self.lockout_after * (names - 1), self.lockout_after * names, self.lockout_seconds
        )


class TooManyAttempts(AdjudicatorError):
    """This address must wait until `retry_at` (from `now`) before its next attempt is checked."""

    def __init__(self, retry_at: datetime, locked: bool, now: datetime):
        super().__init__(f"Too many attempts: try again after {retry_at:%H:%M:%S} UTC.")
        self.retry_at = retry_at
        self.locked = locked
        self.now = now


@dataclass(frozen=True)
class Attempt:
    """An attempt counted and allowed: if it fails, `retry_at` is when the next may be made."""

    scope: str
    address: str
    name: str
    failures: int
    retry_at: datetime
    locked: bool
    now: datetime


def client_key(address: str | None) -> str:
    """The address attempts are counted under, written one way (an IPv4-mapped IPv6 address
    as the IPv4 address it is)."""
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return (address or "-")[:64]
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def reserve(
    db: Database,
    scope: str,
    address: str | None,
    name: str,
    policy: Policy,
    *,
    address_policy: Policy | None = None,
    now: datetime | None = None,
) -> Attempt:
    """Count one attempt for `name` from `address`; TooManyAttempts if it must wait first.

    With `address_policy`, the address's attempts for any name are also counted under it.
    The time is read once the write lock is held, so attempts are timed in the order counted.
    """
    key = client_key(address)
    counted = [(name, policy)]
    if address_policy is not None and name != ANY_NAME:
        counted.append((ANY_NAME, address_policy))
    outcomes = []
    with db.transaction(chain_lock=True) as cur:
        now = now or datetime.now(UTC)
        _forget_stale(cur, scope, now, max(p.lockout_seconds for _, p in counted))
        for subject, subject_policy in counted:
            outcomes.append(_count(cur, scope, key, subject, subject_policy, now))
    waited = [retry_at for waiting, _, retry_at, _ in outcomes if waiting]
    retry_at = max(retry_at for _, _, retry_at, _ in outcomes)
    locked = any(is_locked for _, _, _, is_locked in outcomes)
    if waited:
        raise TooManyAttempts(retry_at, locked, now)
    return Attempt(scope, key, name, outcomes[0][1], retry_at, locked, now)


def forgive(db: Database, attempt: Attempt) -> None:
    """The attempt succeeded: its name's count starts again, and the address's loses it."""
    with db.transaction(chain_lock=True) as cur:
        cur.execute(
            "DELETE FROM attempts WHERE scope = ? AND address = ? AND name = ?",
            (attempt.scope, attempt.address, attempt.name),
        )
        if attempt.name != ANY_NAME:
            cur.execute(
                "UPDATE attempts SET failures = failures - 1 "
                "WHERE scope = ? AND address = ? AND name = ? AND failures > 0",
                (attempt.scope, attempt.address, ANY_NAME),
            )


def uncount(db: Database, attempt: Attempt) -> None:
    """The attempt was refused before anything was checked (the checks were busy): it costs
    nothing, so a flood cannot use busy refusals to lock the right password out."""
    with db.transaction(chain_lock=True) as cur:
        for name in {attempt.name, ANY_NAME}:
            cur.execute(
                "UPDATE attempts SET failures = failures - 1 "
                "WHERE scope = ? AND address = ? AND name = ? AND failures > 0",
                (attempt.scope, attempt.address, name),
            )


def clear(db: Database, scope: str, *, name: str | None = None) -> int:
    """Forget the counts for `name` at every address (every count of `scope` if None)."""
    with db.transaction(chain_lock=True) as cur:
        if name is None:
            cur.execute("DELETE FROM attempts WHERE scope = ?", (scope,))
        else:
            cur.execute("DELETE FROM attempts WHERE scope = ? AND name = ?", (scope, name))
        return cur.rowcount


def _count(cur, scope: str, key: str, name: str, policy: Policy, now: datetime):
    """Add one attempt to a row: (was waiting, failures, retry_at, locked)."""
    row = cur.execute(
        "SELECT failures, last_failure_at, retry_at FROM attempts "
        "WHERE scope = ? AND address = ? AND name = ?",
        (scope, key, name),
    ).one()
    failures, retry_at = 0, now
    if row is not None:
        previous_retry = datetime.fromisoformat(row["retry_at"])
        last_failure = datetime.fromisoformat(row["last_failure_at"])
        if last_failure > now:  # counted under a clock set back since: as if it failed now,
            previous_retry, last_failure = now + (previous_retry - last_failure), now  # its wait
        quiet = now - last_failure  # kept, never lengthened by the hour the clock was ahead
        if previous_retry > now or quiet <= timedelta(seconds=policy.lockout_seconds):
            failures, retry_at = int(row["failures"]), previous_retry
    waiting = retry_at > now
    failures += 1
    retry_at = max(retry_at, now + timedelta(seconds=policy.delay_after(failures)))
    values = (failures, _iso(now), _iso(retry_at), scope, key, name)
    if row is None:
        cur.execute(
            "INSERT INTO attempts (failures, last_failure_at, retry_at, scope, address, name) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            values,
        )
    else:
        cur.execute(
            "UPDATE attempts SET failures = ?, last_failure_at = ?, retry_at = ? "
            "WHERE scope = ? AND address = ? AND name = ?",
            values,
        )
    return waiting, failures, retry_at, failures >= policy.lockout_after


def _forget_stale(cur, scope: str, now: datetime, window_seconds: int) -> None:
    """Drop rows whose wait is over and whose last attempt is older than the window."""
    cutoff = _iso(now - timedelta(seconds=window_seconds))
    cur.execute(
        "DELETE FROM attempts WHERE scope = ? AND last_failure_at < ? AND retry_at < ?",
        (scope, cutoff, _iso(now)),
    )


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds")
