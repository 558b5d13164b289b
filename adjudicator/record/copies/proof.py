"""What a copy of the journal must prove before the hall trusts it, serves it or copies it.

A copy is **whole** when fork_check.judge finds it proven: its chain verifies in full (every
row, from row 1), no signed statement contradicts it (it is no fork), and it holds every row
proven recorded, unchanged: the row of each signed high-water mark, of the head last committed
(the record the copies keep), of each kiosk's newest signed receipt, of each signed checkpoint,
and of each rollback still open; from the first keyed row on, every row's keyed hash verifies.
A proven row filled by `journal accept-loss` (a void "lost" row at its number) counts as held:
the loss was recorded. The rows the other copy holds are the comparison's (standing.py): a copy
only behind the other lacks them.

Only a whole copy is the source of a rebuild, and a fork is never one. The statements kept in a
copy (receipts, checkpoints, the keyed statement, rollbacks) are read from both copies and
checked with the hall's key (signed_statements.py), so a copy cannot vouch for itself by
forgetting them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from adjudicator.record.copies import committed_head, standing
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import chain_walk, receipt_key, rollbacks, row_keys
from adjudicator.record.proofs import fork_check, high_water, signed_statements
from adjudicator.record.proofs.fork_check import Fork, Judgement, Proof, Statements


@dataclass(frozen=True)
class Examined:
    """One copy, examined: its head, and what fork_check found (None: the file is missing)."""

    role: str
    path: str
    head: standing.CopyHead
    judged: Judgement | None = None

    @property
    def fork(self) -> Fork | None:
        return self.judged.fork if self.judged is not None else None

    @property
    def broken_at(self) -> int | None:
        """The first bad row, if its chain does not verify."""
        judged = self.judged  # rows 1..verified_to verified: the chain breaks just after them
        return judged.verified_to + 1 if judged is not None and judged.broken else None

    @property
    def broken(self) -> str:
        return self.judged.broken if self.judged is not None else ""

    @property
    def missing(self) -> tuple[Proof, ...]:
        return self.judged.missing if self.judged is not None else ()

    @property
    def whole(self) -> bool:
        return self.judged is not None and self.judged.state == "proven"

    def describe(self) -> str:
        """What is wrong with it, for the director ('' when it is whole)."""
        if self.judged is None:
            return f"the {self.role} ({self.path}) is missing"
        if self.fork is None and self.missing and not self.broken:
            last = max(self.missing, key=lambda proof: proof.row)
            return (
                f"the {self.role} ends at row {self.head.rows}, but {last.source} proves that "
                f"row {last.row} was recorded"
            )
        if self.fork is None and self.broken:
            return f"the {self.role}'s chain is broken at row {self.broken_at} ({self.broken})"
        return self.judged.describe(f"the {self.role}")

    @property
    def usable_to(self) -> int:
        """The rows it holds that can be trusted: up to the first bad row, or all of them."""
        if self.fork is not None:
            return self.fork.first - 1
        return self.head.rows if self.broken_at is None else self.broken_at - 1


def examine(
    role: str,
    path: str,
    statements: Mapping[str, Statements],
    full: bool = True,
    chained: chain_walk.Walk | None = None,
) -> Examined:
    """Judge the copy at `path` against the statements about its journal (fork_check): its
    whole chain walked (or `chained`, its chain walked already), or (`full=False`, a copy
    proven already: proven_copies.py) only the rows the statements name looked up."""
    head = standing.head(path)
    if not head.exists:
        return Examined(role, path, head)
    journal_id = str(head.journal_id or "")
    about = statements.get(journal_id) or Statements(journal_id)
    copy = SqliteDatabase(path, create_folder=False)
    try:
        judged = fork_check.judge(copy, about, full=full, chained=chained)
    except DatabaseUnavailable as exc:
        judged = Judgement(head.rows, 0, str(exc), broken_at=1)
    finally:
        copy.close()
    return Examined(role, path, head, judged)


def missing_rows(best: Examined) -> tuple[int, int] | None:
    """The rows proven recorded that the best copy cannot give: (first, last), or None."""
    if best.whole:
        return None
    last = max([proof.row for proof in best.missing] + [best.head.rows])
    first = best.usable_to + 1
    if best.broken_at is None and best.fork is None:
        first = min(proof.row for proof in best.missing) if best.missing else first
        first = min(first, best.head.rows + 1)
    return first, max(first, last)


def for_journal(db: MirroredDatabase, journal_id: str) -> Statements:
    """Every signed statement about journal `journal_id`: the signed high-water marks (in the
    data home and beside each copy), the head last committed (kept in the copies), and what
    the copies keep (receipts, checkpoints, the keyed statement, rollbacks)."""
    key_path = db.key_path or receipt_key.key_path()
    paths = db.written_paths()  # a withheld mirror is not this journal's: nothing read there
    return statements_of(paths, db.signing_key(), key_path, journal_id, db.heads)


def statements_of(
    paths: list[str],
    key: receipt_key.SigningKey,
    key_path: Path,
    journal_id: str,
    heads=None,
    beside: list[str] | None = None,
) -> Statements:
    """`for_journal` for any copies (`paths`), checked with `key` (the marks kept beside
    `key_path` and beside each copy, or each of `beside`: where a snapshot's copy was taken
    from); `heads`, the journal's own HeadGuard where it has one (else the head records are
    checked with the key's own secret): a stick's copy on a laptop taking the hall over
    (hall/kit/stick_copy.py)."""
    places = high_water.places(key_path, paths if beside is None else beside)
    sealed = (
        heads.records()
        if heads is not None
        else committed_head.Records(key.derived(committed_head.PURPOSE))
    )
    committed = sealed.highest([_record(path) for path in paths], journal_id)
    head = []
    if committed is not None and committed.id > 0:
        # The hall's own note, like a rollback: sealed, but re-sealed where the copies stand
        # when a rollback is recorded (head_guard), so it says rows are missing, never which
        # rows are the hall's (it never decides a fork).
        head.append(
            Proof(committed.id, committed.hash, rollbacks.HEAD_SOURCE, journal_id, signed=False)
        )
    secret = row_keys.secret(key)
    return signed_statements.gather(journal_id, paths, places, key.public, secret, head)


def remember(db: MirroredDatabase, head: standing.CopyHead) -> None:
    """The copies were proven to stand together at `head` (at start, after a resync): keep
    its sealed record in each (their commits write it from then on)."""
    if not head.journal_id:
        return
    record = db.heads.record_of(committed_head.Head(head.journal_id, head.rows, head.last_hash))
    for path in db.paths.values():
        if not Path(path).is_file():
            continue
        connection = sqlite3.connect(f"file:{quote(path)}?mode=rw", uri=True, timeout=10)
        try:
            with connection:
                connection.execute(committed_head.WRITE_SQL, (record,))
        except sqlite3.Error:
            pass  # an older schema: the migrations make the table, the next commit the record
        finally:
            connection.close()


def _record(path: str) -> str | None:
    """The head record a copy keeps (committed_head.py), if any."""
    found = signed_statements.query(path, committed_head.READ_SQL)
    return found[0][0] if found else None


def record_missing(db: MirroredDatabase, best: Examined, examined: dict[str, Examined]) -> str:
    """Record that no copy is whole (a rollback: judging stops); what the director is told."""
    first, last = missing_rows(best) or (best.head.rows + 1, best.head.rows + 1)
    if best.fork is not None:
        fork = best.fork
        rollbacks.found(
            db,
            fork.row,
            f"{rollbacks.FORK}{fork.row}",
            f"the {best.role}'s {fork.against}",
            best.head.rows,
        )
        states = "; ".join(e.describe() for e in examined.values() if not e.whole)
        return (
            f"NO COPY OF THE JOURNAL IS WHOLE ({states}). No verdict is recorded. "
            + rollbacks.FORK_REMEDIES
        )
    if best.broken_at is not None:
        row_hash = f"{rollbacks.BROKEN} {best.broken_at}"  # no row ever has this hash
        source = f"the {best.role}'s chain is broken at row {best.broken_at} ({best.broken}),"
    else:
        proof = max(best.missing, key=lambda p: p.row)
        row_hash, source = proof.hash, proof.source
    rollbacks.found(db, last, row_hash, source, first - 1)
    states = "; ".join(e.describe() for e in examined.values() if not e.whole)
    return (
        f"NO COPY OF THE JOURNAL IS WHOLE ({states}): rows {first} to {last} are missing. "
        "No verdict is recorded until they are back. Restore a backup that holds them (stop "
        "the hall, copy the backup over the journal, start it again), or, if they are gone for "
        "good, run `adjudicator journal accept-loss --reason TEXT`."
    )
