"""How two copies of a journal stand: the same, one only behind the other, or disagreeing.

Read straight from the files (never created here): each copy's journal id and newest row, and
the row of the longer chain at the shorter one's head. A copy whose newest row the other holds
unchanged, in the same journal, is only behind; anything else disagrees.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

GENESIS = "0" * 64
TURN_SECONDS = 10.0  # the longest one reader waits for another on this laptop


@dataclass(frozen=True)
class CopyHead:
    path: str
    exists: bool
    journal_id: str | None = None
    rows: int = 0
    last_hash: str = GENESIS

    def describe(self) -> str:
        if not self.exists:
            return f"{self.path} is missing"
        return f"{self.path} ends at row {self.rows}"


class _ReadTurn(sqlite3.Connection):
    """A reading connection that holds this laptop's turn at its file until it closes."""

    turn: int | None = None

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.turn is not None:
                os.close(self.turn)  # the lock goes with the descriptor
                self.turn = None


def turns_folder() -> Path | None:
    """This user's own folder for the turns' locks: `adjudicator-UID` in the temporary folder,
    made 0700 and used only while it is this user's and no one else may write in it (in a
    folder others may write, another user could hold a turn's lock to stall every read, or put
    a file at its name). The same folder for every process of the user, whatever its
    environment (a hall started as a service, a command typed in a terminal), so that they take
    turns. None: no such folder (the reads go on without turns)."""
    folder = Path(tempfile.gettempdir()) / f"adjudicator-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    return folder if _own_folder(folder) else None


def _own_folder(folder: Path) -> bool:
    """A real folder (not a link) of this user's that no other user may write in."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _take_turn(path: str) -> int | None:
    """An exclusive lock, off the stick, on reading the file at `path` (None: not had within
    TURN_SECONDS, or no folder of this user's to keep it in; the read goes on without it
    rather than hang)."""
    folder = turns_folder()
    if folder is None:
        return None
    name = hashlib.sha256(os.path.realpath(path).encode()).hexdigest()[:24]
    try:
        held = os.open(
            folder / f"adjudicator-read-{name}.lock",
            os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW,  # no link followed
            0o600,
        )
    except OSError:
        return None
    deadline = time.monotonic() + TURN_SECONDS
    while True:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return held
        except OSError:
            if time.monotonic() >= deadline:
                os.close(held)
                return None
            time.sleep(0.01)


def open_to_read(path: str) -> sqlite3.Connection:
    """An existing copy opened to be read, changing nothing in its files (never made here).
    With a write-ahead log beside it (a writer stopped without a checkpoint, or a hall
    writing it now), read only: a connection that may write would fold that log into the
    file as it closes. Without one, read-write: a read-only one would leave a log and an index
    behind, where the last read-write connection removes both. Readers on this laptop take
    turns at a file, so that one reader's log is never taken for a writer's by another, left
    behind when the first closes (two workers of a starting hall, reading the stick at once)."""
    turn = _take_turn(path)
    try:
        mode = "ro" if Path(f"{path}-wal").exists() else "rw"
        connection = sqlite3.connect(
            f"file:{quote(str(path))}?mode={mode}", uri=True, timeout=10, factory=_ReadTurn
        )
    except BaseException:
        if turn is not None:
            os.close(turn)
        raise
    connection.turn = turn
    return connection


_open = open_to_read


def head(path: str) -> CopyHead:
    """The copy's journal id and newest row (an empty or unmigrated file: no rows)."""
    if not Path(path).is_file():
        return CopyHead(path, False)
    connection = _open(path)
    try:
        journal_id = _one(connection, "SELECT journal_id FROM journal_identity")
        row = _row(connection, "SELECT id, row_hash FROM adjudications ORDER BY id DESC LIMIT 1")
    finally:
        connection.close()
    if row is None:
        return CopyHead(path, True, journal_id)
    return CopyHead(path, True, journal_id, int(row[0]), row[1])


def hash_at(path: str, row_id: int) -> str | None:
    connection = _open(path)
    try:
        return _one(connection, "SELECT row_hash FROM adjudications WHERE id = ?", (row_id,))
    finally:
        connection.close()


def _row(connection: sqlite3.Connection, sql: str, params: tuple = ()) -> tuple | None:
    try:
        return connection.execute(sql, params).fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return None
        raise


def _one(connection: sqlite3.Connection, sql: str, params: tuple = ()):
    row = _row(connection, sql, params)
    return row[0] if row else None


def compare(first: str, second: str) -> tuple[str, CopyHead, CopyHead]:
    """("same" | "first-behind" | "second-behind" | "disagree", head of first, of second).

    A missing or empty copy is behind one with rows; two copies of different journals (ids)
    disagree, as do two whose chains part anywhere up to the shorter one's head.
    """
    a, b = head(first), head(second)
    if a.journal_id and b.journal_id and a.journal_id != b.journal_id:
        return "disagree", a, b
    if a.rows == b.rows:
        if a.last_hash != b.last_hash:
            return "disagree", a, b
        if a.exists != b.exists or (a.journal_id is None) != (b.journal_id is None):
            return ("first-behind" if not a.journal_id else "second-behind"), a, b
        return "same", a, b
    shorter, longer, verdict = (
        (a, b, "first-behind") if a.rows < b.rows else (b, a, "second-behind")
    )
    if shorter.rows and hash_at(longer.path, shorter.rows) != shorter.last_hash:
        return "disagree", a, b
    return verdict, a, b
