"""`journal accept-loss`: the director records that rows proven recorded are gone for good.

Their numbers are filled with `void` rows that say so (no words, no verdict, the director's
reason), so the chain stays 1, 2, 3, ... and no number a receipt carries is issued again: a
receipt for a lost row then fails `journal audit`, as it should. Then judging resumes.

Only numbers past the journal's last row are filled, and only when every row it keeps agrees
with every signed statement (journal_proof.hold, walking the whole chain): a journal that
contradicts one is a fork, another history, and is never adopted as a loss (ForkRefused); one
whose chain breaks is damaged, and a backup must be restored.
"""

from __future__ import annotations

from pathlib import Path

from adjudicator.errors import AdjudicatorError
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal, rollbacks, row_keys
from adjudicator.record.journal.receipt_key import SigningKey
from adjudicator.record.proofs import journal_proof

LOST_TEXT = rollbacks.LOST_TEXT


class NothingLost(AdjudicatorError):
    """There is no rollback to accept."""


class ForkRefused(AdjudicatorError):
    """The journal contradicts a signed statement: another history, never a loss to accept."""


def accept(
    db: Database, reason: str, actor: str, key: SigningKey, key_path: Path
) -> tuple[int, int]:
    """Fill the lost numbers and clear the rollback: (first, last) number filled."""
    if not reason.strip():
        raise NothingLost("Give the reason the rows are gone with --reason.")
    found = rollbacks.current(db)
    if found is None:
        raise NothingLost("No rollback is open: no row a receipt proves recorded is missing.")
    held = journal_proof.hold(db, key.public, row_keys.secret(key), key_path, full=True)
    judged = held.judged
    if judged is not None and judged.fork is not None:
        raise ForkRefused(f"Nothing was recorded: {judged.describe()}. {rollbacks.FORK_REMEDIES}")
    if found.fork is not None:
        raise ForkRefused(f"Nothing was recorded: {found.what()} {rollbacks.FORK_REMEDIES}")
    if judged is not None and judged.broken:
        raise NothingLost(
            f"Nothing was recorded: {judged.describe()}. Its rows after that cannot be kept or "
            "accepted as lost: restore a backup (stop the hall, copy the backup over the "
            "journal, start it again)."
        )
    first = journal.newest_id(db) + 1
    last = max(found.row_id, judged.missing_to if judged is not None else 0)
    for _ in range(first, last + 1):
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
        rollbacks.resolve(cur, last, f"loss accepted by {actor}: {reason.strip()}")
    return first, last
