"""The database's shared types: what the journal, tournaments and kiosks need from a backend.

SQL is written once with `?` placeholders; a backend's cursor translates them if it must.
Writes that extend the journal's hash chain take a database-wide write lock first (SQLite's
BEGIN IMMEDIATE, PostgreSQL's transaction advisory lock), so concurrent writers on one or
many servers still produce one unbroken chain. The backends are `sqlite` and
`postgres`; `backends.connect` picks one for a URL.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from adjudicator.errors import AdjudicatorError

CHAIN_LOCK_KEY = 7_2023_15  # arbitrary, fixed: the advisory lock that serialises journal appends


class DatabaseUnavailable(AdjudicatorError):
    """The database cannot be reached or written: nothing can be recorded, so nothing is judged."""


class Database:
    """What the journal, tournaments and kiosks need from a database."""

    backend = "abstract"
    url = ""

    @contextmanager
    def transaction(self, *, chain_lock: bool = False) -> Iterator[Cursor]:
        raise NotImplementedError
        yield  # pragma: no cover

    def close(self) -> None:
        raise NotImplementedError

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        """The first row of one read-only statement (a backend may skip BEGIN and COMMIT)."""
        with self.transaction() as cur:
            return cur.execute(sql, params).one()

    def file_problem(self) -> str | None:
        """Why the journal's files are no longer those this process opened; None if they are
        (or if the backend has no files of its own to check)."""
        return None

    def space_problem(self) -> str | None:
        """Why the journal's disk cannot take another commit now, if this backend can tell."""
        return None


class Cursor:
    """A thin cursor: `?` placeholders everywhere, rows as dicts."""

    def __init__(self, raw: Any):
        self._raw = raw
        self._names: tuple[str, ...] | None = None

    def sql(self, sql: str) -> str:
        """The statement in the driver's placeholder style (SQLite's is `?` already)."""
        return sql

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        self._raw.execute(self.sql(sql), tuple(params))
        self._names = None  # a new statement: its columns are read once, at its first row
        return self

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Cursor:
        """One statement for many parameter rows, in one driver call."""
        self._raw.executemany(self.sql(sql), [tuple(row) for row in rows])
        self._names = None
        return self

    def one(self) -> dict[str, Any] | None:
        row = self._raw.fetchone()
        return None if row is None else dict(zip(self._columns(), row, strict=True))

    def all(self) -> list[dict[str, Any]]:
        rows = self._raw.fetchall()
        if not rows:
            return []
        names = self._columns()
        return [dict(zip(names, row, strict=True)) for row in rows]

    def tuples(self) -> list[tuple]:
        """Every remaining row as a plain tuple, in the statement's column order."""
        return [tuple(row) for row in self._raw.fetchall()]

    def columns(self) -> tuple[str, ...]:
        """The column names of the current statement's result."""
        return self._columns()

    def _columns(self) -> tuple[str, ...]:
        if self._names is None:
            self._names = tuple(column[0] for column in self._raw.description)
        return self._names

    @property
    def rowcount(self) -> int:
        return self._raw.rowcount
