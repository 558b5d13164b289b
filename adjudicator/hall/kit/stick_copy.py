"""Whether the stick's copy of the journal may be taken over: the one check `kit open` makes of
a copy, before it becomes this laptop's journal (and again of the laptop's copy made from it).

The copy must be a journal the hall's key began (and no newer journal the key signed rows of),
and proven by the fork check every start makes of a copy (record/copies/proof.py, fork_check.py):
its chain verifies in full, no signed statement contradicts it (the high-water mark kept beside
it, the kiosks' receipts and the checkpoints it keeps, every keyed row: a copy rewritten and
its chain recomputed is a FORK, named), and it holds every row they prove recorded.
"""

from __future__ import annotations

from pathlib import Path

from adjudicator.hall.kit.sealing import KitError
from adjudicator.record.copies import proof, standing
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal.receipt_key import SigningKey
from adjudicator.record.proofs import high_water, journal_begun


class StickCopyRefused(KitError):
    """The stick's copy of the journal cannot be taken over: nothing was written."""


def verify(path: str, key: SigningKey, key_path: Path) -> standing.CopyHead:
    """The copy's head if it may be taken over; StickCopyRefused naming what is wrong."""
    head = standing.head(path)
    if not head.exists or not head.journal_id:
        raise StickCopyRefused(
            f"No journal at {path}: set ADJUDICATOR_JOURNAL_MIRROR to the journal's copy on the "
            "USB stick (nothing was written)."
        )
    _refuse_unbegun(path, head.journal_id, key, key_path)
    # The one call that holds a copy against the hall's signed statements (the fork check of
    # issue 33, as every start makes it): a fork, rows missing or a broken chain refuse it.
    statements = proof.statements_of([path], key, key_path, head.journal_id)
    examined = proof.examine("stick's copy", path, {head.journal_id: statements})
    if not examined.whole:
        raise StickCopyRefused(
            f"The journal on the stick cannot be taken over: {examined.describe()}. Nothing was "
            "written. Bring the copy that holds those rows (a backup, the other laptop's disk)."
        )
    return head


def _refuse_unbegun(path: str, journal_id: str, key: SigningKey, key_path: Path) -> None:
    copy = SqliteDatabase(path, create_folder=False)
    try:
        _, signed = journal_begun.identity(copy)
    finally:
        copy.close()
    marks = high_water.all_marks(high_water.places(key_path, [path]), key.public)
    if signed is None and journal_begun.newest_other(marks, journal_id) is None:
        return  # never served yet: its first start adopts it, as any start would
    if not journal_begun.begun_by(signed, key, journal_id):
        raise StickCopyRefused(
            f"The journal on the stick ({journal_id[:8]}) is not one this hall's key began: it "
            "is not this hall's journal, or its identity was changed. Nothing was written."
        )
    newer = journal_begun.not_followed(journal_id, signed, key, marks)
    if newer:
        raise StickCopyRefused(
            f"The hall's key signed rows of a newer journal ({str(newer[0]['journal'])[:8]}) "
            f"than the one on the stick ({journal_id[:8]}): the stick holds an older event's "
            "journal. Nothing was written."
        )
