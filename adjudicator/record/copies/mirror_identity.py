"""The journal knows its mirror by identity, not by path.

Each SQLite copy holds an id of its own (table `copy_identity`), written into that one file
directly, never through the mirror: the laptop's copy and the USB stick's differ there and
nowhere else. The journal itself (table `journal_mirror`, written through the mirror into both
copies) holds the id of the mirror it is written to, and where that was last seen. So a journal
that has had a mirror knows it: started with the mirror unset, absent, or at a path that holds
another file, it does not judge (one_hall.py) and writes nothing there, until the stick is back
(its copy, at whatever path it is mounted) or the director confirms this laptop is alone
(`journal confirm-alone`, which forgets the mirror). No file deleted beside the journal makes a
laptop forget that it had a mirror: only the journal says so. A journal older than this
(schema 23) is known by the path its side file `journal.sqlite3.mirrored` names.

Every read here opens a file as SQLite's own readers do and changes nothing in it; a copy
rebuilt from the other (resync.rebuild) keeps its own id.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from adjudicator.record.copies import standing
from adjudicator.record.database.db import Database

LEGACY_SUFFIX = ".mirrored"  # schema 22's side file: {"journal": id, "mirror": path}
READ_SQL = "SELECT copy_id, path, since FROM journal_mirror WHERE slot = 1"
WRITE_SQL = (
    "INSERT INTO journal_mirror (slot, copy_id, path, since) VALUES (1, ?, ?, ?) "
    "ON CONFLICT (slot) DO UPDATE SET copy_id = excluded.copy_id, path = excluded.path, "
    "since = excluded.since"
)
COPY_SQL = "SELECT copy_id FROM copy_identity WHERE slot = 1"
GIVE_SQL = (
    "INSERT INTO copy_identity (slot, copy_id) VALUES (1, ?) "
    "ON CONFLICT (slot) DO UPDATE SET copy_id = excluded.copy_id"
)


@dataclass(frozen=True)
class Recorded:
    """The mirror the journal is written to: its copy's id (None: a journal older than
    schema 23, known by path only) and where it was last seen."""

    copy_id: str | None
    path: str
    since: str = ""

    def shown(self) -> str:
        """How the director is told of it."""
        copy = f"copy {self.copy_id[:8]}, " if self.copy_id else ""
        return f"{copy}last seen at {self.path}"


def _open(path: str) -> sqlite3.Connection:
    """The file opened as an existing database (never made here)."""
    return sqlite3.connect(f"file:{quote(str(path))}?mode=rw", uri=True, timeout=10)


def _one(path: str, sql: str) -> tuple | None:
    """The first row of a read of the SQLite file at `path` (None: no file, no table, no row)."""
    if not Path(path).is_file():
        return None
    try:
        connection = standing.open_to_read(path)
    except sqlite3.Error:
        return None
    try:
        return connection.execute(sql).fetchone()
    except sqlite3.Error:
        return None  # no such table yet (an older schema), or not a database at all
    finally:
        connection.close()


def copy_id(path: str) -> str | None:
    """The id the copy at `path` holds, if it has one."""
    found = _one(path, COPY_SQL)
    return str(found[0]) if found and found[0] else None


def give(path: str, new: str | None = None) -> str | None:
    """Write an id into the copy at `path` itself (a fresh one unless `new`); the id, or None
    where the file has no table for it yet (an older schema: the next start gives it)."""
    made = new or secrets.token_hex(16)
    try:
        connection = _open(path)
    except sqlite3.Error:
        return None
    try:
        connection.execute("PRAGMA synchronous=FULL")
        with connection:
            connection.execute(GIVE_SQL, (made,))
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    return made


def recorded(primary: str, journal_id: str | None = None) -> Recorded | None:
    """The mirror the journal at `primary` records (or, for a journal older than schema 23,
    its side file names for `journal_id`), if any."""
    found = _one(primary, READ_SQL)
    if found is not None:
        return Recorded(str(found[0]), str(found[1]), str(found[2]))
    return _legacy(primary, journal_id)


def _legacy(primary: str, journal_id: str | None) -> Recorded | None:
    try:
        found = json.loads(Path(primary + LEGACY_SUFFIX).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(found, dict) or not journal_id or found.get("journal") != journal_id:
        return None
    mirror = str(found.get("mirror") or "")
    return Recorded(None, mirror) if mirror else None


def remember(db: Database, copy: str, path: str) -> None:
    """Record in the journal (both copies) that its mirror is the copy `copy`, at `path`."""
    since = datetime.now(UTC).isoformat(timespec="seconds")
    with db.transaction() as cur:
        cur.execute(WRITE_SQL, (copy, path, since))


def adopt(primary: str, mirror: str) -> None:
    """A copy made anew in the mirror's own place (its file was lost while the hall judged,
    and `journal resync` made it again): it becomes the journal's mirror, in both copies."""
    theirs = give(mirror)
    if theirs is None:
        return
    since = datetime.now(UTC).isoformat(timespec="seconds")
    for path in (primary, mirror):
        try:
            connection = _open(path)
        except sqlite3.Error:
            continue
        try:
            connection.execute("PRAGMA synchronous=FULL")
            with connection:
                connection.execute(WRITE_SQL, (theirs, mirror, since))
        except sqlite3.Error:
            pass
        finally:
            connection.close()


