"""Staff accounts: the director and the word judges, their passwords, and login throttling.

Passwords are stored only as argon2id hashes (argon2-cffi), and those only sealed under a key
of the hall's (sealed_hashes.py): no copy of the journal's database gives a hash to guess
against. Sign-in attempts are counted per
client address (attempts.py), for the name tried and for any name: after a few, each retry
must wait twice as long as the last, and after more that address is locked out for a while.
Guesses from one address never lock the right password out at another. The person is always
told when they may try again. Passwords are checked at the lowest CPU priority
(password_check.py), so a flood of sign-ins cannot take the CPU from the kiosks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from adjudicator import settings
from adjudicator.errors import AdjudicatorError
from adjudicator.hall.people import attempts, password_check, sealed_hashes
from adjudicator.hall.people.attempts import Policy
from adjudicator.record.database.db import Database
from adjudicator.textcheck import check_name

DIRECTOR = "director"
ROLES = ("director", "judge")
MIN_PASSWORD = 10
MAX_PASSWORD = 1024
_JUDGE_NAME = re.compile(rf"(?!{DIRECTOR}\Z)[a-z0-9][a-z0-9._-]{{0,31}}")  # not the director

HASHER = PasswordHasher()
_dummy_hashes: dict[int, str] = {}


class StaffError(AdjudicatorError):
    """A staff account cannot be created or changed as asked."""


class LoginRefused(AdjudicatorError):
    """Wrong name or password, or too many of them: `retry_at` says when to try again."""

    def __init__(self, message: str, retry_at: datetime | None = None, locked: bool = False):
        super().__init__(message)
        self.retry_at = retry_at
        self.locked = locked

    def retry_after(self, now: datetime | None = None) -> int:
        """Seconds until the next attempt may be made (0 if at once)."""
        if self.retry_at is None:
            return 0
        return max(0, int((self.retry_at - (now or datetime.now(UTC))).total_seconds() + 0.999))


@dataclass(frozen=True)
class Staff:
    name: str
    role: str
    created_at: str
    password_changed_at: str

    @property
    def is_director(self) -> bool:
        return self.role == DIRECTOR


LoginPolicy = Policy  # per address and name; an address's attempts on any name: for_any_name
ADDRESS_FACTOR = 3
BUSY_SECONDS = 3  # how long a sign-in refused as busy is told to wait
SCOPE = "login"


def login_policy() -> Policy:
    """The policy the settings give: free attempts, lock-out threshold and length."""
    return Policy(
        settings.get_int("login_free_attempts", 0),
        settings.get_int("login_lockout_after", 1),
        settings.get_int("login_lockout_minutes", 1) * 60,
    )


def set_director_password(db: Database, password: str) -> Staff:
    """Create the director's account or change its password.

    Ends every staff session signed in as the director, and clears every sign-in lock-out
    (the director's at any address, and any address's): the director is never locked out.
    """
    member = _store_password(db, DIRECTOR, DIRECTOR, password, create_ok=True)
    attempts.clear(db, SCOPE)
    return member


def add_judge(db: Database, name: str, password: str) -> Staff:
    """Create a word judge's account."""
    check_judge_name(name)
    if get(db, name) is not None:
        raise StaffError(
            f"A staff account {name!r} already exists: use `judge-account set-password`."
        )
    return _store_password(db, name, "judge", password, create_ok=True)


def set_password(db: Database, name: str, password: str) -> Staff:
    """Change an existing account's password; sessions signed in with the old one end."""
    existing = get(db, name)
    if existing is None:
        raise StaffError(f"No staff account {name!r}: add it with `adjudicator judge-account add`.")
    return _store_password(db, name, existing.role, password, create_ok=False)


def check_judge_name(name: str) -> str:
    """A word judge's name: up to 32 lower-case letters, digits, '.', '-' or '_'."""
    return check_name(
        name,
        "word judge name",
        32,
        _JUDGE_NAME,
        "use up to 32 lower-case letters, digits, '.', '-' or '_' (and not 'director').",
        StaffError,
    )


def check_password(password: str, minimum: int = MIN_PASSWORD, what: str = "password") -> str:
    """A password (or the kit's passphrase, `what`) of `minimum` to MAX_PASSWORD characters."""
    if len(password) < minimum:
        raise StaffError(f"The {what} is too short: use at least {minimum} characters.")
    if len(password) > MAX_PASSWORD:
        raise StaffError(f"The {what} is too long: use at most {MAX_PASSWORD} characters.")
    return password


def get(db: Database, name: str) -> Staff | None:
    """The account `name`, if there is one."""
    with db.transaction() as cur:
        row = cur.execute(
            "SELECT name, role, created_at, password_changed_at FROM staff WHERE name = ?", (name,)
        ).one()
    return Staff(**row) if row else None


