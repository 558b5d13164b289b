"""The journal on PostgreSQL (psycopg 3), for several app servers sharing one database.

One connection per thread, opened on first use and replaced after any failure. Every error
that means "the server cannot be reached or has gone" (OperationalError, InterfaceError)
becomes DatabaseUnavailable, so the API answers 503 "not judged"; the next request on that
thread connects again, so service comes back by itself once PostgreSQL does.

Journal appends take a transaction-scoped advisory lock (released at COMMIT or ROLLBACK,
also when the connection dies), so writers on any number of servers extend one chain. The
isolation level stays READ COMMITTED: each statement after the lock sees every commit made
before the lock was granted, which is exactly what appending to the chain needs.
"""

from __future__ import annotations

import os
import re
import select
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

import psycopg

from adjudicator.record.database.db import CHAIN_LOCK_KEY, Cursor, Database, DatabaseUnavailable

CONNECT_TIMEOUT = 5  # seconds: a kiosk should hear "not judged" quickly when the server is down
_LITERAL = re.compile(r"('(?:[^']|'')*')")
_INHERITED: list[psycopg.Connection] = []  # opened before a fork: kept, never closed, never used


@lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """`?` placeholders to psycopg's `%s`; `?` inside quoted literals and `%` stay literal."""
    parts = _LITERAL.split(sql)
    for index in range(0, len(parts), 2):  # even parts are outside quotes
        parts[index] = parts[index].replace("%", "%%").replace("?", "%s")
    for index in range(1, len(parts), 2):
        parts[index] = parts[index].replace("%", "%%")
    return "".join(parts)


class PostgresCursor(Cursor):
    """The project's cursor on psycopg: SQL keeps its `?` placeholders."""

    def sql(self, sql: str) -> str:
        return translate(sql)


class PostgresDatabase(Database):
    """PostgreSQL through psycopg 3 with per-thread connections that reconnect after failures."""

    backend = "postgresql"

    def __init__(self, url: str, connect_timeout: int = CONNECT_TIMEOUT):
        self.url = url
        self.connect_timeout = connect_timeout
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: set[psycopg.Connection] = set()

    @contextmanager
    def transaction(self, *, chain_lock: bool = False) -> Iterator[Cursor]:
        connection = self._connection()
        try:
            raw = connection.cursor()
            if chain_lock:
                raw.execute("SELECT pg_advisory_xact_lock(%s)", (CHAIN_LOCK_KEY,))
        except psycopg.Error as exc:
            self._failed(connection)
            raise DatabaseUnavailable(
                f"The journal database is not available: {_reason(exc)}."
            ) from None
        try:
            yield PostgresCursor(raw)
            connection.commit()
        except psycopg.Error as exc:
            # A COMMIT cut off by a lost connection may or may not have happened: the row is
            # then either recorded and not shown, or neither. Never shown and not recorded.
            self._failed(connection)
            raise DatabaseUnavailable(
                f"The journal could not be written: {_reason(exc)}."
            ) from None
        except BaseException:
            self._rollback(connection)
            raise

    def _connection(self) -> psycopg.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is not None and (
            getattr(self._local, "pid", None) != os.getpid() or _stale(connection)
        ):
            self._discard(connection)
            connection = None
        if connection is None:
            try:
                connection = psycopg.connect(
                    self.url, connect_timeout=self.connect_timeout, application_name="adjudicator"
                )
            except psycopg.Error as exc:
                raise DatabaseUnavailable(
                    f"The journal database cannot be reached: {_reason(exc)}."
                ) from None
            self._local.connection, self._local.pid = connection, os.getpid()
            with self._lock:
                self._connections.add(connection)
        return connection

    def _rollback(self, connection: psycopg.Connection) -> None:
        try:
            connection.rollback()
        except psycopg.Error:
            self._discard(connection)

    def _failed(self, connection: psycopg.Connection) -> None:
        """After an error: roll back if the connection still works, else drop it."""
        if connection.broken or connection.closed:
            self._discard(connection)
        else:
            self._rollback(connection)

    def _discard(self, connection: psycopg.Connection) -> None:
        if getattr(self._local, "connection", None) is connection:
            self._local.connection = None
        with self._lock:
            self._connections.discard(connection)
        if getattr(self._local, "pid", os.getpid()) != os.getpid():
            _INHERITED.append(connection)  # closing it would hang up the parent's session
            return
        try:
            connection.close()
        except Exception:  # noqa: BLE001 - it is being thrown away
            pass

    def close(self) -> None:
        """Close every connection this object opened in this process."""
        with self._lock:
            connections, self._connections = list(self._connections), set()
        for connection in connections:
            try:
                connection.close()
            except Exception:  # noqa: BLE001
                pass
        self._local = threading.local()


def _stale(connection: psycopg.Connection) -> bool:
    """True when an idle connection can no longer be used.

    An idle connection has nothing to read; if its socket is readable, the server has closed
    it (a restart sends "terminating connection" and hangs up). Checking costs one syscall,
    no round trip, and spares the first request after a restart a needless 503.
    """
    if connection.closed or connection.broken:
        return True
    try:
        readable, _, _ = select.select([connection.fileno()], [], [], 0)
    except (OSError, ValueError, psycopg.Error):
        return True
    return bool(readable)


def _reason(exc: psycopg.Error) -> str:
    """A one-line reason, without the DSN or the SQL."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
