"""Staff accounts: the director and the word judges, their passwords, and login throttling.

Passwords are stored only as argon2id hashes (argon2-cffi). Wrong passwords are counted per
user name and per client address: after a few, each retry must wait twice as long as the
last, and after more the name or address is locked out for a while. The person is always
told when they may try again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from adjudicator import settings
from adjudicator.db import Database
from adjudicator.errors import AdjudicatorError

DIRECTOR = "director"
ROLES = ("director", "judge")
MIN_PASSWORD = 10
MAX_PASSWORD = 1024
_JUDGE_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,31}")

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


@dataclass(frozen=True)
class LoginPolicy:
    """`free_attempts` wrong passwords cost nothing; then 2, 4, 8... seconds; then a lock-out."""

    free_attempts: int = 3
    lockout_after: int = 10
    lockout_seconds: int = 900

    @classmethod
    def from_settings(cls) -> LoginPolicy:
        return cls(
            settings.get_int("login_free_attempts", 0),
            settings.get_int("login_lockout_after", 1),
            settings.get_int("login_lockout_minutes", 1) * 60,
        )

    def delay_after(self, failures: int) -> int:
        """Seconds to wait after `failures` wrong passwords in a row."""
        if failures >= self.lockout_after:
            return self.lockout_seconds
        if failures <= self.free_attempts:
            return 0
        return min(2 ** (failures - self.free_attempts), self.lockout_seconds)


def set_director_password(db: Database, password: str) -> Staff:
    """Create the director's account or change its password (clears its lock-out)."""
    return _store_password(db, DIRECTOR, DIRECTOR, password, create_ok=True)


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
    if name == DIRECTOR or not _JUDGE_NAME.fullmatch(name or ""):
        raise StaffError(
            f"Invalid word judge name {name!r}: use up to 32 lower-case letters, digits, '.', '-' "
            "or '_' (and not 'director')."
        )
    return name


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise StaffError(f"The password is too short: use at least {MIN_PASSWORD} characters.")
    if len(password) > MAX_PASSWORD:
        raise StaffError(f"The password is too long: use at most {MAX_PASSWORD} characters.")
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
    policy: LoginPolicy | None = None,
    now: datetime | None = None,
) -> Staff:
    """The account if `password` is right; otherwise LoginRefused saying when to retry."""
    policy = policy or LoginPolicy.from_settings()
    now = now or datetime.now(UTC)
    name = (name or "").strip().lower()[:64]
    subjects = (f"user:{name}", f"addr:{address or '-'}")
    _refuse_if_waiting(db, subjects, policy, now)
    with db.transaction() as cur:
        row = cur.execute("SELECT password_hash FROM staff WHERE name = ?", (name,)).one()
    if _verify(row["password_hash"] if row else _dummy_hash(), password) and row is not None:
        _clear(db, subjects[0])
        staff = get(db, name)
        assert staff is not None
        return staff
    failures, retry_at = _record_failure(db, subjects, policy, now)
    message = "Wrong name or password."
    if failures >= policy.lockout_after:
        raise LoginRefused(f"{message} {_locked_text(retry_at, now)}", retry_at, locked=True)
    if retry_at > now:
        raise LoginRefused(f"{message} {_wait_text(retry_at, now)}", retry_at)
    raise LoginRefused(message)


def _refuse_if_waiting(db: Database, subjects, policy: LoginPolicy, now: datetime) -> None:
    with db.transaction() as cur:
        rows = [
            cur.execute("SELECT * FROM login_failures WHERE subject = ?", (s,)).one()
            for s in subjects
        ]
    waits = [
        (datetime.fromisoformat(r["retry_at"]), int(r["failures"]))
        for r in rows
        if r and datetime.fromisoformat(r["retry_at"]) > now
    ]
    if not waits:
        return
    retry_at, failures = max(waits)
    if failures >= policy.lockout_after:
        raise LoginRefused(_locked_text(retry_at, now), retry_at, locked=True)
    raise LoginRefused(f"Too many wrong passwords. {_wait_text(retry_at, now)}", retry_at)


def _record_failure(db: Database, subjects, policy: LoginPolicy, now: datetime):
    """Count one more failure for each subject; returns the worst (failures, retry_at)."""
    worst = (0, now)
    stamp = now.isoformat(timespec="microseconds")
    with db.transaction(chain_lock=True) as cur:
        for subject in subjects:
            row = cur.execute("SELECT * FROM login_failures WHERE subject = ?", (subject,)).one()
            stale = row is not None and (
                now - datetime.fromisoformat(row["last_failure_at"])
                > timedelta(seconds=policy.lockout_seconds)
            )
            failures = 1 if row is None or stale else int(row["failures"]) + 1
            retry_at = now + timedelta(seconds=policy.delay_after(failures))
            values = (failures, stamp, retry_at.isoformat(timespec="microseconds"), subject)
            if row is None:
                cur.execute(
                    "INSERT INTO login_failures (failures, last_failure_at, retry_at, subject) "
                    "VALUES (?, ?, ?, ?)",
                    values,
                )
            else:
                cur.execute(
                    "UPDATE login_failures SET failures = ?, last_failure_at = ?, retry_at = ? "
                    "WHERE subject = ?",
                    values,
                )
            worst = max(worst, (failures, retry_at))
    return worst


def _clear(db: Database, subject: str) -> None:
    with db.transaction(chain_lock=True) as cur:
        cur.execute("DELETE FROM login_failures WHERE subject = ?", (subject,))


def _dummy_hash() -> str:
    """A hash to verify against for unknown names, so they cost as long as a wrong password."""
    key = id(HASHER)
    if key not in _dummy_hashes:
        _dummy_hashes[key] = HASHER.hash("not a password anyone has")
    return _dummy_hashes[key]


def _verify(password_hash: str, password: str) -> bool:
    try:
        return HASHER.verify(password_hash, password or "")
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def _store_password(db: Database, name: str, role: str, password: str, *, create_ok: bool) -> Staff:
    hashed = HASHER.hash(check_password(password))
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
        cur.execute("DELETE FROM login_failures WHERE subject = ?", (f"user:{name}",))
    staff = get(db, name)
    assert staff is not None
    return staff


def _wait_text(retry_at: datetime, now: datetime) -> str:
    seconds = max(1, int((retry_at - now).total_seconds() + 0.999))
    return f"Wait {seconds} seconds, then try again (after {retry_at:%H:%M:%S} UTC)."


def _locked_text(retry_at: datetime, now: datetime) -> str:
    minutes = max(1, int((retry_at - now).total_seconds() / 60 + 0.999))
    return (
        f"Sign-in is locked after too many wrong passwords: try again after {retry_at:%H:%M} UTC "
        f"(in {minutes} minutes). Setting the password again (`adjudicator director "
        "set-password` or `judge-account set-password`) clears a user's lock-out."
    )