def list_all(db: Database) -> list[Staff]:
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT name, role, created_at, password_changed_at FROM staff ORDER BY name"
        ).all()
    return [Staff(**row) for row in rows]


def authenticate(
    db: Database,
    name: str,
    password: str,
    address: str,
    *,
    policy: Policy | None = None,
    now: datetime | None = None,
) -> Staff:
    """The account if `password` is right; otherwise LoginRefused saying when to retry.

    The attempt is counted before the password is checked; a right password uncounts it.
    """
    policy = policy or login_policy()
    name = (name or "").strip().lower()[:64]
    try:
        attempt = attempts.reserve(
            db,
            SCOPE,
            address,
            name,
            policy,
            address_policy=policy.for_any_name(ADDRESS_FACTOR),
            now=now,
        )
    except attempts.TooManyAttempts as waiting:
        if waiting.locked:
            raise LoginRefused(
                _locked_text(waiting.retry_at, waiting.now), waiting.retry_at, True
            ) from None
        text = f"Too many wrong passwords. {_wait_text(waiting.retry_at, waiting.now)}"
        raise LoginRefused(text, waiting.retry_at) from None
    with db.transaction() as cur:
        row = cur.execute("SELECT password_hash FROM staff WHERE name = ?", (name,)).one()
    opened = (
        sealed_hashes.unseal(sealed_hashes.key_of(db), name, row["password_hash"]) if row else None
    )
    password_hash = opened or _dummy_hash()
    try:
        right = _verify(password_hash, password, attempt.failures)
    except password_check.Busy:  # nothing was checked: the attempt costs nothing
        attempts.uncount(db, attempt)
        raise LoginRefused(
            f"Sign-in is busy (many attempts at once): try again in {BUSY_SECONDS} seconds.",
            datetime.now(UTC) + timedelta(seconds=BUSY_SECONDS),
        ) from None
    if right and opened is not None:
        attempts.forgive(db, attempt)
        staff = get(db, name)
        assert staff is not None
        return staff
    message = "Wrong name or password."
    if attempt.locked:
        raise LoginRefused(
            f"{message} {_locked_text(attempt.retry_at, attempt.now)}", attempt.retry_at, True
        )
    if attempt.retry_at > attempt.now:
        raise LoginRefused(
            f"{message} {_wait_text(attempt.retry_at, attempt.now)}", attempt.retry_at
        )
    raise LoginRefused(message)


def _dummy_hash() -> str:
    """A hash to verify against for unknown names, so they cost as long as a wrong password."""
    key = id(HASHER)
    if key not in _dummy_hashes:
        _dummy_hashes[key] = HASHER.hash("not a password anyone has")
    return _dummy_hashes[key]


def _verify(password_hash: str, password: str, priority: int = 0) -> bool:
    try:
        hasher = HASHER  # the one in use now (tests swap in cheaper parameters)
        return password_check.run(lambda: hasher.verify(password_hash, password or ""), priority)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def _store_password(db: Database, name: str, role: str, password: str, *, create_ok: bool) -> Staff:
    hashed = sealed_hashes.seal(
        sealed_hashes.key_of(db), name, HASHER.hash(check_password(password))
    )
    now = datetime.now(UTC).isoformat(timespec="microseconds")
    with db.transaction(chain_lock=True) as cur:
        exists = cur.execute("SELECT name FROM staff WHERE name = ?", (name,)).one()
        if exists:
            cur.execute(
                "UPDATE staff SET password_hash = ?, password_changed_at = ? WHERE name = ?",
                (hashed, now, name),
            )
        elif create_ok:
            cur.execute(
                "INSERT INTO staff (name, role, password_hash, created_at, password_changed_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, role, hashed, now, now),
            )
        cur.execute("DELETE FROM staff_sessions WHERE name = ?", (name,))
    attempts.clear(db, SCOPE, name=name)
    staff = get(db, name)
    assert staff is not None
    return staff


def _wait_text(retry_at: datetime, now: datetime) -> str:
    seconds = max(1, int((retry_at - now).total_seconds() + 0.999))
    return f"Wait {seconds} seconds, then try again (after {retry_at:%H:%M:%S} UTC)."


def _locked_text(retry_at: datetime, now: datetime) -> str:
    minutes = max(1, int((retry_at - now).total_seconds() / 60 + 0.999))
    return (
        f"Sign-in from this address is locked after too many wrong passwords: try again after "
        f"{retry_at:%H:%M} UTC (in {minutes} minutes), or from another device. Setting the "
        "password again (`adjudicator director set-password` or `judge-account set-password`) "
        "clears the lock-out."
    )
