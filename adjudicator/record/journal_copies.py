"""Bringing a mirrored journal's copies back together: at a server's start, and `journal resync`.

A copy is rebuilt from the other with SQLite's backup API into a file beside it, made durable,
then renamed over it: never a half-copied journal at the copy's path. A copy whose chain
disagrees with the other is never overwritten: it is set aside under a dated name first.
Everything runs under both copies' write locks, so no commit is half done meanwhile, and a
server may keep serving while it runs (its processes take the rebuilt copy back).
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from adjudicator.durable import create_owner_only, fsync_path, remove_if_there
from adjudicator.errors import AdjudicatorError
from adjudicator.record import copy_heads, copy_markers, journal
from adjudicator.record.db import DatabaseUnavailable
from adjudicator.record.db_mirror import (
    MIRROR,
    PRIMARY,
    ROLES,
    CopiesDisagree,
    MirroredDatabase,
    disagree_message,
)
from adjudicator.record.db_sqlite import SUFFIXES, SqliteDatabase


class ResyncError(AdjudicatorError):
    """The copies cannot be brought together without the director's choice, or at all."""


def _locked(db: MirroredDatabase, stack: ExitStack) -> None:
    for role in ROLES:
        try:
            stack.enter_context(db.copies[role].writer_lock())
        except DatabaseUnavailable:
            pass  # that copy's folder is gone: it cannot be written by anyone either


def same_disk(db: MirroredDatabase) -> bool:
    """Whether the mirror's folder is on the primary's disk (then it guards nothing)."""
    try:
        folders = [Path(db.paths[role]).resolve().parent for role in ROLES]
        return os.stat(folders[0]).st_dev == os.stat(folders[1]).st_dev
    except OSError:
        return False


def rebuild(source: str, target: str) -> None:
    """Copy `source` (one consistent snapshot) over `target`, atomically and durably."""
    partial = f"{target}.resync-partial"
    remove_if_there(partial)
    try:
        src = sqlite3.connect(f"file:{quote(source)}?mode=rw", uri=True, timeout=10)
        try:
            create_owner_only(partial)  # the journal's copy: its owner's alone
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
        fsync_path(partial)
        for suffix in SUFFIXES[1:]:  # an old WAL must never be replayed into the new file
            remove_if_there(target + suffix)
        os.replace(partial, target)
        fsync_path(str(Path(target).parent))
    except (OSError, sqlite3.Error) as exc:
        remove_if_there(partial)
        raise ResyncError(f"{target} could not be rebuilt from {source}: {exc}.") from None


