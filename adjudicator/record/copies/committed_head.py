"""The head of a mirrored journal's chain as last committed, kept inside each copy.

Each copy holds, in its one-row table `journal_head`, the head (journal id, newest row number
and hash) that the last chain write committed, written in the same transaction as the rows, so
it is committed atomically with them on each copy. The record carries a MAC made with a secret
of the hall's signing key: one written by hand does not verify. A copy rolled back in place
(rows deleted through SQLite) still says where it was, or, if its record was put back from an
older snapshot, says less than the other copy's: the highest record that verifies, across the
copies and this process's own last commit, is the head every copy must end at (head_guard.py).
"""

from __future__ import annotations

import hmac
from typing import NamedTuple

GENESIS = "0" * 64
PURPOSE = "journal-head"
WRITE_SQL = (
    "INSERT INTO journal_head (slot, record) VALUES (1, ?) "
    "ON CONFLICT (slot) DO UPDATE SET record = excluded.record"
)
READ_SQL = "SELECT record FROM journal_head WHERE slot = 1"
_UNSEEN = object()  # a record not verified yet (None is a record that does not verify)


class Head(NamedTuple):
    """A copy's newest row: its journal's id, its number (0: no rows) and its hash. A tuple:
    made and compared at every chain write."""

    journal: str
    id: int
    hash: str = GENESIS

    def same(self, other: Head | None) -> bool:
        return other is not None and tuple.__eq__(self, other)


def _mac(key: bytes, text: str) -> str:
    return hmac.digest(key, text.encode("ascii"), "sha256").hex()


def encode(head: Head, key: bytes) -> str:
    """The record of `head`, sealed with `key`."""
    text = f"{head.journal} {head.id} {head.hash}"
    return f"{text} {_mac(key, text)}"


def decode(record: str | None, key: bytes) -> Head | None:
    """The head in `record` if its MAC verifies with `key`, else None."""
    parts = (record or "").split()
    if len(parts) != 4 or not hmac.compare_digest(parts[3], _mac(key, " ".join(parts[:3]))):
        return None
    try:
        return Head(parts[0], int(parts[1]), parts[2])
    except ValueError:
        return None


class Records:
    """Records read back, each text verified once (the same record is read at every commit)."""

    def __init__(self, key: bytes):
        self.key = key
        self._seen: dict[str, Head | None] = {}

    def sealed(self, head: Head) -> str:
        """The record of `head` (known from now on: it is read back at the next commit)."""
        record = encode(head, self.key)
        self._keep(record, head)
        return record

    def _keep(self, record: str, head: Head | None) -> None:
        if len(self._seen) > 16:
            self._seen.clear()
        self._seen[record] = head

    def head(self, record: str | None) -> Head | None:
        """The head in `record` if it verifies (read once: the cache may be cleared meanwhile
        by another thread's `_keep`, so the answer is held here, never read back)."""
        if not record:
            return None
        found = self._seen.get(record, _UNSEEN)
        if found is _UNSEEN:
            found = decode(record, self.key)
            self._keep(record, found)
        return found

    def highest(self, records, journal: str | None = None) -> Head | None:
        """The highest of `records` that verifies (and names `journal`, when given)."""
        best = None
        for record in records:
            head = self.head(record)
            if head is None or (journal is not None and head.journal != journal):
                continue
            if best is None or head.id > best.id:
                best = head
        return best
