"""A journal kept as the hall keeps it (keyed rows, receipts, the high-water mark), and the
harms done to a copy of it, for the fork check's tests."""

from __future__ import annotations

from dataclasses import replace

from adjudicator.record.journal import journal, receipt_key, row_keys
from adjudicator.record.proofs import high_water, journal_begun, receipts

from support.journal import challenge_fields


def hall_like(db, key_path, count: int, verdicts=("ACCEPTABLE", "UNACCEPTABLE")) -> list:
    """`count` rows appended as the hall appends them: keyed with its key, each receipt (which
    names the first keyed row) kept as the mark."""
    key = receipt_key.load(key_path)
    keys = row_keys.of(db)
    keys.use(lambda: key)
    mark = high_water.HighWater(key, key_path, high_water.copy_paths(db))
    found = []
    for n in range(count):
        entry = journal.append(db, **challenge_fields(verdict=verdicts[n % len(verdicts)]))
        journal_id = journal_begun.identity(db)[0]
        receipt = receipts.issue(key, entry, journal_id, keys.keyed_from)
        mark.advance(journal_id, entry.id, entry.row_hash, receipt, keys.keyed_from)
        found.append(receipt)
    return found


def execute(db, sql: str, params=()) -> None:
    with db.transaction() as cur:
        cur.execute(sql, params)


def rewrite(db, row_id: int) -> None:
    """Flip row `row_id`'s verdict and re-hash it and every later row with the program's own
    code."""
    rows = list(journal.entries(db))
    prev = rows[row_id - 2].row_hash if row_id > 1 else journal.GENESIS
    flipped = {"ACCEPTABLE": "UNACCEPTABLE", "UNACCEPTABLE": "ACCEPTABLE"}
    for entry in rows[row_id - 1 :]:
        changes = {"verdict": flipped[entry.verdict]} if entry.id == row_id else {}
        changed = replace(entry, prev_hash=prev, **changes)
        changed = replace(changed, row_hash=changed.compute_hash())
        execute(
            db,
            "UPDATE adjudications SET verdict = ?, prev_hash = ?, row_hash = ? WHERE id = ?",
            (changed.verdict, changed.prev_hash, changed.row_hash, changed.id),
        )
        prev = changed.row_hash
