"""One hall judges: what a start checks before it judges, now that a journal's USB stick can
move to another laptop (`adjudicator kit open`).

- A newer takeover statement by another laptop beside any copy (takeover.py): the start is
  refused, naming that laptop.
- The mirror this journal has written to (recorded beside the primary, `journal.sqlite3.
  mirrored`, at each start whose copies stand together) whose file is gone: the stick may be
  serving another laptop, so judging is held (journal_holds.py, 503) until the stick is back
  (the next start, or `journal resync`) or the director runs `adjudicator journal
  confirm-alone --reason TEXT`, which is recorded. A mirror path never used before is made, as
  it always was; losing the mirror while serving is "degraded: one copy", as before.
"""

from __future__ import annotations

import json
from pathlib import Path

from adjudicator.durable import write_whole
from adjudicator.record.copies import standing, takeover
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal_holds, receipt_key
from adjudicator.record.journal.journal_holds import MIRROR_MISSING
from adjudicator.record.proofs import high_water

SUFFIX = ".mirrored"


def primary_path(db: Database) -> str | None:
    """The SQLite file that is this laptop's own copy (None for PostgreSQL)."""
    found = high_water.copy_paths(db)
    return found[0] if found else None


def mirror_path(db: Database) -> str | None:
    paths = getattr(db, "paths", None)
    return str(paths["mirror"]) if isinstance(paths, dict) else None


def record_path(primary: str) -> Path:
    return Path(primary + SUFFIX)


def remember(primary: str, journal_id: str, mirror: str) -> None:
    """Record that journal `journal_id` is written to `mirror` (replacing an older record)."""
    if recorded(primary, journal_id) == mirror:
        return  # recorded already: no write for every command
    body = json.dumps({"journal": journal_id, "mirror": mirror}).encode("utf-8")
    write_whole(record_path(primary), body)


def recorded(primary: str, journal_id: str | None) -> str | None:
    """The mirror journal `journal_id` was last written to, if recorded."""
    try:
        found = json.loads(record_path(primary).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(found, dict) or not journal_id or found.get("journal") != journal_id:
        return None
    return str(found.get("mirror") or "") or None


def forget(primary: str) -> None:
    record_path(primary).unlink(missing_ok=True)


def public_key(key_path: Path | None = None):
    """The hall's public key, to check statements with; None when there is no usable key (a
    read makes none: then no statement counts)."""
    found = receipt_key.existing(key_path)
    return found.public if found is not None else None


def refuse_if_taken_over(db: Database, key_path: Path | None = None) -> None:
    """Raise TakenOver if another laptop's statement is the newest beside a copy."""
    takeover.refuse_if_taken_over(
        high_water.copy_paths(db), public_key(key_path), takeover.install_id(create=False)
    )


def missing_mirror(db: Database) -> str | None:
    """The mirror this journal was written to, if its file is gone now."""
    primary = primary_path(db)
    if primary is None:
        return None
    mirror = recorded(primary, standing.head(primary).journal_id)
    if mirror is None or Path(mirror).is_file():
        return None
    return mirror


def missing_detail(mirror: str) -> str:
    """What the director is told when the stick is gone at the start."""
    return (
        f"The journal's mirror {mirror} is missing: this journal was written to it, and the USB "
        "stick is not here now. It may be serving another laptop that took the hall over, so "
        "this laptop does not judge. Put the stick back (set ADJUDICATOR_JOURNAL_MIRROR to it) "
        "and restart the hall, or run `adjudicator journal resync`. If the stick is lost for "
        "good and no other laptop serves the hall, run `adjudicator journal confirm-alone "
        "--reason TEXT`: this laptop then judges alone."
    )


def at_open(db: Database) -> str | None:
    """Whenever the journal is opened to be written (a start, a command): hold judging if the
    mirror it was written to is gone (the note, if so), else remember the mirror it has."""
    mirror = missing_mirror(db)
    if mirror is None:
        settle(db)
        return None
    detail = missing_detail(mirror)
    journal_holds.hold(db, MIRROR_MISSING, detail)
    return f"JUDGING HELD: {detail}"


def settle(db: Database, resolution: str = "the mirror is back") -> None:
    """The copies stand together: remember the mirror, and end a hold for a missing one."""
    primary, mirror = primary_path(db), mirror_path(db)
    if primary is None or mirror is None:
        return
    journal_id = standing.head(primary).journal_id
    if journal_id and standing.head(mirror).journal_id == journal_id:
        remember(primary, journal_id, mirror)
        held = journal_holds.current(db)  # a read: nothing written while nothing is held
        if held is not None and held.kind == MIRROR_MISSING:
            journal_holds.release(db, MIRROR_MISSING, resolution)


def confirm_alone(db: Database, reason: str, actor: str) -> int:
    """`journal confirm-alone`: the director says this laptop judges alone (the stick is lost
    for good); recorded in the journal, and the mirror forgotten. How many holds it ended."""
    reason = " ".join(reason.split())
    if not reason:
        raise journal_holds.HoldError("Say why with --reason (where the USB stick is).")
    primary = primary_path(db)
    if primary is None:
        raise journal_holds.HoldError(
            "This journal has no mirror on a USB stick (PostgreSQL): nothing to confirm."
        )
    ended = journal_holds.release(
        db,
        MIRROR_MISSING,
        f"confirmed alone by {actor}: {reason}",
        record="nothing was held: the director confirmed before a start",
    )
    forget(primary)
    return ended
