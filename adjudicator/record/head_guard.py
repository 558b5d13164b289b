"""A mirrored journal's head comparison around each chain write (the logic: head_check.py).

Before: each copy's head against the head remembered as last committed (the highest record
beside the copies that verifies, or this process's own last commit if higher); copies that
end elsewhere are dropped, and when none holds the head the rows missing are recorded first.
Around the commit: the head it will make is written beside the copies as pending, then as
committed. One guard per journal per process; the transaction gives it the copies' heads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from adjudicator.record import chain_head, head_check
from adjudicator.record.chain_head import Head, Remembered
from adjudicator.record.receipt_key import SigningKey


class Copies(Protocol):
    """What the guard needs of a transaction on the live copies."""

    def read_heads(self) -> dict[str, Head] | None: ...
    def hash_at(self, role: str, row_id: int) -> str | None: ...
    def record_rollback(self, proven: Head, head: int) -> None: ...
    def serving_role(self) -> str: ...


class HeadGuard:
    """The remembered head of one mirrored journal, in this process and beside its copies."""

    def __init__(self, copy_paths: Iterable[str], key: Callable[[], SigningKey]):
        self.copy_paths = list(copy_paths)
        self.on = True  # off only in the benchmark that measures the comparison
        self._key = key
        self._files: chain_head.HeadFiles | None = None
        self._known: Remembered | None = None  # the head this process last saw committed

    def files(self) -> chain_head.HeadFiles:
        if self._files is None:
            secret = self._key().derived(chain_head.PURPOSE)
            self._files = chain_head.HeadFiles(self.copy_paths, secret)
        return self._files

    def forget(self) -> None:
        """Forget this process's own head (the records beside the copies count alone)."""
        self._known = None

    def remembered(self, heads: dict[str, Head]) -> Remembered | None:
        """The head to compare with: the highest record that verifies, or this process's own
        last commit when higher (a record put back from earlier); None if neither names the
        journal any copy holds (a journal begun anew since)."""
        record = self.files().read(None)
        known = self._known
        if known is not None and (
            record is None
            or record.committed.journal != known.committed.journal
            or record.committed.id < known.committed.id
        ):
            record = known
        if record is not None and all(
            head.journal != record.committed.journal for head in heads.values()
        ):
            return None
        return record

    def before(
        self,
        copies: Copies,
        drop: Callable[[str, str, int], object],
        disagree: Callable[[], Exception],
    ) -> Head | None:
        """Under the chain lock, before anything is written: drop each copy that does not end
        where the chain was last committed; if none does, record the rows missing first (a
        rollback); copies that part with nothing to tell them apart raise `disagree()`. The
        head the copies share now (None for a journal being made)."""
        heads = copies.read_heads()
        if heads is None:
            return None
        remembered = self.remembered(heads)
        outcome = head_check.compare(heads, remembered, copies.hash_at)
        if outcome.agreed is None and not outcome.disagree:
            assert remembered is not None  # rows proven committed are missing: say so first
            copies.record_rollback(remembered.committed, heads[copies.serving_role()].id)
            outcome = head_check.compare(heads, None, copies.hash_at)
        if outcome.disagree:
            raise disagree()
        assert outcome.agreed is not None
        for finding in outcome.drop:
            drop(finding.role, finding.reason, finding.row if finding.row is not None else 1)
        self._known = Remembered(outcome.agreed)
        if remembered is None or not remembered.committed.same(outcome.agreed):
            self.files().write(self._known)  # the copies' shared head, now remembered
        return outcome.agreed

    def around_commit(
        self, start: Head | None, after: Head | None, commit: Callable[[], None]
    ) -> None:
        """Run `commit`; if it moves the head from `start` to `after`, say so beside the copies
        before (pending) and after (committed)."""
        if after is None or after.same(start):
            commit()
            return
        self.files().write(Remembered(start or after, after))
        commit()
        self._known = Remembered(after)
        self.files().write(self._known)

    def remember(self, head: Head) -> None:
        """The copies were proven to stand together at `head` (at start, after a resync)."""
        self._known = Remembered(head)
        self.files().write(self._known)
