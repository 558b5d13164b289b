"""Kiosks: the challenge computers and tablets enrolled for a tournament.

A kiosk has a bearer token for API clients and, for browsers, one-time pairing codes; a paired
browser holds a signed cookie naming the kiosk and the pairing's nonce. Tokens and codes are
stored only as SHA-256 hashes (they are long random strings, so a fast hash is enough) and
compared in constant time. Revoking a kiosk locks out its token and every paired browser at once.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import tournaments
from adjudicator.record.db import Database
from adjudicator.textcheck import check_name

PAIRING_HOURS = 24
# A printed sheet's codes last until used, or until revoked (the kiosk revoked, or a new code
# made for it): a code on paper that expires in hours is useless on the day.
UNTIL_USED = "9999-12-31T23:59:59.999999+00:00"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}")
# Pairing codes are typed on tablets: no 0/O or 1/I/L to misread.
_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10
MAX_TABLE = 999
_FIELDS = "name, tournament, created_at, revoked_at, last_seen_at, session_nonce, table_no"


class KioskError(AdjudicatorError):
    """A kiosk cannot be enrolled, found or paired as asked."""


@dataclass(frozen=True)
class Kiosk:
    name: str
    tournament: str
    created_at: str
    revoked_at: str | None = None
    last_seen_at: str | None = None
    session_nonce: str | None = None
    table_no: int | None = None  # the table it sits at: every challenge there that names none

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    @property
    def table(self) -> str | None:
        """The kiosk's table as a challenge records it (text, like a typed table), or None."""
        return None if self.table_no is None else str(self.table_no)


@dataclass(frozen=True)
class Enrolment:
    """What enrolling or re-pairing hands out once: never stored in the clear."""

    kiosk: Kiosk
    token: str | None
    pairing_code: str
    pairing_expires_at: str


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def pairing_link(base_url: str, code: str, language: str = "en") -> str:
    """The link that pairs a browser: the code follows '#', so no server or proxy log sees it;
    the pairing page speaks the tournament's `language` (`?lang=`, left out for English)."""
    asked = "" if language == "en" else f"?lang={language}"
    return f"{base_url.rstrip('/')}/pair{asked}#{code}"


def check_table(table: int | str | None) -> int | None:
    """A kiosk's table: a whole number from 1 to MAX_TABLE, or None for a kiosk of no table."""
    if table is None or (isinstance(table, str) and not table.strip()):
        return None
    text = str(table).strip()
    number = int(text) if text.isascii() and text.isdigit() else 0
    if isinstance(table, bool) or not 1 <= number <= MAX_TABLE:
        raise KioskError(
            f"Invalid table {text[:20]!r}: give the table's number, 1 to {MAX_TABLE} "
            "(or none, for a kiosk that serves several tables)."
        )
    return number


def add(
    db: Database, name: str, tournament: str, lasting: bool = False, table: int | None = None
) -> Enrolment:
    """Enrol a kiosk for a tournament: a new token and a one-time pairing code (with
    `lasting`, one that lasts until used or revoked, for a printed sheet); `table` is the
    table it sits at, given to every challenge made there that names none."""
    table = check_table(table)
    check_name(
        name,
        "kiosk name",
        40,
        _NAME,
        "use up to 40 letters, digits, spaces, '.', '-' or '_'.",
        KioskError,
    )
    tournaments.get(db, tournament)
    token = "k_" + secrets.token_urlsafe(32)
    code, expires = _new_code(lasting)
    with db.transaction() as cur:
        if cur.execute("SELECT name FROM kiosks WHERE name = ?", (name,)).one():
            raise KioskError(f"Kiosk {name!r} already exists: pair it again with `kiosk pair`.")
        cur.execute(
            "INSERT INTO kiosks (name, tournament, token_hash, pairing_hash, pairing_expires_at, "
            "created_at, table_no) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, tournament, digest(token), digest(code), expires, _now(), table),
        )
    return Enrolment(get(db, name), token, code, expires)


def new_pairing(db: Database, name: str, lasting: bool = False) -> Enrolment:
    """A fresh one-time pairing code for an existing, active kiosk (it replaces the one
    before, which then no longer works); `lasting` as for `add`."""
    kiosk = get(db, name)
    if not kiosk.active:
        raise KioskError(f"Kiosk {name!r} was revoked; enrol a new kiosk instead.")
    code, expires = _new_code(lasting)
    with db.transaction() as cur:
        cur.execute(
            "UPDATE kiosks SET pairing_hash = ?, pairing_expires_at = ? WHERE name = ?",
            (digest(code), expires, name),
        )
    return Enrolment(kiosk, None, code, expires)


