"""The journal on SQLite: one file in the data home, WAL mode, synchronous=FULL.

Its files (the database, -wal, -shm and .lock) are readable by their owner only (mode 600).

The files this process opened (the database, its -wal and -shm) are remembered by device and
inode. A connection to a file that was deleted or replaced goes on reading and writing the old
inode, which no one else will ever see; `file_problem` notices, so the journal's health turns
"lost" and nothing more is judged. Once a process has opened the journal, later connections
never create it: a deleted journal is not silently replaced by an empty one. A copy made
with `create_file=False` (a mirror that was there) is never created by any process.
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
from urllib.parse import quote

from adjudicator.durable import make_owner_only, open_owner_only
from adjudicator.record.database import journal_health
from adjudicator.record.database.db import Cursor, Database, DatabaseUnavailable

SUFFIXES = ("", "-wal", "-shm")
LOW_SPACE_BYTES = 64 * 1024  # less than this free: the next commit may well fail


class SqliteDatabase(Database):
    """SQLite in WAL mode with synchronous=FULL: a commit is on disk before it returns."""

    backend = "sqlite"

    def __init__(self, path: str, *, create_folder: bool = True, create_file: bool = True):
        self.url = path
        self.create_folder = create_folder  # a mirror's folder (a USB stick) is never made
        self.create_file = create_file  # False: a file gone is never made again (a lost copy)
        self.path = Path(path)
        self._local = threading.local()
        self._files = tuple((suffix, str(path) + suffix) for suffix in SUFFIXES)
        self._opened: dict[str, tuple[int, int]] | None = None  # suffix -> (device, inode)
        self._opened_pid = 0
        self._pin_lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            first = self._pins() is None
            creating = first and self.create_file
            try:
                if self.create_folder:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                target = self.path if creating else f"file:{quote(str(self.path))}?mode=rw"
                connection = sqlite3.connect(
                    target,
                    timeout=10,
                    isolation_level=None,
                    check_same_thread=False,
                    uri=not creating,
                )
                if creating:  # owner-only before the -wal and -shm, which SQLite gives its mode
                    for _suffix, path in self._files:
                        make_owner_only(path)  # by path: never a descriptor SQLite's locks need
                if self.path.exists() and not os.access(self.path, os.W_OK):
                    # SQLite would open it read-only without a word, and while that connection
                    # lives every other one this process opens on the file is read-only too:
                    # the journal would stay unwritable here long after the fault ended.
                    connection.close()
                    raise sqlite3.OperationalError("the file is read-only just now")
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=FULL")
                connection.execute("PRAGMA busy_timeout=10000")
            except (sqlite3.Error, OSError) as exc:
                raise DatabaseUnavailable(
                    f"The journal database {self.path} cannot be opened: {exc}."
                ) from None
            if first:
                with self._pin_lock:
                    if self._pins() is None:
                        self._opened, self._opened_pid = {}, os.getpid()
            problem = self.file_problem()
            if problem:
                connection.close()
                raise journal_health.of(self).mark_lost(problem)
            self._local.connection = connection
        return connection

    def _pins(self) -> dict[str, tuple[int, int]] | None:
        return self._opened if self._opened_pid == os.getpid() else None

    def file_problem(self) -> str | None:
        """Why the files at the journal's path are not those this process opened, if so.

        Three stat() calls. A file first seen now is remembered (the -wal and -shm of a new
        journal appear with its first write); one remembered and now gone or another inode
        means the journal was deleted or replaced under this process.
        """
        pins = self._pins()
        if pins is None:
            return None  # not opened yet in this process: nothing to compare with
        for suffix, path in self._files:
            try:
                info = os.stat(path)
            except FileNotFoundError:
                if suffix in pins:
                    return f"the journal file {self.path.name}{suffix} was deleted under the server"
                continue
            except OSError as exc:
                return (
                    f"the journal file {self.path.name}{suffix} cannot be checked: {exc.strerror}"
                )
            known = pins.get(suffix)
            if known is None:
                pins[suffix] = (info.st_dev, info.st_ino)
            elif known != (info.st_dev, info.st_ino):
                return (
                    f"the journal file {self.path.name}{suffix} was replaced while the server ran"
                )
        return None

    def space_problem(self) -> str | None:
        """A full disk, seen with one statvfs() before any commit fails on it."""
        try:
            info = os.statvfs(self.path.parent)
        except OSError:
            return None  # the file checks and the commits will say what is wrong
        blocks = info.f_bfree if os.geteuid() == 0 else info.f_bavail  # root may use the reserve
        free = blocks * info.f_frsize
        if free >= LOW_SPACE_BYTES:
            return None
        return f"the journal's disk is full ({free // 1024} KiB free): free some disk space"

    @contextmanager
    def transaction(self, *, chain_lock: bool = False) -> Iterator[Cursor]:
        with self.writer_lock() if chain_lock else nullcontext():
            raw = self.begin(chain_lock=chain_lock)
            try:
                yield Cursor(raw)
            except sqlite3.Error as exc:
                self.rollback()
                self.discard_connection()
                raise DatabaseUnavailable(f"The journal could not be written: {exc}.") from None
            except BaseException:
                self.rollback()
                raise
            self.commit()

    def begin(self, *, chain_lock: bool = False) -> sqlite3.Cursor:
        """BEGIN (IMMEDIATE when `chain_lock`) on this thread's connection; its raw cursor.
        The caller holds `writer_lock` for a chain write, and ends with commit or rollback."""
        try:
            raw = self._connection().cursor()
            raw.execute("BEGIN IMMEDIATE" if chain_lock else "BEGIN")
        except sqlite3.Error as exc:
            self.discard_connection()
            raise DatabaseUnavailable(f"The journal database is not available: {exc}.") from None
        return raw

    def discard_connection(self) -> None:
        """Close this thread's connection after a failure; the next use opens a fresh one.

        A connection opened while the journal could not be written (read-only for a moment)
        is read-only for good: SQLite falls back to reading silently. Kept, it would refuse
        every write on its thread long after the fault ended, while other threads judged.
        The journal file's pin is kept (a replaced journal is still noticed); those of its
        -wal and -shm are forgotten, as SQLite deletes them when its last connection closes.
        """
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            self._local.connection = None
            with self._pin_lock:
                pins = self._pins()
                for suffix in SUFFIXES[1:]:
                    if pins is not None:
                        pins.pop(suffix, None)
            try:
                connection.close()
            except sqlite3.Error:
                pass

    def commit(self) -> None:
        """COMMIT this thread's open transaction (rolled back, and raised, if that fails)."""
        connection = self._connection()
        try:
            connection.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(connection)
            self.discard_connection()
            raise DatabaseUnavailable(f"The journal could not be written: {exc}.") from None

    def rollback(self) -> None:
        """Roll back this thread's open transaction, if any (never raises)."""
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            _rollback(connection)

    @contextmanager
    def writer_lock(self) -> Iterator[None]:
        """An flock shared by every process on this file: writers queue and wake at once,
        instead of polling in SQLite's busy handler (which sleeps up to 100 ms a try)."""
        owner, handle = getattr(self._local, "lock_file", (None, None))
        if owner != os.getpid():  # a forked child must not share its parent's open file
            try:
                lock_path = self.path.with_name(self.path.name + ".lock")
                handle = os.fdopen(open_owner_only(lock_path, os.O_WRONLY | os.O_APPEND), "a")
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
        """Close this thread's connection; the next one opens (and remembers) the files anew."""
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None
            with self._pin_lock:
                self._opened = None  # SQLite may delete -wal and -shm when the last one closes


def _rollback(connection: sqlite3.Connection) -> None:
    try:
        connection.execute("ROLLBACK")
    except sqlite3.Error:
        pass
