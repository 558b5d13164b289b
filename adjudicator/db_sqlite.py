"""The journal on SQLite: one file in the data home, WAL mode, synchronous=FULL."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from adjudicator.db import Cursor, Database, DatabaseUnavailable


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

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        """One read in autocommit mode: SQLite reads a consistent snapshot for the statement,
        and the hot path (a kiosk's token, its tournament) saves a BEGIN and a COMMIT."""
        try:
            return Cursor(self._connection().execute(sql, tuple(params))).one()
        except sqlite3.Error as exc:
            raise DatabaseUnavailable(f"The journal database is not available: {exc}.") from None

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