def forget(db: Database, primary: str) -> None:
    """The journal has no mirror from now on (`journal confirm-alone`)."""
    with db.transaction() as cur:
        cur.execute("DELETE FROM journal_mirror")
    Path(primary + LEGACY_SUFFIX).unlink(missing_ok=True)


def same_place(first: str, second: str) -> bool:
    """Whether two paths name one file (or would: neither need exist)."""
    try:
        return Path(first).expanduser().resolve() == Path(second).expanduser().resolve()
    except OSError:
        return first == second


@dataclass(frozen=True)
class Waiting:
    """Why the configured mirror is not this journal's: "unset" (no mirror is set), "absent"
    (nothing at the mirror's own path: the stick is not here) or "other" (the path set holds
    another file, or none, where the mirror is not)."""

    kind: str
    mirror: Recorded
    configured: str = ""

    def what(self) -> str:
        """What is missing, in one sentence's first half."""
        if self.kind == "unset":
            return (
                "ADJUDICATOR_JOURNAL_MIRROR is not set, but this journal is mirrored to a USB "
                f"stick ({self.mirror.shown()})"
            )
        if self.kind == "absent":
            return (
                f"The journal's mirror {self.configured} is missing: this journal was written "
                f"to it ({self.mirror.shown()}), and the USB stick is not here now"
            )
        return (
            f"ADJUDICATOR_JOURNAL_MIRROR is {self.configured}, which is not this journal's "
            f"mirror ({self.mirror.shown()}): {self._there()}"
        )

    def _there(self) -> str:
        if not Path(self.configured).is_file():
            return "there is no journal there"
        return "the journal there is another copy (a copy of this laptop's, or another stick's)"

    def detail(self) -> str:
        """What the director is told, and what lifts it."""
        return (
            f"{self.what()}. The stick may be serving another laptop that took the hall over, "
            "so this laptop does not judge, and writes nothing to the stick. Put the stick "
            "back, set ADJUDICATOR_JOURNAL_MIRROR to the journal's copy on it (wherever it is "
            "mounted) and restart the hall (or run `adjudicator journal resync`). If the stick "
            "is lost for good and no other laptop serves the hall, run `adjudicator journal "
            "confirm-alone --reason TEXT`: this laptop then judges alone."
        )


def waiting(primary: str, configured: str | None, journal_id: str | None) -> Waiting | None:
    """Why the journal at `primary` may not be written with `configured` as its mirror (None:
    it may: the journal records no mirror, or `configured` holds the one it records)."""
    found = recorded(primary, journal_id)
    if found is None:
        return None
    if not configured:
        return Waiting("unset", found)
    if not Path(configured).is_file():
        kind = "absent" if same_place(configured, found.path) else "other"
        return Waiting(kind, found, configured)
    if found.copy_id is None:  # an older journal, known by path
        return None if same_place(configured, found.path) else Waiting("other", found, configured)
    return None if copy_id(configured) == found.copy_id else Waiting("other", found, configured)


def places(primary: str, configured: str | None, journal_id: str | None) -> list[str]:
    """Where the journal's copies may be, to look for what they prove (reads only): this
    laptop's, the configured mirror, and the mirror's last known path if it is another."""
    found = [primary]
    for path in (configured, (recorded(primary, journal_id) or Recorded(None, "")).path):
        if path and not any(same_place(path, known) for known in found):
            found.append(path)
    return found
