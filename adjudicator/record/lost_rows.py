"""`journal accept-loss`: the director records that rows proven recorded are gone for good.

Their numbers are filled with `void` rows that say so (no words, no verdict, the director's
reason), so the chain stays 1, 2, 3, ... and no number a receipt carries is issued again: a
receipt for a lost row then fails `journal audit`, as it should. Then judging resumes.
"""

from __future__ import annotations

from adjudicator.errors import AdjudicatorError
from adjudicator.record import journal, rollbacks
from adjudicator.record.db import Database

LOST_TEXT = rollbacks.LOST_TEXT


class NothingLost(AdjudicatorError):
    """There is no rollback to accept."""


def accept(db: Database, reason: str, actor: str) -> tuple[int, int]:
    """Fill the lost numbers and clear the rollback: (first, last) number filled."""
    if not reason.strip():
        raise NothingLost("Give the reason the rows are gone with --reason.")
    found = rollbacks.current(db)
    if found is None:
        raise NothingLost("No rollback is open: no row a receipt proves recorded is missing.")
    first = journal.newest_id(db) + 1
    for _ in range(first, found.row_id + 1):
        journal.append(
            db,
            despite_rollback=True,
            kind="void",
            tournament="",
            kiosk="director",
            lexicon_name="",
            lexicon_fingerprint="",
            lexicon_words=0,
            rule="",
            words=(),
            word_count=0,
            verdict="VOID",
            consequence=LOST_TEXT,
            actor=actor,
            note=reason.strip(),
        )
    with db.transaction(chain_lock=True) as cur:
        rollbacks.resolve(cur, found.row_id, f"loss accepted by {actor}: {reason.strip()}")
    return first, found.row_id
