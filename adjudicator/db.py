"""The database behind the journal, tournaments and kiosks: SQLite by default, or PostgreSQL.

SQL is written once with `?` placeholders; the PostgreSQL connection translates them. Writes
that extend the journal's hash chain take a database-wide write lock first (SQLite's
BEGIN IMMEDIATE, PostgreSQL's transaction advisory lock), so concurrent writers on one or
many servers still produce one unbroken chain.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from adjudicator import settings
from adjudicator.errors import AdjudicatorError

CHAIN_LOCK_KEY = 7_2023_15  # arbitrary, fixed: the advisory lock that serialises journal appends


class DatabaseUnavailable(AdjudicatorError):
    """The database cannot be reached or written: nothing can be recorded, so nothing is judged."""


def database_url() -> str:
    """The configured database: ADJUDICATOR_DATABASE_URL, else journal.sqlite3 in the data home."""
    return settings.get("database_url") or str(settings.data_home() / "journal.sqlite3")


def connect(url: str | None = None) -> Database:
    """A Database for `url` (an SQLite path or a postgresql:// URL)."""
    url = url or database_url()
    if url.startswith(("postgresql://", "postgres://")):
        from adjudicator.db_postgres import PostgresDatabase

        return PostgresDatabase(url)
    return SqliteDatabase(url.removeprefix("sqlite:///").removeprefix("sqlite://"))


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


class Cursor:
    """A thin cursor: `?` placeholders everywhere, rows as dicts."""

    def __init__(self, raw: Any):
        self._raw = raw

    def sql(self, sql: str) -> str:
        """The statement in the driver's placeholder style (SQLite's is `?` already)."""
        return sql

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        self._raw.execute(self.sql(sql), tuple(params))
        return self

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Cursor:
        """One statement for many parameter rows, in one driver call."""
        self._raw.executemany(self.sql(sql), [tuple(row) for row in rows])
        return self

    def one(self) -> dict[str, Any] | None:
        row = self._raw.fetchone()
        return None if row is None else self._as_dict(row)

    def all(self) -> list[dict[str, Any]]:
        return [self._as_dict(row) for row in self._raw.fetchall()]

    def _as_dict(self, row: Any) -> dict[str, Any]:
        names = [column[0] for column in self._raw.description]
        return dict(zip(names, row, strict=True))

    @property
    def rowcount(self) -> int:
        return self._raw.rowcount


class SqliteDatabase(Database):
    """SQLite in WAL mode with synchronous=FULL: a commit is on disk before it returns."""

    backend = "sqlite"

    def __init__(self, path: str):
        self.url = path
        self.path = Path(path)
        self._local = threading.local()

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(
                    self.path, timeout=10, isolation_level=None, check_same_thread=False
                )
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=FULL")
                connection.execute("PRAGMA busy_timeout=10000")
            except (sqlite3.Error, OSError) as exc:
                raise DatabaseUnavailable(
                    f"The journal database {self.path} cannot be opened: {exc}."
                ) from None
            self._local.connection = connection
        return connection

    @contextmanager
    def transaction(self, *, chain_lock: bool = False) -> Iterator[Cursor]:
        with self._writer_lock() if chain_lock else nullcontext():
            try:
                connection = self._connection()
                raw = connection.cursor()
                raw.execute("BEGIN IMMEDIATE" if chain_lock else "BEGIN")
            except sqlite3.Error as exc:
                raise DatabaseUnavailable(
                    f"The journal database is not available: {exc}."
                ) from None
            try:
                yield Cursor(raw)
                raw.execute("COMMIT")
            except sqlite3.Error as exc:
                _rollback(connection)
                raise DatabaseUnavailable(f"The journal could not be written: {exc}.") from None
            except BaseException:
                _rollback(connection)
                raise

    @contextmanager
    def _writer_lock(self) -> Iterator[None]:
        """An flock shared by every process on this file: writers queue and wake at once,
        instead of polling in SQLite's busy handler (which sleeps up to 100 ms a try)."""
        owner, handle = getattr(self._local, "lock_file", (None, None))
        if owner != os.getpid():  # a forked child must not share its parent's open file
            try:
                handle = open(self.path.with_name(self.path.name + ".lock"), "a")  # noqa: SIM115
            except OSError as exc:
                raise DatabaseUnavailable(
                    f"The journal database is not available: {exc}."
                ) from None
            self._local.lock_file = (os.getpid(), handle)  # per thread: flock is per open file
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None


def _rollback(connection: sqlite3.Connection) -> None:
    try:
        connection.execute("ROLLBACK")
    except sqlite3.Error:
        pass
