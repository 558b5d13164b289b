"""The highest row this hall ever issued a receipt for, signed, beside the key and every copy.

Kept outside the journal's file, so a journal moved backwards (a restored copy, a swapped disk)
across a restart is noticed by the server itself, before any kiosk polls: the start
(journal_proof.check) records a rollback when the journal ends before the mark (rollbacks.py),
and a fork when it holds another row there (fork_check.py). Advanced as each
receipt is issued, under a file lock shared by the workers, never backwards. The mark is that
receipt itself (already signed: no second signature per verdict), or a signed mark of its own
when no receipt is at hand. It is one slot rewritten in place (no rename per verdict), not
fsynced: a crash may keep the previous mark, and the kiosks' receipts still witness the last
rows.

The mark is kept in the data home (beside the key) and beside every SQLite copy of the journal
(`journal.sqlite3.high-water`, on the USB stick too), and the highest that verifies counts: a
snapshot of the laptop's disk does not shed the stick's mark, nor the other way round. It is
bound to the key as well as to the journal's id: a journal the key never began
(journal_begun.py) is refused, whatever its id says, so changing the id by hand sheds nothing.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adjudicator.durable import open_owner_only
from adjudicator.record.database.db import Database
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok
from adjudicator.record.proofs import journal_begun

SUFFIX = ".high-water"
SLOT = 4096  # the mark, padded: one page, rewritten in place
MARK_TYPES = ("high-water", "receipt", journal_begun.TYPE)


def path_for(key_path: Path) -> Path:
    """The mark in the data home, beside the key."""
    return key_path.with_name(key_path.name + SUFFIX)


def beside(copy_path: str) -> Path:
    """The mark beside one SQLite copy of the journal."""
    return Path(str(copy_path) + SUFFIX)


def copy_paths(db: Database) -> list[str]:
    """The SQLite files of a journal (both copies of a mirrored one, but a mirror this laptop
    may not write: copies/mirror_identity.py; none for PostgreSQL)."""
    written = getattr(db, "written_paths", None)
    if written is not None:
        return [str(path) for path in written()]
    paths = getattr(db, "paths", None)
    if isinstance(paths, dict):
        return [str(path) for path in paths.values()]
    path = getattr(db, "path", None)
    return [str(path)] if db.backend == "sqlite" and path is not None else []


def places(key_path: Path, copies: Iterable[str]) -> list[Path]:
    """Every place the mark is kept: the data home's first, then beside each copy."""
    found = [path_for(key_path)]
    for copy in copies:
        if beside(copy) not in found:
            found.append(beside(copy))
    return found