def redeem_pairing(db: Database, code: str) -> tuple[Kiosk, str] | None:
    """Use a pairing code once: returns the kiosk and a new session nonce, or None."""
    code = (code or "").strip().upper().replace("-", "").replace(" ", "")
    if not code or len(code) > 64:
        return None
    nonce = secrets.token_urlsafe(16)
    with db.transaction() as cur:
        row = cur.execute(
            "SELECT name, pairing_expires_at FROM kiosks "
            "WHERE pairing_hash = ? AND revoked_at IS NULL",
            (digest(code),),
        ).one()
        if row is None or row["pairing_expires_at"] < _now():
            return None
        cur.execute(
            "UPDATE kiosks SET pairing_hash = NULL, pairing_expires_at = NULL, session_nonce = ? "
            "WHERE name = ?",
            (nonce, row["name"]),
        )
    return get(db, row["name"]), nonce


def by_token(db: Database, token: str) -> Kiosk | None:
    """The active kiosk whose token this is, or None."""
    if not token or len(token) > 200:
        return None
    wanted = digest(token)
    row = db.query_one(
        f"SELECT {_FIELDS}, token_hash FROM kiosks WHERE token_hash = ? AND revoked_at IS NULL",
        (wanted,),
    )
    if row is None or not hmac.compare_digest(row.pop("token_hash"), wanted):
        return None
    return Kiosk(**row)


def by_session(db: Database, name: str, nonce: str) -> Kiosk | None:
    """The active kiosk a paired browser's cookie names, if its nonce is still current."""
    try:
        kiosk = get(db, name)
    except KioskError:
        return None
    if not kiosk.active or not kiosk.session_nonce or not nonce:
        return None
    return kiosk if hmac.compare_digest(kiosk.session_nonce, nonce) else None


def get(db: Database, name: str) -> Kiosk:
    """The kiosk `name`, or KioskError."""
    with db.transaction() as cur:
        row = cur.execute(
            f"SELECT {_FIELDS} FROM kiosks WHERE name = ?",
            (name,),
        ).one()
    if row is None:
        raise KioskError(f"No kiosk named {name!r}.")
    return Kiosk(**row)


def list_all(db: Database) -> list[Kiosk]:
    with db.transaction() as cur:
        rows = cur.execute(f"SELECT {_FIELDS} FROM kiosks ORDER BY name").all()
    return [Kiosk(**row) for row in rows]


def revoke(db: Database, name: str) -> Kiosk:
    """Lock a kiosk out at once: its token, pairing code and paired browsers stop working."""
    get(db, name)
    with db.transaction() as cur:
        cur.execute(
            "UPDATE kiosks SET revoked_at = ?, session_nonce = NULL, pairing_hash = NULL "
            "WHERE name = ?",
            (_now(), name),
        )
    return get(db, name)


def move(db: Database, name: str, tournament: str) -> Kiosk:
    """Assign a kiosk to another tournament."""
    get(db, name)
    tournaments.get(db, tournament)
    with db.transaction() as cur:
        cur.execute("UPDATE kiosks SET tournament = ? WHERE name = ?", (tournament, name))
    return get(db, name)


def set_table(db: Database, name: str, table: int | str | None) -> Kiosk:
    """Seat a kiosk at another table (None: no table of its own)."""
    table = check_table(table)
    get(db, name)
    with db.transaction() as cur:
        cur.execute("UPDATE kiosks SET table_no = ? WHERE name = ?", (table, name))
    return get(db, name)


def touch(db: Database, name: str) -> None:
    """Record that the kiosk was seen now."""
    with db.transaction() as cur:
        cur.execute("UPDATE kiosks SET last_seen_at = ? WHERE name = ?", (_now(), name))


def _new_code(lasting: bool = False) -> tuple[str, str]:
    code = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(CODE_LENGTH))
    if lasting:
        return code, UNTIL_USED
    expires = (datetime.now(UTC) + timedelta(hours=PAIRING_HOURS)).isoformat(
        timespec="microseconds"
    )
    return code, expires


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
