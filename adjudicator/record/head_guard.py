"""A mirrored journal's head comparison around each chain write (the logic: head_check.py).

Before: each copy's head against the head last committed (the highest record kept inside the
copies that verifies, chain_head.py, or this process's own last commit if higher); copies
that end elsewhere are dropped, and when none holds the head the rows missing are recorded
first. At the commit: the head it makes is written into every copy, in the same transaction.
One guard per journal per process; the transaction gives it the copies' heads and records.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from adjudicator.record import chain_head, head_check
from adjudicator.record.chain_head import Head
from adjudicator.record.receipt_key import ReceiptKeyError, SigningKey


class Copies(Protocol):
    """What the guard needs of a transaction on the live copies."""

    def read_heads(self) -> tuple[dict[str, Head], list[str | None]] | None: ...
    def hash_at(self, role: str, row_id: int) -> str | None: ...
    def record_rollback(self, proven: Head, head: int, record: str) -> None: ...
    def serving_role(self) -> str: ...
    def write_record(self, record: str) -> None: ...


class HeadGuard:
    """The head last committed of one mirrored journal, as this process knows it."""

    def __init__(self, key: Callable[[], SigningKey]):
        self.on = True  # off only in the benchmark that measures the comparison
        self._key = key
        self._records: chain_head.Records | None = None
        self._known: Head | None = None  # the head this process last saw committed

    def records(self) -> chain_head.Records:
        if self._records is None:
            self._records = chain_head.Records(self._key().derived(chain_head.PURPOSE))
        return self._records

    def record_of(self, head: Head) -> str:
        """The sealed record of `head`, as a commit writes it."""
        return self.records().sealed(head)

    def forget(self) -> None:
        """Forget this process's own head (the records in the copies count alone)."""
        self._known = None

    def remembered(self, heads: dict[str, Head], records: list[str | None]) -> Head | None:
        """The head to compare with: the highest record that verifies, or this process's own
        last commit when higher (a record put back from earlier); None if neither names the
        journal any copy holds."""
        best = self.records().highest(records)
        known = self._known
        if known is not None and (
            best is None or best.journal != known.journal or best.id < known.id
        ):
            best = known
        if best is not None and all(head.journal != best.journal for head in heads.values()):
            return None
        return best

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
        found = copies.read_heads()
        if found is None:
            return None
        heads, records = found
        try:
            remembered = self.remembered(heads, records)
        except ReceiptKeyError:
            # The records are checked with the hall's key: without it a write that moves the
            # head is refused at its commit (its record cannot be sealed: at_commit), while one
            # that appends no row (a sign-in attempt, staff, a link) goes on, so the director
            # can still sign in and see what is wrong.
            return heads[copies.serving_role()]
        outcome = head_check.compare(heads, remembered, copies.hash_at)
        if outcome.agreed is None and not outcome.disagree:
            assert remembered is not None  # rows proven committed are missing: say so first
            outcome = head_check.compare(heads, None, copies.hash_at)
            if outcome.agreed is not None:
                serving = heads[copies.serving_role()].id
                copies.record_rollback(remembered, serving, self.record_of(outcome.agreed))
        if outcome.disagree:
            raise disagree()
        assert outcome.agreed is not None
        for finding in outcome.drop:
            drop(finding.role, finding.reason, finding.row if finding.row is not None else 1)
        self._known = outcome.agreed
        return outcome.agreed

    def at_commit(self, copies: Copies, start: Head | None, after: Head | None) -> None:
        """Before the commit: if it moves the head from `start` to `after`, write the new
        head's record into every copy, in the same transaction."""
        if after is not None and not after.same(start):
            copies.write_record(self.record_of(after))

    def committed(self, after: Head | None) -> None:
        """After the commit: this process knows the head it made."""
        if after is not None:
            self._known = after
