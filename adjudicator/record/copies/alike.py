"""Two copies holding the same rows, proven with one walk of the chain, not two.

At a start both copies of a mirrored journal are proven (at_start.py). When they stand at the
same head, the journal's chain is walked once and the mirror is compared with it, row for row
and value for value: every column of every row, with its type (a walk would find the same in
both, row by row). A mirror found alike is judged with the journal's walk (chain_walk's
`chained`: its newest row, each witnessed row and the keyed hash are still looked up in the
mirror itself). One that differs anywhere, or that cannot be compared, is walked on its own,
as before, and its findings say where it parts.

The comparison is SQLite's own (the mirror attached read-only, a join on the row number). It
runs in a thread beside the walk: the sqlite3 module leaves Python's lock while SQLite works,
so on a second core it costs the start next to nothing.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from urllib.parse import quote

from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.journal import chain_walk, split_walk


def walk_and_compare(journal: str, mirror: str) -> tuple[chain_walk.Walk | None, bool]:
    """`journal`'s chain, walked once (None: it could not be read, or is broken: its own walk
    says where), and whether `mirror` holds exactly its rows (then that walk is the mirror's
    too)."""
    comparison = _Comparison(journal, mirror)
    try:
        walked = split_walk.walk(journal)  # on both cores (a long journal's later half)
    except DatabaseUnavailable:
        walked = None  # its own walk says why
    return walked, comparison.result()


def same_rows(journal: str, mirror: str) -> bool:
    """Whether the two files' journal tables hold the same rows: the same columns, the same row
    numbers, and in each row the same values of the same types (False when unreadable, or
    when either is not a regular file: SQLite would wait on a FIFO for ever)."""
    if not (Path(journal).is_file() and Path(mirror).is_file()):
        return False
    connection = sqlite3.connect(f"file:{quote(journal)}?mode=ro", uri=True, timeout=10)
    try:
        connection.execute("ATTACH DATABASE ? AS mirror", (f"file:{quote(mirror)}?mode=ro",))
        columns = _columns(connection, "main")
        if not columns or columns != _columns(connection, "mirror"):
            return False
        differs = " OR ".join(
            f'a."{name}" IS NOT b."{name}" OR typeof(a."{name}") != typeof(b."{name}")'
            for name in columns
        )
        (alike,) = connection.execute(
            "SELECT (SELECT COUNT(*) FROM main.adjudications) = "
            "(SELECT COUNT(*) FROM mirror.adjudications) AND NOT EXISTS (SELECT 1 FROM "
            "main.adjudications AS a LEFT JOIN mirror.adjudications AS b ON b.id = a.id "
            f"WHERE b.id IS NULL OR {differs})"
        ).fetchone()
        return bool(alike)
    except sqlite3.Error:
        return False
    finally:
        connection.close()


def _columns(connection: sqlite3.Connection, schema: str) -> list[str]:
    return [row[1] for row in connection.execute(f"PRAGMA {schema}.table_info(adjudications)")]


class _Comparison:
    """`same_rows` in a thread (SQLite's work leaves Python's lock)."""

    def __init__(self, journal: str, mirror: str):
        self._alike = False
        self._thread = threading.Thread(
            target=self._run, args=(journal, mirror), name="copies-alike", daemon=True
        )
        self._thread.start()

    def _run(self, journal: str, mirror: str) -> None:
        try:
            self._alike = same_rows(journal, mirror)
        except Exception:  # noqa: BLE001 - only a shortcut: each copy is then walked itself
            self._alike = False

    def result(self) -> bool:
        self._thread.join()
        return self._alike
