"""A serving laptop learns that another took its hall over: it stops judging at once.

A laptop that froze (suspended, its lid closed, its process stopped) while another took the
hall over with the kit (`adjudicator kit open`) comes back to a hall that is no longer its own:
its stick is on the other laptop, so it went on alone ("degraded: one copy"), and would issue
the numbers the other laptop issues. The laptops of the hall tell each other that they serve
(hall/hall_peers.py), and each note, and each answer, carries the newest takeover statement the
laptop holds (takeover.py: signed with the hall's key). A laptop told of a statement that
  - the hall's key signed,
  - names this laptop's journal, by its id,
  - names another install than this one, and
  - is newer (its `seq`) than every statement this laptop's own copy holds
was taken over. It holds itself (`heed`), the same refusal a restart gives ("THIS HALL WAS
TAKEN OVER", naming the other laptop by host name and install id), in this order:
  1. the mirror is dropped, by a signed marker beside this laptop's copy, so that no process
     of this laptop writes the stick again (mirror.py reads the markers at each transaction);
  2. judging is held in the journal (journal_holds, kind "taken-over": every process checks it
     under the chain lock at each append): kiosks get 503, staying paired;
  3. the statement is kept beside and inside this laptop's own copy, never the stick's: every
     later start and command refuses the journal (takeover.refuse_if_taken_over).
Only this laptop's own `adjudicator kit open` (which brings a newer statement) lifts it;
`journal confirm-alone` does not.

The stick gone and another laptop of the hall judging is, by itself, what a takeover looks
like: `stick_left` says whether this laptop's stick left it while it served, for the hall's
laptops to hold on that alone (hall_peers.heed), when the other laptop's note carries no
statement (or no note comes).
"""

from __future__ import annotations

import logging
from typing import Any

from adjudicator.record.copies import mirror_identity, one_hall, standing, takeover
from adjudicator.record.copies.mirror import MIRROR, MirroredDatabase
from adjudicator.record.database.db import Database, DatabaseUnavailable
from adjudicator.record.journal import journal_holds
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok

log = logging.getLogger("adjudicator.record.journal.journal")


def to_tell(db: Database, key: SigningKey) -> dict[str, Any] | None:
    """The newest signed takeover statement this laptop's own copy holds, to carry in its notes
    to the hall's other laptops (None: it holds none, or no SQLite copy)."""
    primary = one_hall.primary_path(db)
    if primary is None:
        return None
    return takeover.newest([primary], key.public)


def taking_over(db: Database, key: SigningKey, statement: Any) -> dict[str, Any] | None:
    """`statement` if it shows another laptop took this laptop's journal over (see the
    module's docstring), else None. Reads only."""
    if not isinstance(statement, dict) or statement.get("type") != takeover.TYPE:
        return None
    if not isinstance(statement.get("seq"), int) or not signature_ok(statement, key.public):
        return None
    primary = one_hall.primary_path(db)
    if primary is None:
        return None
    journal_id = standing.head(primary).journal_id
    if not journal_id or statement.get("journal") != journal_id:
        return None  # another journal (a drill's, another hall's): nothing to do with this one
    if statement.get("install") == takeover.install_id(create=False):
        return None  # this laptop's own
    own = takeover.newest([primary], key.public)
    if own is not None and own["seq"] >= statement["seq"]:
        return None  # older than what this laptop holds (it took the hall back since)
    return statement


def heed(db: Database, key: SigningKey, statement: Any) -> str | None:
    """Hold this laptop if `statement` shows another laptop took its journal over (see the
    module's docstring); the refusal it says from now on, or None."""
    found = taking_over(db, key, statement)
    if found is None:
        return None
    refusal = takeover.refusal(found)
    if isinstance(db, MirroredDatabase):
        db.drop(MIRROR, f"another laptop took the hall over: {takeover.laptop_of(found)}")
    try:
        journal_holds.hold(db, journal_holds.TAKEN_OVER, refusal)
    except DatabaseUnavailable as exc:  # a journal that cannot be written judges nothing either
        log.error("%s (the hold could not be written: %s)", refusal, exc)
    primary = one_hall.primary_path(db)
    try:
        if primary is not None:
            takeover.write([primary], found)  # this laptop's copy alone: never the stick
    except OSError as exc:  # held all the same (in the journal); a start asks the stick's rows
        log.error("%s (the statement could not be kept beside %s: %s)", refusal, primary, exc)
    return refusal


def stick_left(db: Database) -> bool:
    """Whether the USB stick this journal is mirrored to is not with this laptop now: the
    journal records a mirror, and this laptop stopped writing it (lost while it served), or it
    is not at the configured path now. A read."""
    primary = one_hall.primary_path(db)
    if primary is None:
        return False
    journal_id = standing.head(primary).journal_id
    if mirror_identity.recorded(primary, journal_id) is None:
        return False  # no mirror (or one forgotten by `journal confirm-alone`)
    if not isinstance(db, MirroredDatabase):
        return True  # mirrored, and served without it
    try:
        lost = db.lost_copy()
    except DatabaseUnavailable:
        return True
    if lost is not None and lost.role == MIRROR:
        return True
    return mirror_identity.waiting(primary, db.paths[MIRROR], journal_id) is not None