class HighWater:
    """The mark files of one key; `advance` is cheap when the row is not newer than the last."""

    def __init__(self, key: SigningKey, key_path: Path, copies: Iterable[str] = ()):
        self.key = key
        self.path = path_for(key_path)
        self.others = places(key_path, copies)[1:]
        self._last: tuple[str | None, int] = (None, 0)  # (journal, row) last written or read
        self._written: tuple[bytes, str | None, int] = (b"", None, 0)  # slot, journal, row
        # ... this process last wrote in the data home's: read back unchanged, it is not parsed
        self._open: dict[Path, tuple[int, int]] = {}  # path -> (pid, fd) of each mark file
        self._lock = threading.Lock()

    def advance(
        self,
        journal_id: str | None,
        row_id: int,
        row_hash: str,
        receipt: dict | None = None,
        keyed_from: int | None = None,
    ) -> None:
        """Move the mark up to this row; `receipt`, the row's signed receipt, is kept as the
        mark when given (it names the first keyed row; a mark of its own names `keyed_from`)."""
        if not journal_id or (self._last[0] == journal_id and row_id <= self._last[1]):
            return
        try:
            with self._lock:  # flock excludes other processes; this, this process's threads
                self._write_if_higher(journal_id, row_id, row_hash, receipt, keyed_from)
        except OSError:
            pass  # the mark is a second witness; the receipt itself was issued

    def _write_if_higher(
        self,
        journal_id: str,
        row_id: int,
        row_hash: str,
        receipt: dict | None,
        keyed_from: int | None,
    ) -> None:
        fd = self._fd(self.path)
        assert fd is not None  # the data home's: an error there is raised
        fcntl.flock(fd, fcntl.LOCK_EX)  # the data home's lock stands for every place
        try:
            slot = os.pread(fd, SLOT, 0)
            written, marked, marked_id = self._written
            if slot != written:  # another process's mark: its id only (we sign our own)
                mark = _parse(slot)
                marked, marked_id = (mark.get("journal"), mark.get("id", 0)) if mark else (None, 0)
            if marked == journal_id and marked_id >= row_id:
                self._last = (journal_id, marked_id)
                return
            text = json.dumps(receipt, sort_keys=True).encode() if receipt else b""
            if not text or len(text) > SLOT:
                body = {"type": "high-water", "journal": journal_id, "id": row_id, "at": _now()}
                if keyed_from is not None:
                    body["keyed_from"] = keyed_from
                text = json.dumps(self.key.sign({**body, "row_hash": row_hash})).encode()
            slot = text.ljust(SLOT)
            self._write_all(fd, slot)
            self._last, self._written = (journal_id, row_id), (slot, journal_id, row_id)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def put(self, mark: dict[str, Any]) -> None:
        """Write `mark` (signed) in every place whatever they hold: a journal begun anew."""
        fd = self._fd(self.path)
        assert fd is not None
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            slot = json.dumps(mark, sort_keys=True).encode().ljust(SLOT)
            self._write_all(fd, slot)
            self._last = (mark["journal"], mark["id"])
            self._written = (slot, mark["journal"], mark["id"])
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _write_all(self, fd: int, slot: bytes) -> None:
        """One slot, in place (no rename per verdict), in the data home and beside each copy
        whose disk is there (one that is not is skipped: its copy fails and is dropped too)."""
        os.pwrite(fd, slot, 0)
        for other in self.others:
            other_fd = self._fd(other, must=False)
            if other_fd is not None:
                try:
                    os.pwrite(other_fd, slot, 0)
                except OSError:
                    self._open.pop(other, None)

    def _fd(self, path: Path, must: bool = True) -> int | None:
        """A mark file, opened once per process (a forked worker opens its own)."""
        opened = self._open.get(path)
        if opened is None or opened[0] != os.getpid():
            try:
                fd = open_owner_only(path, os.O_RDWR)
            except OSError:
                if must:
                    raise
                return None
            opened = self._open[path] = (os.getpid(), fd)
        return opened[1]


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        mark = json.loads(raw.decode("utf-8").strip() or "null")
    except (UnicodeDecodeError, ValueError):
        return None
    return mark if isinstance(mark, dict) and isinstance(mark.get("id"), int) else None


def read(path: Path, public) -> dict[str, Any] | None:
    """The mark, if there is one and its signature verifies with this hall's key."""
    try:
        mark = _parse(path.read_bytes()[:SLOT])
    except OSError:
        return None
    if not isinstance(mark, dict) or mark.get("type") not in MARK_TYPES:
        return None
    if not isinstance(mark.get("id"), int) or not signature_ok(mark, public):
        return None
    return mark


def all_marks(paths: Iterable[Path], public) -> list[dict[str, Any]]:
    """Every mark that verifies with the key, from each of `paths`."""
    found = (read(path, public) for path in paths)
    return [mark for mark in found if mark is not None]


def highest(marks: Iterable[dict[str, Any]], journal_id: str | None) -> dict[str, Any] | None:
    """The highest of the marks that name `journal_id`: the one that counts."""
    named = [mark for mark in marks if journal_id and mark.get("journal") == journal_id]
    return max(named, key=lambda mark: mark["id"]) if named else None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def begin_journal(db: Database, key: SigningKey, key_path: Path, reason: str) -> dict[str, Any]:
    """`journal begin`: the key begins this new, empty journal after the newest one it signed
    rows of (journal_begun.begin); the statement becomes the mark in every place."""
    copies = copy_paths(db)
    made = journal_begun.begin(db, key, all_marks(places(key_path, copies), key.public), reason)
    HighWater(key, key_path, copies).put(made)
    return made


def adopt(db: Database, key: SigningKey, key_path: Path, reason: str) -> None:
    """After the director accepted a loss: a journal the key had not begun is begun now, after
    the newest journal it signed rows of (the loss of those rows is what was accepted)."""
    marks = all_marks(places(key_path, copy_paths(db)), key.public)
    journal_begun.adopt(db, key, marks, reason)
