"""One hall judges: what a start (or any command that opens the journal to write it) checks
before it judges, now that a journal's USB stick can move to another laptop (`kit open`).

- Another laptop took the journal over (takeover.py): its signed statement is the newest beside
  or inside a copy, or a copy holds rows past this laptop's own that another install wrote, or
  that do not prove who wrote them (written_after.py). The start is refused, naming that laptop
  by host name and install id, until this laptop's own `kit open`. The copies looked at are this
  laptop's, the configured mirror and the mirror's last known path, whatever is configured.
- The journal knows its mirror by identity (mirror_identity.py). Started with it unset, absent,
  or at a path that holds another file, the hall does not judge (journal_holds.py, 503, the
  hold kept in the journal itself) and writes nothing to that path, until the stick is back or
  the director runs `adjudicator journal confirm-alone --reason TEXT`, which is recorded and
  forgets the mirror. A mirror set for the first time is made, as it always was; losing the
  mirror while serving is "degraded: one copy", as before.
- A hall that does not judge writes nothing to the stick (`may_write_stick`: the takeover kit's
  refresh asks it).
"""

from __future__ import annotations

from pathlib import Path

from adjudicator.record.copies import mirror_identity, standing, takeover
from adjudicator.record.copies.mirror import MIRROR, PRIMARY, MirroredDatabase
from adjudicator.record.copies.mirror_identity import Waiting
from adjudicator.record.database.db import Database, DatabaseUnavailable
from adjudicator.record.journal import journal_holds, receipt_key
from adjudicator.record.journal.journal_holds import ANOTHER_LAPTOP, MIRROR_MISSING
from adjudicator.record.proofs import high_water


def primary_path(db: Database) -> str | None:
    """The SQLite file that is this laptop's own copy (None for PostgreSQL)."""
    if isinstance(db, MirroredDatabase):
        return db.paths[PRIMARY]
    found = high_water.copy_paths(db)
    return found[0] if found else None


def waiting(db: Database) -> Waiting | None:
    """Why this journal may not be written with the mirror configured now, if it may not."""
    if isinstance(db, MirroredDatabase):
        return db.withheld()
    primary = primary_path(db)
    if primary is None:
        return None
    return mirror_identity.waiting(primary, None, standing.head(primary).journal_id)


def evidence_paths(db: Database) -> list[str]:
    """The copies that may show a takeover (read only)."""
    if isinstance(db, MirroredDatabase):
        return db.evidence_paths()
    primary = primary_path(db)
    if primary is None:
        return []
    return mirror_identity.places(primary, None, standing.head(primary).journal_id)


def refuse_if_taken_over(db: Database, key_path: Path | None = None) -> None:
    """Raise TakenOver if another laptop took the journal over (see the module's docstring)."""
    key = receipt_key.existing(key_path or getattr(db, "key_path", None))
    takeover.refuse_if_taken_over(evidence_paths(db), key, takeover.install_id(create=False))


def at_open(db: Database, start: bool = False) -> str | None:
    """Whenever the journal is opened to be written (a start, a command): if the configured
    mirror is not the journal's own, judging is held (the note, if so): by a start, in the
    journal (every process sees it, until the director acts); by a command, in its own process
    only (it judges nothing, and a hall serving meanwhile is not stopped by a shell that lacks
    the setting). Else the mirror is remembered."""
    found = waiting(db)
    if found is None:
        settle(db)
        return None
    if start:
        journal_holds.hold(db, MIRROR_MISSING, found.detail())
    else:
        journal_holds.hold_here(db, found.detail())
    return f"JUDGING HELD: {found.detail()}"


def settle(db: Database, resolution: str = "the mirror is back") -> None:
    """The copies stand together: each holds an id of its own, the journal records the
    mirror's, and a hold for a missing mirror ends."""
    if not isinstance(db, MirroredDatabase) or db.withheld() is not None:
        return
    primary, mirror = db.paths[PRIMARY], db.paths[MIRROR]
    journal_id = standing.head(primary).journal_id
    if not journal_id or standing.head(mirror).journal_id != journal_id:
        return
    own = mirror_identity.copy_id(primary) or mirror_identity.give(primary)
    theirs = mirror_identity.copy_id(mirror)
    if theirs is None or theirs == own:
        theirs = mirror_identity.give(mirror)  # a copy made from the laptop's: one of its own
    if own is None or theirs is None:
        return  # an older schema: the upgrade brings the tables first
    found = mirror_identity.recorded(primary, journal_id)
    if found is None or found.copy_id != theirs or found.path != mirror:
        mirror_identity.remember(db, theirs, mirror)
    held = journal_holds.current(db)  # a read: nothing written while nothing is held
    if held is not None and held.kind == MIRROR_MISSING:
        journal_holds.release(db, MIRROR_MISSING, resolution)


def may_write_stick(db: Database) -> bool:
    """Whether this laptop may write to the USB stick now: it judges the hall (see
    `not_judging`). A read; False when the journal cannot say."""
    return not_judging(db) is None


def not_judging(db: Database) -> str | None:
    """Why this laptop does not judge now, and so writes nothing to a USB stick (what the
    director is told, with the command that lifts it); None when it judges. Another laptop
    took the journal over, the mirror configured is not the journal's own, or judging is held
    for any reason (a takeover learned while serving too). A read. (A mirrored journal is
    checked for a takeover once per process, at its first transaction, as every process checks
    it: nothing to do again at each refresh.)"""
    try:
        if isinstance(db, MirroredDatabase):
            db.check_copies()  # raises TakenOver where another laptop took the journal over
        else:
            refuse_if_taken_over(db)  # the mirror unset: its copy's last known path is read
        found = waiting(db)
        if found is not None:
            return f"JUDGING HELD: {found.detail()}"
        held = journal_holds.current(db)
    except takeover.TakenOver as exc:
        return str(exc)
    except (DatabaseUnavailable, OSError) as exc:
        return f"The journal cannot be read now: {exc}"
    if held is None:
        return None
    return held.detail if held.kind == journal_holds.TAKEN_OVER else f"JUDGING HELD: {held.detail}"


def confirm_alone(db: Database, reason: str, actor: str) -> int:
    """`journal confirm-alone`: the director says this laptop judges alone (the stick is lost
    for good, or the other laptop heard has stopped for good); recorded in the journal, and a
    mirror that is not here forgotten. Refused where the copies in reach show another laptop
    took the hall over. How many holds it ended."""
    reason = " ".join(reason.split())
    if not reason:
        raise journal_holds.HoldError("Say why with --reason (where the USB stick is).")
    primary = primary_path(db)
    if primary is None:
        raise journal_holds.HoldError(
            "This journal has no mirror on a USB stick (PostgreSQL): nothing to confirm."
        )
    refuse_if_taken_over(db)
    resolution = f"confirmed alone by {actor}: {reason}"
    forgotten = waiting(db) is not None  # the stick is not here: this laptop goes on without it
    ended = journal_holds.release(db, ANOTHER_LAPTOP, resolution) + journal_holds.release(
        db,
        MIRROR_MISSING,
        resolution,
        record="" if not forgotten else "nothing was held: the director confirmed before a start",
    )
    if forgotten:
        mirror_identity.forget(db, primary)
    return ended
