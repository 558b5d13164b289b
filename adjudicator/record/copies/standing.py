"""How two copies of a journal stand: the same, one only behind the other, or disagreeing.

Read straight from the files (never created here): each copy's journal id and newest row, and
the row of the longer chain at the shorter one's head. A copy whose newest row the other holds
unchanged, in the same journal, is only behind; anything else disagrees.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

GENESIS = "0" * 64


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


def open_to_read(path: str) -> sqlite3.Connection:
    """An existing copy opened to be read, changing nothing in its files (never made here).
    With a write-ahead log beside it (a writer stopped without a checkpoint), read only: a
    connection that may write would fold that log into the file as it closes. Without one,
    read-write: a read-only one would leave a log and an index behind, where the last
    read-write connection removes both."""
    mode = "ro" if Path(f"{path}-wal").exists() else "rw"
    return sqlite3.connect(f"file:{quote(str(path))}?mode={mode}", uri=True, timeout=10)


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
