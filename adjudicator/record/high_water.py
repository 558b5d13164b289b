"""The highest row this hall ever issued a receipt for, signed, in a file beside the hall's key.

Kept outside the journal's file, so a journal moved backwards (a restored copy, a swapped disk)
across a restart is noticed by the server itself, before any kiosk polls: `check` at start
records a rollback when the journal ends before the mark (rollbacks.py). Advanced as each
receipt is issued, under a file lock shared by the workers, never backwards. The mark is that
receipt itself (already signed: no second signature per verdict), or a signed mark of its own
when no receipt is at hand. It is one slot rewritten in place (no rename per verdict), not
fsynced: a crash may keep the previous mark, and the kiosks' receipts still witness the last
rows.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from pathlib import Path
from typing import Any

from adjudicator.record import journal_health, rollbacks
from adjudicator.record.db import Database
from adjudicator.record.receipt_key import SigningKey, signature_ok

SUFFIX = ".high-water"
SLOT = 4096  # the mark, padded: one page, rewritten in place
MARK_TYPES = ("high-water", "receipt")


def path_for(key_path: Path) -> Path:
    return key_path.with_name(key_path.name + SUFFIX)


class HighWater:
    """The mark file of one key; `advance` is cheap when the row is not newer than the last."""

    def __init__(self, key: SigningKey, key_path: Path):
        self.key = key
        self.path = path_for(key_path)
        self._last: tuple[str | None, int] = (None, 0)  # (journal, row) last written or read
        self._open: tuple[int, int] | None = None  # (pid, fd) of the mark file
        self._lock = threading.Lock()

    def advance(
        self, journal_id: str | None, row_id: int, row_hash: str, receipt: dict | None = None
    ) -> None:
        """Move the mark up to this row; `receipt`, the row's signed receipt, is kept as the
        mark when given."""
        if not journal_id or (self._last[0] == journal_id and row_id <= self._last[1]):
            return
        try:
            with self._lock:  # flock excludes other processes; this, this process's threads
                self._write_if_higher(journal_id, row_id, row_hash, receipt)
        except OSError:
            pass  # the mark is a second witness; the receipt itself was issued

    def _write_if_higher(
        self, journal_id: str, row_id: int, row_hash: str, receipt: dict | None
    ) -> None:
        fd = self._fd()
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            mark = _parse(os.pread(fd, SLOT, 0))  # its id only: this process signs its own
            if mark and mark.get("journal") == journal_id and mark.get("id", 0) >= row_id:
                self._last = (journal_id, mark["id"])
                return
            text = json.dumps(receipt, sort_keys=True).encode() if receipt else b""
            if not text or len(text) > SLOT:
                body = {"type": "high-water", "journal": journal_id, "id": row_id}
                text = json.dumps(self.key.sign({**body, "row_hash": row_hash})).encode()
            os.pwrite(fd, text.ljust(SLOT), 0)  # one slot, in place: no rename per verdict
            self._last = (journal_id, row_id)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _fd(self) -> int:
        """The mark file, opened once per process (a forked worker opens its own)."""
        if self._open is None or self._open[0] != os.getpid():
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            self._open = (os.getpid(), fd)
        return self._open[1]


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


def check(db: Database, key: SigningKey, key_path: Path) -> rollbacks.Rollback | None:
    """At a server's start: does the journal still reach the mark? If not, a rollback."""
    mark = read(path_for(key_path), key.public)
    if mark is None or mark["journal"] != journal_health.journal_id(db):
        return None
    with db.transaction() as cur:
        row = cur.execute(
            "SELECT (SELECT MAX(id) FROM adjudications) AS head, "
            "(SELECT row_hash FROM adjudications WHERE id = ?) AS held",
            (mark["id"],),
        ).one()
    head = int(row["head"] or 0)
    if row["held"] == mark["row_hash"]:
        return None
    rollbacks.found(db, mark["id"], mark["row_hash"], "the server's signed high-water mark", head)
    return rollbacks.current(db)
