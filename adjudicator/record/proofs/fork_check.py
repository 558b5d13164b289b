"""Is this copy of the journal the record the hall kept? The one entry point: `judge`.

A copy is held against every **signed statement** about its journal (`Statements`): the rows
that the high-water mark, a checkpoint, a kiosk's receipt or the head last committed prove
recorded, with their hashes, and the keyed hash every row carries from the first keyed row on
(row_keys.py). The judgement is one of:
- **proven**: its chain verifies and no statement contradicts it (rows the statements do not
  reach, written before keying began, are read as they are);
- a **fork**: a row it holds differs from what a statement proves (a hash, or a keyed hash
  missing or wrong). It is another history, whoever made it: never a loss to accept, never the
  source of a rebuild. `Fork.row` is the first row that contradicts a statement; the first row
  that differs lies between `Fork.first` and it (one row when they are equal);
- **rows missing**: it agrees with every statement, but ends before rows they prove (a backup,
  a rollback); `journal accept-loss` may record those numbers as lost;
- **broken**: its chain does not verify past some row (damage); only the rows before count.
A fork wins over the others. Without the hall's private key (a backup checked on another
computer) the keyed hashes cannot be checked: `keyed_checked` is False.

`judge(copy, statements)` walks the whole chain (chain_walk.py). `full=False` looks up only the
rows the statements name and the newest row's keyed hash (bisecting to where keying fails): a
few indexed reads, for a start without a mirror and for `journal status`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from adjudicator.record.database.db import Database
from adjudicator.record.journal import chain_walk
from adjudicator.record.journal.rollbacks import LOST_TEXT
from adjudicator.record.journal.row_keys import RowSecret


@dataclass(frozen=True)
class Proof:
    """A row proven recorded: its number, its hash, what proves it, of which journal, and
    whether the hall's key signed it (an open rollback is the hall's own note: it can say
    rows are missing, never that a copy is a fork)."""

    row: int
    hash: str
    source: str
    journal: str = ""  # the journal's id ('' : whatever journal the copy holds)
    signed: bool = True


@dataclass(frozen=True)
class Statements:
    """Everything signed about one journal: the rows proven, and where keying began."""

    journal: str
    proofs: tuple[Proof, ...] = ()
    keyed_from: int | None = None  # the first keyed row, by the earliest statement that says
    keyed_source: str = ""  # which statement that is
    secret: RowSecret | None = None  # None: the hall's private key is not here (unchecked)


@dataclass(frozen=True)
class Fork:
    """Where a copy contradicts a signed statement."""

    row: int  # the first row that contradicts one
    first: int  # the first row that differs is in first..row
    against: str  # what it contradicts, for the director

    def where(self) -> str:
        """'row 2', or 'a row from 1 to 5' when the first difference cannot be pinned."""
        return (
            f"row {self.row}"
            if self.first >= self.row
            else f"a row from {self.first} to {self.row}"
        )


@dataclass(frozen=True)
class Judgement:
    """One copy, judged against the signed statements (see the module's docstring)."""

    rows: int  # its newest row
    verified_to: int  # its chain verifies from row 1 to here
    broken: str = ""  # what breaks the chain just after verified_to
    fork: Fork | None = None
    missing: tuple[Proof, ...] = field(default_factory=tuple)  # proven rows it does not hold
    keyed_checked: bool = True  # False: keyed rows exist, but the hall's key is not here
    last_hash: str = ""  # the hash of row verified_to (a full walk only)
    broken_at: int | None = None  # the row read where the chain breaks (a full walk only)

    @property
    def state(self) -> str:
        """'fork', 'broken', 'rows-missing' or 'proven'."""
        if self.fork is not None:
            return "fork"
        if self.broken:
            return "broken"
        return "rows-missing" if self.missing else "proven"

    @property
    def missing_to(self) -> int:
        """The highest row proven recorded that it does not hold (0: none)."""
        return max((proof.row for proof in self.missing), default=0)

    def describe(self, name: str = "the journal") -> str:
        """What is wrong with it, for the director ('' when it is proven)."""
        if self.fork is not None:
            return (
                f"{name} is a FORK at {self.fork.where()} (its {self.fork.against}): it is "
                "not the record the hall kept"
            )
        if self.broken:
            return f"{name}'s chain is broken at row {self.broken_at} ({self.broken})"
        if self.missing:
            last = max(self.missing, key=lambda proof: proof.row)
            return (
                f"{name} ends at row {self.verified_to}, but {last.source} proves that row "
                f"{last.row} was recorded"
            )
        return ""


def judge(
    copy: Database,
    statements: Statements,
    full: bool = True,
    chained: chain_walk.Walk | None = None,
) -> Judgement:
    """Hold one copy of journal `statements.journal` against every signed statement about it.

    The entry point for a copy of unknown history (the stick's, a backup): proven, a fork at a
    row, or rows missing (see the module's docstring). `chained`: its chain, walked already
    (chain_walk.walk)."""
    signed = [p for p in statements.proofs if p.signed and p.row > 0]
    keyed = None
    if statements.keyed_from is not None:
        keyed = chain_walk.Keyed(statements.journal, statements.keyed_from, statements.secret)
    read = chain_walk.row_reader(copy)
    if full:
        judged = _walked(copy, signed, keyed, statements.keyed_source, chained)
    else:
        judged = _looked_up(copy, read, signed, keyed, statements.keyed_source)
    unsigned = [p for p in statements.proofs if not p.signed and p.row > 0]
    missing = judged.missing + tuple(p for p in unsigned if not _holds(read, p))
    unchecked = keyed is not None and keyed.secret is None and judged.rows >= keyed.first
    return replace(judged, missing=missing, keyed_checked=not unchecked)


def _walked(
    copy: Database, signed: list[Proof], keyed, keyed_source: str, chained=None
) -> Judgement:
    witnessed: chain_walk.Witnessed = {}
    for proof in signed:
        witnessed.setdefault(proof.row, []).append((proof.hash, proof.source))
    found = chain_walk.walk(copy, witnessed, keyed, lost_holds=True, chained=chained)
    fork = _fork(found.agreed_to, found.unkeyed, found.contradicted, keyed, keyed_source)
    missing = tuple(p for p in signed if p.row in found.beyond) if fork is None else ()
    broken = found.problem if found.bad_id is not None else ""
    return Judgement(
        _newest(copy),
        found.rows,
        broken,
        fork,
        missing,
        last_hash=found.last_hash,
        broken_at=found.bad_id,
    )


def _looked_up(
    copy: Database,
    read: Callable[[int], tuple | None],
    signed: list[Proof],
    keyed,
    keyed_source: str,
) -> Judgement:
    """The cheap judgement: the rows the statements name, and the keyed hashes, by indexed
    look-ups, folded in row order as the walk would find them."""
    rows = _newest(copy)
    seen: list[tuple[int, int, str]] = []  # (row, 0 agreed / 1 unkeyed / 2 contradicted, who)
    for proof in signed:
        if proof.row <= rows:
            held = read(proof.row)
            if held is not None and held[0].startswith(proof.hash):
                seen.append((proof.row, 0, ""))
            elif held is None or not _is_lost(held):
                seen.append((proof.row, 2, proof.source))
    if keyed is not None and keyed.secret is not None and rows >= keyed.first:
        unkeyed = chain_walk.first_unkeyed(read, keyed.journal, keyed.secret, keyed.first - 1, rows)
        if unkeyed is None:
            seen.append((rows, 0, ""))
        else:
            seen += [(unkeyed - 1, 0, "")] if unkeyed > keyed.first else []
            seen.append((unkeyed, 1, ""))
    agreed, unkeyed, contradicted = 0, None, None
    for row, kind, source in sorted(seen, key=lambda seen_row: (seen_row[0], seen_row[1] == 2)):
        if kind == 2:
            contradicted = (row, source)
            break
        agreed, unkeyed = (row, None) if kind == 0 else (agreed, unkeyed or row)
    fork = _fork(agreed, unkeyed, contradicted, keyed, keyed_source)
    missing = tuple(p for p in signed if p.row > rows) if fork is None else ()
    return Judgement(rows, rows, "", fork, missing)


def _fork(
    agreed_to: int,
    unkeyed: int | None,
    contradicted: tuple[int, str] | None,
    keyed,
    keyed_source: str,
) -> Fork | None:
    """The fork the walk's findings make, if any: the first row that contradicts a statement."""
    found = []
    if contradicted is not None:
        row, source = contradicted
        found.append((row, f"row {row} is not the row {source} proves was recorded"))
    if unkeyed is not None:
        found.append(
            (
                unkeyed,
                f"row {unkeyed} carries no valid keyed hash, though the hall keys every row "
                f"from row {keyed.first} on ({keyed_source or 'its signed statement'})",
            )
        )
    if not found:
        return None
    row, against = min(found)
    return Fork(row, min(agreed_to + 1, row), against)


def _newest(copy: Database) -> int:
    with copy.transaction() as cur:
        row = cur.execute("SELECT MAX(id) AS id FROM adjudications").one()
    return int(row["id"] or 0) if row else 0


def _is_lost(row: tuple) -> bool:
    return (row[2], row[3]) == ("void", LOST_TEXT)


def _holds(read: Callable[[int], tuple | None], proof: Proof) -> bool:
    """The copy holds the proven row unchanged, or the void row of its accepted loss."""
    held = read(proof.row)
    return held is not None and (held[0] == proof.hash or _is_lost(held))