def set_aside(path: str) -> str:
    """Rename a copy (and its WAL) to a dated name beside it; the new name."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = f"{path}.set-aside-{stamp}"
    for suffix in SUFFIXES:
        if os.path.exists(path + suffix):
            os.replace(path + suffix, aside + suffix)
    return aside


def on_start(db: MirroredDatabase) -> list[str]:
    """When `serve` starts: rebuild a copy that is only behind (or marked lost); refuse two
    copies that disagree (CopiesDisagree). What was done, for the director."""
    notes = []
    if same_disk(db):
        notes.append(
            f"Warning: the journal's mirror {db.paths[MIRROR]} is on the same disk as the journal "
            f"{db.paths[PRIMARY]}: it guards nothing if that disk dies. Put it on another disk "
            "(a USB stick)."
        )
    if not Path(db.paths[MIRROR]).parent.is_dir():
        notes.append(
            f"Warning: the mirror's folder {Path(db.paths[MIRROR]).parent} does not exist (is "
            "the USB stick in?): serving on the journal alone, degraded to one copy."
        )
        return notes
    with ExitStack() as stack:
        _locked(db, stack)
        verdict, primary, mirror = copy_heads.compare(db.paths[PRIMARY], db.paths[MIRROR])
        if verdict == "disagree":
            raise CopiesDisagree(disagree_message(primary, mirror))
        marked = copy_markers.read_all(db.paths.values())
        stale = {"first-behind": PRIMARY, "second-behind": MIRROR}.get(verdict)
        if stale is None and verdict == "same":
            stale = next((r for r in ROLES if db.paths[r] in marked), None)
            if stale is not None and not (primary.exists and mirror.exists):
                stale = None
        if stale is None:
            copy_markers.remove_all(db.paths.values())
            return notes
        source = PRIMARY if stale == MIRROR else MIRROR
        heads = {PRIMARY: primary, MIRROR: mirror}
        if not heads[source].exists:
            return notes  # neither holds anything yet: both are made alike by the migrations
        rebuild(db.paths[source], db.paths[stale])
        copy_markers.remove_all(db.paths.values())
    notes.append(
        f"The journal's {stale} ({heads[stale].describe()}) was rebuilt from the {source} "
        f"({heads[source].describe()})."
    )
    return notes


def resync(db: MirroredDatabase, keep: str | None = None) -> list[str]:
    """`journal resync`: check both chains, then rebuild the lost or stale copy from the
    verified one; a copy that disagrees is set aside first. What was done, for the director."""
    if keep is not None and keep not in ROLES:
        raise ResyncError("--keep must be primary or mirror.")
    notes: list[str] = []
    with ExitStack() as stack:
        _locked(db, stack)
        verdict, primary, mirror = copy_heads.compare(db.paths[PRIMARY], db.paths[MIRROR])
        heads = {PRIMARY: primary, MIRROR: mirror}
        checked = {role: _verify(db.paths[role]) for role in ROLES if heads[role].exists}
        for role, problem in checked.items():
            notes.append(
                f"The {role} {heads[role].describe()}: "
                + (f"its chain is BROKEN ({problem})." if problem else "its chain verifies.")
            )
        marked = copy_markers.read_all(db.paths.values())
        stale = {"first-behind": PRIMARY, "second-behind": MIRROR}.get(verdict)
        if keep is not None:
            stale = PRIMARY if keep == MIRROR else MIRROR
        elif verdict == "same":
            stale = next((r for r in ROLES if db.paths[r] in marked), None)
        elif verdict == "disagree":
            sound = [role for role in ROLES if role in checked and not checked[role]]
            if len(sound) != 1:
                raise ResyncError(
                    f"{disagree_message(primary, mirror)} Both chains verify, so the choice is "
                    "yours."
                    if sound
                    else "Neither copy's chain verifies: nothing was changed. Restore the "
                    "journal from a backup (`adjudicator journal backup`)."
                )
            stale = PRIMARY if sound[0] == MIRROR else MIRROR
        if stale is None:
            copy_markers.remove_all(db.paths.values())
            return [*notes, "Both copies hold the same chain: nothing to resync."]
        source = PRIMARY if stale == MIRROR else MIRROR
        if source not in checked or checked[source]:
            raise ResyncError(
                f"The {source}, to rebuild the {stale} from, "
                + ("is missing" if source not in checked else "does not verify")
                + ": nothing was changed."
            )
        if not Path(db.paths[stale]).parent.is_dir():
            raise ResyncError(
                f"The {stale}'s folder {Path(db.paths[stale]).parent} does not exist: put its "
                "disk back (mount the USB stick) and run the resync again."
            )
        if heads[stale].exists and (verdict == "disagree" or checked.get(stale)):
            aside = set_aside(db.paths[stale])
            notes.append(
                f"The {stale}'s chain disagrees with the {source}'s: it was set aside as {aside} "
                "(not overwritten). Keep it for the record, and find out how it came to differ."
            )
        rebuild(db.paths[source], db.paths[stale])
        copy_markers.remove_all(db.paths.values())
    rows = heads[source].rows
    notes.append(f"The {stale} was rebuilt from the {source}: both copies now hold {rows:,} rows.")
    return notes


def _verify(path: str) -> str | None:
    """None if the copy's chain verifies, else what is wrong."""
    copy = SqliteDatabase(path, create_folder=False)
    try:
        result = journal.verify(copy)
    except DatabaseUnavailable as exc:
        return str(exc)
    finally:
        copy.close()
    return None if result.ok else f"row {result.first_bad_id}: {result.problem}"
