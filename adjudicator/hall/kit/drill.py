"""`adjudicator kit open --drill DIR`: a takeover drill on a spare laptop, that never touches
the real hall.

The kit opens as for a takeover, with every check, and the journal is copied to this laptop;
then the copy becomes a drill's journal: an identity of its own (`drill-...`), begun by the
hall's key after the real journal's head, its keyed rows keyed again under it
(record/proofs/journal_begun.py), and the hall's recorded name becomes NAME-drill, so the drill
never answers for the hall's name. Nothing is written to the stick: no takeover statement, no
mark, and this data home keeps no record of the kit (it never refreshes the real one); the
drill's journal has no mirror (the real journal's is the stick, which the drill never uses). The
receipts the drill issues name its journal: the real hall ignores them (witnesses.py), and a
drill started with the stick as its mirror is refused (another journal: the copies disagree).
"""

from __future__ import annotations

from dataclasses import replace

from adjudicator.hall.network import hall_url
from adjudicator.record.copies import mirror_identity
from adjudicator.record.copies.standing import CopyHead
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal.receipt_key import SigningKey
from adjudicator.record.proofs import journal_begun

SUFFIX = "-drill"


def make(primary: str, key: SigningKey, head: CopyHead) -> str:
    """Make the laptop's copy at `primary` a drill's, and rename the hall; the drill's id."""
    after = {"journal": head.journal_id, "id": head.rows, "row_hash": head.last_hash}
    db = SqliteDatabase(primary, create_folder=False)
    try:
        drill_id = journal_begun.begin_drill(db, key, after)
        mirror_identity.forget(db, primary)  # the drill runs without the stick: no mirror
    finally:
        db.close()
    _rename()
    return drill_id


def name_of(name: str) -> str:
    """The drill's hall name: NAME-drill, one DNS label still."""
    return name if name.endswith(SUFFIX) else f"{name[: 63 - len(SUFFIX)].rstrip('-')}{SUFFIX}"


def _rename() -> None:
    """The hall's record, under the drill's name (its port kept)."""
    found = hall_url.recorded()
    if found is None:
        return
    name = name_of(found.name)
    http_url = found.http_url.replace(f"//{found.name}.local:", f"//{name}.local:")
    url = found.url.replace(f"//{found.name}.local:", f"//{name}.local:")
    hall_url.record(replace(found, name=name, url=url, http_url=http_url, mdns=False))
