"""The highest row this hall ever issued a receipt for, signed, in a file beside the hall's key.

Kept outside the journal's file, so a journal moved backwards (a restored copy, a swapped disk)
across a restart is noticed by the server itself, before any kiosk polls: `check` at start
records a rollback when the journal ends before the mark (rollbacks.py). Advanced as each
receipt is issued, under a file lock shared by the workers, never backwards; written by rename
(a crash keeps the previous mark, never half a file).
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from adjudicator.record import journal_health, rollbacks
from adjudicator.record.db import Database
from adjudicator.record.receipt_key import SigningKey, signature_ok

SUFFIX = ".high-water"


def path_for(key_path: Path) -> Path:
    return key_path.with_name(key_path.name + SUFFIX)


class HighWater:
    """The mark file of one key; `advance` is cheap when the row is not newer than the last."""

    def __init__(self, key: SigningKey, key_path: Path):
        self.key = key
        self.path = path_for(key_path)
        self._last: tuple[str | None, int] = (None, 0)  # (journal, row) last written or read

    def advance(self, journal_id: str | None, row_id: int, row_hash: str) -> None:
        if not journal_id or (self._last[0] == journal_id and row_id <= self._last[1]):
            return
        try:
            with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                mark = read(self.path, self.key.public)
                if mark and mark["journal"] == journal_id and mark["id"] >= row_id:
                    self._last = (journal_id, mark["id"])
                    return
                body = self.key.sign(
                    {
                        "type": "high-water",
                        "journal": journal_id,
                        "id": row_id,
                        "row_hash": row_hash,
                    }
                )
                partial = self.path.with_name(f"{self.path.name}.{os.getpid()}")
                partial.write_text(json.dumps(body, sort_keys=True))
                os.replace(partial, self.path)
                self._last = (journal_id, row_id)
        except OSError:
            pass  # the mark is a second witness; the receipt itself was issued


def read(path: Path, public) -> dict[str, Any] | None:
    """The mark, if there is one and its signature verifies with this hall's key."""
    try:
        mark = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(mark, dict) or mark.get("type") != "high-water":
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
