"""What a copy of the journal must prove before the hall trusts it, serves it or copies it.

A copy is **whole** when its chain verifies in full (every row, from row 1) and it holds every
row proven recorded, unchanged: the row of the signed high-water mark, of the head last
committed (the record the copies keep), of each kiosk's newest signed receipt, of each signed
checkpoint, and of each rollback still open. A proven row filled by `journal accept-loss` (a
void "lost" row at its number) counts as held: the loss was recorded. The rows the other copy
holds are the comparison's (copy_heads): a copy only behind the other lacks them.

Only a whole copy is the source of a rebuild. The proofs kept in a copy (receipts, checkpoints,
rollbacks) are read from both copies and checked with the hall's key, so a copy cannot vouch
for itself by forgetting them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator.record import chain_head, copy_heads, high_water, journal, receipt_key, rollbacks
from adjudicator.record.db import DatabaseUnavailable
from adjudicator.record.db_mirror import MirroredDatabase
from adjudicator.record.db_sqlite import SqliteDatabase
from adjudicator.record.receipt_key import signature_ok
from adjudicator.record.rollbacks import LOST_TEXT


@dataclass(frozen=True)
class Proof:
    """A row proven recorded: its number, its hash, what proves it, and of which journal."""

    row: int
    hash: str
    source: str
    journal: str = ""  # the journal's id ('' : whatever journal the copy holds)


@dataclass(frozen=True)
class Examined:
    """One copy, examined: its head, whether its chain verifies, and the proven rows it lacks."""

    role: str
    path: str
    head: copy_heads.CopyHead
    broken_at: int | None = None  # the first bad row, if its chain does not verify
    broken: str = ""  # what is wrong there
    missing: tuple[Proof, ...] = field(default_factory=tuple)

    @property
    def whole(self) -> bool:
        return self.head.exists and self.broken_at is None and not self.missing

    def describe(self) -> str:
        """What is wrong with it, for the director ('' when it is whole)."""
        if not self.head.exists:
            return f"the {self.role} ({self.path}) is missing"
        if self.broken_at is not None:
            return f"the {self.role}'s chain is broken at row {self.broken_at} ({self.broken})"
        if self.missing:
            last = max(self.missing, key=lambda proof: proof.row)
            return (
                f"the {self.role} ends at row {self.head.rows}, but {last.source} proves that "
                f"row {last.row} was recorded"
            )
        return ""

    @property
    def usable_to(self) -> int:
        """The rows it holds that can be trusted: up to the first bad row, or all of them."""
        return self.head.rows if self.broken_at is None else self.broken_at - 1


def _connect(path: str) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=10)


def _rows(path: str, sql: str) -> list[tuple]:
    if not Path(path).is_file():
        return []
    connection = _connect(path)
    try:
        return connection.execute(sql).fetchall()
    except sqlite3.Error:
        return []  # an old schema, or an unreadable file: it proves nothing
    finally:
        connection.close()


def kept_in(paths: Iterable[str], journal_id: str, public: Ed25519PublicKey) -> list[Proof]:
    """The proofs kept inside the copies: kiosks' newest receipts and checkpoints (signed by
    the hall's key, of this journal), and the rollbacks still open."""
    proofs = []
    for path in paths:
        signed = [
            (json.loads(body), f"kiosk {kiosk}'s receipt")
            for kiosk, body in _rows(path, "SELECT kiosk, receipt FROM kiosk_witnesses")
        ]
        signed += [
            (json.loads(body), "a signed checkpoint")
            for (body,) in _rows(path, "SELECT body FROM checkpoints")
        ]
        for item, source in signed:
            if (
                isinstance(item, dict)
                and item.get("journal") == journal_id
                and isinstance(item.get("id"), int)
                and isinstance(item.get("row_hash"), str)
                and signature_ok(item, public)
            ):
                proofs.append(Proof(item["id"], item["row_hash"], source, journal_id))
        if copy_heads.head(path).journal_id != journal_id:
            continue  # its rollbacks are another journal's
        proofs += [
            Proof(int(row_id), row_hash, source, journal_id)
            for row_id, row_hash, source in _rows(
                path,
                "SELECT row_id, row_hash, source FROM journal_rollbacks WHERE resolved_at IS NULL",
            )
        ]
    return proofs


