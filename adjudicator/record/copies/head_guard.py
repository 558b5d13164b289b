"""A mirrored journal's head comparison around each chain write: does each copy end where
the chain was left?

Before each chain write, each copy's head (its journal id, newest row number and hash: indexed
look-ups in one statement) is compared with the head last committed (committed_head.py: the
highest record kept in the copies that verifies, or this process's own last commit if higher).
A copy that ends anywhere else was changed behind the hall's back (rows deleted in place, rows
written by hand) and is dropped; the row where it parts from a good copy is found by bisection
and reported. Two copies that both end where the chain was left are equal. When no copy does,
the rows proven committed are missing: they are recorded first (a rollback).

With no remembered head at all (a first commit, or every record gone), the copies are only
compared with each other: a copy that is a prefix of the other is behind and dropped; two that
part disagree. At the commit, the head it makes is written into every copy, in the same
transaction. One guard per journal per process; the transaction gives it the copies' heads and
records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from adjudicator.record.copies import committed_head
from adjudicator.record.copies.committed_head import Head
from adjudicator.record.journal.receipt_key import ReceiptKeyError, SigningKey

# The copy's journal id, newest row and head record, in one statement of indexed look-ups (one
# row; NULLs for an empty journal or a copy with no record yet).
HEAD_SQL = (
    "SELECT (SELECT journal_id FROM journal_identity LIMIT 1), "
    "(SELECT id FROM adjudications ORDER BY id DESC LIMIT 1), "
    "(SELECT row_hash FROM adjudications ORDER BY id DESC LIMIT 1), "
    "(SELECT record FROM journal_head WHERE slot = 1)"
)
HASH_AT_SQL = "SELECT row_hash FROM adjudications WHERE id = ?"

HashAt = Callable[[str, int], str | None]  # (role, row id) -> that copy's hash of the row


@dataclass(frozen=True)
class Finding:
    """A copy to drop: which, where it parts from the chain (None: its journal id differs or
    nowhere found), and why, for the director."""

    role: str
    row: int | None
    reason: str


@dataclass
class Outcome:
    """What the comparison found: copies to drop, and the head the good copies share."""

    drop: list[Finding] = field(default_factory=list)
    agreed: Head | None = None
    disagree: bool = False  # no remembered head, and the copies part: the director chooses


def head_from_row(row: tuple | None) -> Head | None:
    """A Head from HEAD_SQL's row (None when the journal has no identity yet)."""
    if row is None or not row[0]:
        return None
    return Head(row[0], int(row[1] or 0), row[2] or Head(row[0], 0).hash)


def record_from_row(row: tuple | None) -> str | None:
    """The head record in HEAD_SQL's row, if the copy has one."""
    return row[3] if row is not None and len(row) > 3 else None


def first_difference(good: str, bad: str, upto: int, hash_at: HashAt) -> int:
    """The first row at which copy `bad` parts from copy `good`, looking no further than
    `upto` (+1 when they agree that far): bisection on the chained hashes, ~20 reads at 1M."""
    low, high = 0, upto  # rows 1..low agree; the answer is in low+1..high+1
    while low < high:
        middle = (low + high + 1) // 2
        theirs = hash_at(bad, middle)
        if theirs is not None and theirs == hash_at(good, middle):
            low = middle
        else:
            high = middle - 1
    return low + 1


def compare(heads: dict[str, Head], remembered: Head | None, hash_at: HashAt) -> Outcome:
    """Which copies end where the chain was left (see the module's docstring)."""
    if remembered is None:
        return _pairwise(heads, hash_at)
    if all(head == remembered for head in heads.values()):
        return Outcome(agreed=remembered)  # the usual case: every copy where it was left
    good = [role for role, head in heads.items() if head == remembered]
    outcome = Outcome()
    if not good:
        return outcome  # agreed stays None: the caller records the rows missing
    for role, head in heads.items():
        if role not in good:
            outcome.drop.append(_finding(role, head, good[0], remembered, hash_at))
    outcome.agreed = remembered
    return outcome


def _finding(role: str, head: Head, good: str, newest: Head, hash_at: HashAt) -> Finding:
    if head.journal != newest.journal:
        return Finding(
            role,
            None,
            f"it names another journal (id {head.journal[:8]}, not {newest.journal[:8]})",
        )
    row = first_difference(good, role, min(head.id, newest.id), hash_at)
    if row > head.id:
        return Finding(
            role,
            row,
            f"it ends at row {head.id}, but rows up to {newest.id} were recorded "
            "(rows deleted in place, or a commit it missed)",
        )
    return Finding(
        role, row, f"its row {row} is not the row recorded (written or changed behind the hall)"
    )


def _pairwise(heads: dict[str, Head], hash_at: HashAt) -> Outcome:
    """No remembered head: equal copies agree; a prefix is behind; copies that part disagree."""
    roles = list(heads)
    if len(roles) == 1 or all(heads[r].same(heads[roles[0]]) for r in roles):
        return Outcome(agreed=heads[roles[0]])
    first, second = roles[0], roles[1]
    a, b = heads[first], heads[second]
    if a.journal != b.journal:
        return Outcome(disagree=True)
    longer, shorter = (first, second) if a.id >= b.id else (second, first)
    row = first_difference(longer, shorter, heads[shorter].id, hash_at)
    if row <= heads[shorter].id:
        return Outcome(disagree=True)
    finding = Finding(
        shorter,
        row,
        f"it ends at row {heads[shorter].id}, behind the other copy (row {heads[longer].id})",
    )
    return Outcome(drop=[finding], agreed=heads[longer])


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
        self._records: committed_head.Records | None = None
        self._known: Head | None = None  # the head this process last saw committed

    def records(self) -> committed_head.Records:
        if self._records is None:
            self._records = committed_head.Records(self._key().derived(committed_head.PURPOSE))
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
        outcome = compare(heads, remembered, copies.hash_at)
        if outcome.agreed is None and not outcome.disagree:
            assert remembered is not None  # rows proven committed are missing: say so first
            outcome = compare(heads, None, copies.hash_at)
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
