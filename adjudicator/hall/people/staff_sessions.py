"""Staff sessions kept on the server: the browser holds only an opaque random id.

The table holds the SHA-256 of each id, so a copy of the database opens no session. Signing
out, changing the password and "sign out everywhere" delete rows: a cookie copied before any
of them opens nothing afterwards.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from adjudicator.record.database.db import Database

LIFETIME = timedelta(hours=14)  # a tournament day
MAX_ID = 100  # longer than any id this module makes: not looked up


def start(db: Database, name: str, lifetime: timedelta = LIFETIME) -> str:
    """A new session for staff member `name`: returns the id the browser keeps."""
    session_id = secrets.token_urlsafe(32)
    now = datetime.now(UTC)
    with db.transaction() as cur:
        cur.execute("DELETE FROM staff_sessions WHERE expires_at < ?", (_iso(now),))
        cur.execute(
            "INSERT INTO staff_sessions (id_hash, name, created_at, expires_at) "
            "VALUES (?, ?, ?, ?)",
            (_digest(session_id), name, _iso(now), _iso(now + lifetime)),
        )
    return session_id


def member(db: Database, session_id: str) -> str | None:
    """The staff name of a live session, or None (unknown, ended or expired)."""
    if not session_id or len(session_id) > MAX_ID:
        return None
    with db.transaction() as cur:
        row = cur.execute(
            "SELECT name, expires_at FROM staff_sessions WHERE id_hash = ?",
            (_digest(session_id),),
        ).one()
    if row is None or row["expires_at"] < _iso(datetime.now(UTC)):
        return None
    return row["name"]


def live(db: Database, now: datetime | None = None) -> dict[str, tuple[str, str]]:
    """Every live session, as a server worker checks them without the database: by its id's
    digest, the staff name and when it expires (ISO). One read of the sessions."""
    moment = _iso(now or datetime.now(UTC))
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT id_hash, name, expires_at FROM staff_sessions WHERE expires_at >= ?",
            (moment,),
        ).all()
    return {row["id_hash"]: (row["name"], row["expires_at"]) for row in rows}


def digest(session_id: str) -> str:
    """What a session id is kept as (and looked up by)."""
    return _digest(session_id)


def end(db: Database, session_id: str) -> None:
    """Sign one session out."""
    if session_id and len(session_id) <= MAX_ID:
        with db.transaction() as cur:
            cur.execute("DELETE FROM staff_sessions WHERE id_hash = ?", (_digest(session_id),))


def end_all(db: Database, name: str) -> int:
    """Sign staff member `name` out everywhere; returns how many sessions ended."""
    with db.transaction() as cur:
        cur.execute("DELETE FROM staff_sessions WHERE name = ?", (name,))
        return cur.rowcount


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds")