def examine(role: str, path: str, proofs: Iterable[Proof]) -> Examined:
    """Verify the copy's chain in full and look up each proven row of its journal in it."""
    head = copy_heads.head(path)
    if not head.exists:
        return Examined(role, path, head)
    proofs = [proof for proof in proofs if proof.journal in ("", head.journal_id)]
    copy = SqliteDatabase(path, create_folder=False)
    try:
        result = journal.verify(copy)
    except DatabaseUnavailable as exc:
        return Examined(role, path, head, 1, str(exc))
    finally:
        copy.close()
    missing = tuple(proof for proof in proofs if not _holds(path, proof))
    if not result.ok:  # rows 1..result.rows verified: the chain breaks just after them
        return Examined(role, path, head, result.rows + 1, result.problem, missing)
    return Examined(role, path, head, missing=missing)


def _holds(path: str, proof: Proof) -> bool:
    """The copy holds the proven row unchanged, or the void row of its accepted loss."""
    connection = _connect(path)
    try:
        row = connection.execute(
            "SELECT row_hash, kind, consequence FROM adjudications WHERE id = ?", (proof.row,)
        ).fetchone()
    except sqlite3.Error:
        return False
    finally:
        connection.close()
    return row is not None and (row[0] == proof.hash or (row[1], row[2]) == ("void", LOST_TEXT))


def missing_rows(best: Examined) -> tuple[int, int] | None:
    """The rows proven recorded that the best copy cannot give: (first, last), or None."""
    if best.whole:
        return None
    last = max([proof.row for proof in best.missing] + [best.head.rows])
    first = best.usable_to + 1
    if best.broken_at is None:
        first = min(proof.row for proof in best.missing) if best.missing else first
        first = min(first, best.head.rows + 1)
    return first, max(first, last)


def for_journal(db: MirroredDatabase, journal_id: str) -> list[Proof]:
    """Every row proven recorded in journal `journal_id`: the highest signed high-water mark
    (in the data home and beside each copy), the head last committed (kept in the copies), and
    what the copies keep (receipts, checkpoints, rollbacks)."""
    key_path = db.key_path or receipt_key.key_path()
    return proven(list(db.paths.values()), db.signing_key(), key_path, journal_id, db.heads)


def proven(
    paths: list[str], key: receipt_key.SigningKey, key_path: Path, journal_id: str, heads=None
) -> list[Proof]:
    """`for_journal` for any copies: `paths`, checked with `key` (the marks kept beside
    `key_path` and beside each copy); `heads`, the journal's own HeadGuard if it has one."""
    places = high_water.places(key_path, paths)
    mark = high_water.highest(high_water.all_marks(places, key.public), journal_id)
    proofs = []
    if mark is not None and mark["id"] > 0:
        proofs.append(Proof(mark["id"], mark["row_hash"], rollbacks.MARK_SOURCE, journal_id))
    sealed = (
        heads.records()
        if heads is not None
        else chain_head.Records(key.derived(chain_head.PURPOSE))
    )
    committed = sealed.highest([_record(path) for path in paths], journal_id)
    if committed is not None and committed.id > 0:
        proofs.append(Proof(committed.id, committed.hash, rollbacks.HEAD_SOURCE, journal_id))
    return proofs + kept_in(paths, journal_id, key.public)


def remember(db: MirroredDatabase, head: copy_heads.CopyHead) -> None:
    """The copies were proven to stand together at `head` (at start, after a resync): keep
    its sealed record in each (their commits write it from then on)."""
    if not head.journal_id:
        return
    record = db.heads.record_of(chain_head.Head(head.journal_id, head.rows, head.last_hash))
    for path in db.paths.values():
        if not Path(path).is_file():
            continue
        connection = sqlite3.connect(f"file:{quote(path)}?mode=rw", uri=True, timeout=10)
        try:
            with connection:
                connection.execute(chain_head.WRITE_SQL, (record,))
        except sqlite3.Error:
            pass  # an older schema: the migrations make the table, the next commit the record
        finally:
            connection.close()


def _record(path: str) -> str | None:
    """The head record a copy keeps (chain_head.py), if any."""
    found = _rows(path, chain_head.READ_SQL)
    return found[0][0] if found else None


def record_missing(db: MirroredDatabase, best: Examined, examined: dict[str, Examined]) -> str:
    """Record that no copy is whole (a rollback: judging stops); what the director is told."""
    first, last = missing_rows(best) or (best.head.rows + 1, best.head.rows + 1)
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
