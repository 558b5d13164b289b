"""`journal backup DEST`: an online, consistent copy of an SQLite journal that verifies alone.

SQLite's backup API copies one snapshot while the hall goes on serving. The copy is written
beside DEST under a temporary name, its chain verified, made durable, and only then linked to
DEST (which must not exist): a failure leaves nothing half-written behind. A PostgreSQL journal
is backed up with PostgreSQL's own tools instead.

The chain is walked in a child process (split_walk.walk_apart): a director's backup from the
serving hall's page would otherwise hold that worker's interpreter for the whole walk, and its
verdicts with it. A copy that does not verify is walked here again, to say where it breaks.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from adjudicator.durable import create_owner_only, fsync_path, remove_if_there
from adjudicator.errors import AdjudicatorError
from adjudicator.record.database.db import Database, DatabaseUnavailable
from adjudicator.record.database.sqlite import SUFFIXES, SqliteDatabase
from adjudicator.record.journal import journal, split_walk

POSTGRES_ADVICE = (
    "This journal is in PostgreSQL: back it up with PostgreSQL's own tools (pg_dump for a copy "
    "at a moment, pg_basebackup with streaming replication for a standby that follows every "
    'commit), as the manual\'s "Several servers" page (docs/servers.md) says.'
)


class BackupError(AdjudicatorError):
    """A backup cannot be made where asked (or at all); nothing was left behind."""


@dataclass(frozen=True)
class Backup:
    path: Path
    rows: int
    last_hash: str


def source_path(db: Database) -> str:
    """The SQLite file a backup copies: the serving copy of a mirrored journal."""
    if db.backend != "sqlite":
        raise BackupError(POSTGRES_ADVICE)
    serving = getattr(db, "serving", None)
    return str(serving().path if serving is not None else db.path)  # type: ignore[attr-defined]


def check_destination(dest: Path) -> None:
    """A clear error for a destination that exists or cannot be written."""
    if dest.exists() or dest.is_symlink():
        raise BackupError(
            f"{dest} already exists: give a new file name (a backup never overwrites)."
        )
    folder = dest.parent
    if not folder.is_dir():
        raise BackupError(f"The folder {folder} does not exist: create it or give another.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BackupError(f"The folder {folder} is not writable: give a folder you can write.")


def make(db: Database, dest: Path) -> Backup:
    """Copy the journal to `dest` (a new file), verified; raises BackupError, leaving nothing."""
    dest = Path(dest)
    check_destination(dest)
    source = source_path(db)
    partial = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    try:
        _copy(source, partial)
        walked = split_walk.walk_apart(str(partial))
        rows, last_hash = (walked.rows, walked.last_hash) if walked else _verified(partial)
        fsync_path(partial)
        try:
            os.link(partial, dest)  # never over a file that appeared meanwhile
        except FileExistsError:
            raise BackupError(f"{dest} already exists: give a new file name.") from None
        fsync_path(dest.parent)
    except OSError as exc:
        raise BackupError(f"The backup to {dest} failed: {exc.strerror or exc}.") from None
    except (sqlite3.Error, DatabaseUnavailable) as exc:
        raise BackupError(f"The backup to {dest} failed: {exc}") from None
    finally:
        for suffix in SUFFIXES:
            remove_if_there(Path(f"{partial}{suffix}"))
    return Backup(dest, rows, last_hash)


def _verified(partial: Path) -> tuple[int, str]:
    """The copy's rows and last hash, walked here (no child walked it whole); BackupError
    saying where its chain breaks."""
    copy = SqliteDatabase(str(partial), create_folder=False)
    try:
        result = journal.verify(copy)
    finally:
        copy.close()
    if not result.ok:
        raise BackupError(
            f"The copy does not verify (row {result.first_bad_id}: {result.problem}): the "
            "journal itself is damaged. Run `adjudicator journal verify`."
        )
    return result.rows, result.last_hash


def _copy(source: str, target: Path) -> None:
    src = sqlite3.connect(f"file:{quote(source)}?mode=rw", uri=True, timeout=10)
    try:
        create_owner_only(target)  # a backup is the journal: its owner's alone
        dst = sqlite3.connect(str(target))
        try:
            src.backup(dst)  # one step: one consistent snapshot, while others write
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            dst.close()
    finally:
        src.close()
