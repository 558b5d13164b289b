"""Bringing a mirrored journal's copies back together: `journal resync` (and the start's tools).

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
from adjudicator.record.copies import markers, mirror_identity, one_hall, proof, standing, takeover
from adjudicator.record.copies.mirror import (
    MIRROR,
    PRIMARY,
    ROLES,
    MirroredDatabase,
    disagree_message,
)
from adjudicator.record.database.db import Cursor, DatabaseUnavailable
from adjudicator.record.database.sqlite import SUFFIXES, SqliteDatabase
from adjudicator.record.journal import journal_entry, journal_holds, receipt_key, rollbacks, tallies
from adjudicator.record.proofs import high_water, journal_begun


class ResyncError(AdjudicatorError):
    """The copies cannot be brought together without the director's choice, or at all."""


class ForkRefused(ResyncError):
    """The copy to rebuild from contradicts a signed statement: another history."""


def _chain(found: proof.Examined) -> str:
    """What the resync says of one copy's chain."""
    if found.fork is not None:
        return f"it is a FORK at {found.fork.where()} ({found.fork.against})."
    if found.broken_at is not None:
        return f"its chain is BROKEN (row {found.broken_at}: {found.broken})."
    return "its chain verifies in full."


def locked(db: MirroredDatabase, stack: ExitStack) -> None:
    """Take both copies' write locks (a copy whose folder is gone: no one can write it)."""
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


def rebuild(source: str, target: str, identity: str | None = None) -> None:
    """Copy `source` (one consistent snapshot) over `target`, atomically and durably. The
    copy keeps its own id (`identity`, else the one `target` holds, else a new one: never the
    source's), so the journal still knows which copy is its mirror (mirror_identity.py)."""
    identity = identity or mirror_identity.copy_id(target)
    partial = f"{target}.resync-partial"
    remove_if_there(partial)
    try:
        snapshot(source, partial)
        put_in_place(partial, target, identity)
    except (OSError, sqlite3.Error) as exc:
        remove_if_there(partial)
        raise ResyncError(f"{target} could not be rebuilt from {source}: {exc}.") from None


def snapshot(source: str, copy: str, reading: bool = False) -> None:
    """One consistent snapshot of `source` (SQLite's backup API) as the new file `copy`, its
    owner's alone; `reading`: `source` opened as a copy is read, changing nothing in its files
    (standing.open_to_read: a stick not yet proven). Raises OSError or sqlite3.Error."""
    if reading:
        src = standing.open_to_read(source)
    else:
        src = sqlite3.connect(f"file:{quote(source)}?mode=rw", uri=True, timeout=10)
    try:
        create_owner_only(copy)  # the journal's copy: its owner's alone
        dst = sqlite3.connect(copy)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()


def put_in_place(copy: str, target: str, identity: str | None = None) -> None:
    """The snapshot `copy` made `target`: given the copy's own id (`identity`, else `target`'s,
    else a new one), made durable, and renamed over it (on one file system: else OSError).
    Raises OSError or sqlite3.Error."""
    identity = identity or mirror_identity.copy_id(target)
    mirror_identity.give(copy, identity)  # synced in its own commit
    fsync_path(copy)
    for suffix in SUFFIXES[1:]:  # an old WAL must never be replayed into the new file
        remove_if_there(target + suffix)
    os.replace(copy, target)
    fsync_path(str(Path(target).parent))


def cut(path: str, keep_to: int) -> str:
    """Set a copy whose chain breaks aside (kept as it was) and put in its place its rows 1 to
    `keep_to`, which verify, with the tallies and cases beside them derived again; the name
    it was set aside under."""
    aside = set_aside(path)
    rebuild(aside, path, mirror_identity.copy_id(aside))
    connection = sqlite3.connect(path, timeout=10)
    try:
        connection.execute("PRAGMA synchronous=FULL")
        with connection:
            connection.execute("DELETE FROM adjudications WHERE id > ?", (keep_to,))
            connection.execute("DELETE FROM journal_tallies")
            connection.execute("DELETE FROM journal_cases")
            connection.execute("DELETE FROM player_tallies")  # derived again too
            reader = connection.execute(f"{journal_entry.SELECT} ORDER BY id")
            writer = Cursor(connection.cursor())
            while rows := reader.fetchmany(5000):
                tallies.record(writer, [journal_entry.from_values(row) for row in rows])
    except sqlite3.Error as exc:
        raise ResyncError(f"{path} could not be cut to its rows 1 to {keep_to}: {exc}.") from None
    finally:
        connection.close()
    return aside


def set_aside(path: str) -> str:
    """Rename a copy (and its WAL) to a dated name beside it; the new name."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = f"{path}.set-aside-{stamp}"
    for suffix in SUFFIXES:
        if os.path.exists(path + suffix):
            os.replace(path + suffix, aside + suffix)
    return aside


def _refuse_a_journal_left_behind(
    db: MirroredDatabase, source: standing.CopyHead, stale: standing.CopyHead
) -> None:
    """Keeping a copy of another journal than the other copy's: only one the hall's key began
    after every row it signed of other journals (as a start would check: journal_begun)."""
    if not (source.journal_id and stale.journal_id) or source.journal_id == stale.journal_id:
        return
    kept = SqliteDatabase(source.path, create_folder=False)
    try:
        journal_id, signed = journal_begun.identity(kept)
    finally:
        kept.close()
    key = db.signing_key()
    places = high_water.places(db.key_path or receipt_key.key_path(), db.paths.values())
    newer = journal_begun.not_followed(
        str(journal_id), signed, key, high_water.all_marks(places, key.public)
    )
    if newer:
        mark = max(newer, key=lambda m: (journal_begun.mark_time(m), m.get("id", 0)))
        raise ResyncError(
            f"{source.path} holds journal {str(journal_id)[:8]}, but the hall's key signed row "
            f"{mark['id']} of journal {str(mark['journal'])[:8]}, which it did not begin before "
            "that one: keeping it would lose those rows. Nothing was changed. Keep the copy "
            "that holds the newer journal, or restore a backup that holds those rows."
        )


def _lost_while_serving(db: MirroredDatabase, withheld: mirror_identity.Waiting) -> bool:
    """Whether the mirror's file is gone from its own place while the hall judged (no hold:
    the hall did not start without it), so a resync may make it again there. A mirror a start
    found missing comes back only as itself, or by `journal confirm-alone`."""
    if withheld.kind != "absent":
        return False
    return journal_holds.current(db) is None


def resync(db: MirroredDatabase, keep: str | None = None) -> list[str]:
    """`journal resync`: verify both chains in full, then rebuild the lost or stale copy from
    the other, only if that one is whole (proof.py); a copy that disagrees is set aside
    first. Refused on a journal another laptop took over. What was done, for the director;
    once the copies stand together, a hold for the stick's absence ends (one_hall)."""
    notes = _resync(db, keep)
    one_hall.settle(db)  # outside the copies' locks: it writes through the journal
    return notes


def _resync(db: MirroredDatabase, keep: str | None) -> list[str]:
    if keep is not None and keep not in ROLES:
        raise ResyncError("--keep must be primary or mirror.")
    notes: list[str] = []
    takeover.refuse_if_taken_over(
        db.evidence_paths(), db.existing_key(), takeover.install_id(create=False)
    )
    withheld = db.withheld()  # before any lock: not even a lock file where the mirror is not
    if withheld is not None and not _lost_while_serving(db, withheld):
        raise ResyncError(f"Nothing was changed: {withheld.detail()}")
    with ExitStack() as stack:
        locked(db, stack)
        takeover.refuse_if_taken_over(  # again, under the locks: nothing changes meanwhile
            db.evidence_paths(), db.existing_key(), takeover.install_id(create=False)
        )
        verdict, primary, mirror = standing.compare(db.paths[PRIMARY], db.paths[MIRROR])
        heads = {PRIMARY: primary, MIRROR: mirror}
        journal_ids = {head.journal_id for head in heads.values() if head.journal_id}
        about = {journal_id: proof.for_journal(db, journal_id) for journal_id in journal_ids}
        examined = {
            role: proof.examine(role, db.paths[role], about) for role in ROLES if heads[role].exists
        }
        for role, found in examined.items():
            notes.append(f"The {role} {heads[role].describe()}: {_chain(found)}")
        marked = db.markers().signed
        stale = {"first-behind": PRIMARY, "second-behind": MIRROR}.get(verdict)
        if keep is not None:
            stale = PRIMARY if keep == MIRROR else MIRROR
        elif verdict == "same":
            stale = next((r for r in ROLES if db.paths[r] in marked), None)
        elif verdict == "disagree":
            sound = [
                role
                for role, found in examined.items()
                if found.broken_at is None and found.fork is None
            ]
            if len(sound) != 1:
                raise ResyncError(
                    f"{disagree_message(primary, mirror)} Both chains verify, so the choice is "
                    "yours."
                    if sound
                    else "Neither copy is proven (a chain that does not verify, or a fork: "
                    + "; ".join(_chain(found) for found in examined.values())
                    + "): nothing was changed. Restore the journal from a backup "
                    "(`adjudicator journal backup`)."
                )
            stale = PRIMARY if sound[0] == MIRROR else MIRROR
        if stale is None:
            markers.remove_all(db.paths.values())
            return [*notes, "Both copies hold the same chain: nothing to resync."]
        source = PRIMARY if stale == MIRROR else MIRROR
        _refuse_a_journal_left_behind(db, heads[source], heads[stale])
        if source in examined and examined[source].fork is not None:
            raise ForkRefused(
                f"{examined[source].describe()[0].upper()}{examined[source].describe()[1:]}: "
                f"the {stale} is never rebuilt from it, and nothing was changed. "
                + rollbacks.FORK_REMEDIES
            )
        if source not in examined or not examined[source].whole:
            what = (
                "is missing"
                if source not in examined
                else f"is not whole ({examined[source].describe()})"
            )
            raise ResyncError(
                f"The {source}, to rebuild the {stale} from, {what}: nothing was changed. "
                "A copy is rebuilt only from one whose chain verifies and that holds every row "
                "proven recorded. Restore a backup that holds them, or, if they are gone for "
                "good, run `adjudicator journal accept-loss --reason TEXT` first."
            )
        if not Path(db.paths[stale]).parent.is_dir():
            raise ResyncError(
                f"The {stale}'s folder {Path(db.paths[stale]).parent} does not exist: put its "
                "disk back (mount the USB stick) and run the resync again."
            )
        identity = mirror_identity.copy_id(db.paths[stale])
        if heads[stale].exists and (
            verdict == "disagree"
            or examined[stale].broken_at is not None
            or examined[stale].fork is not None
        ):
            aside = set_aside(db.paths[stale])
            notes.append(
                f"The {stale}'s chain disagrees with the {source}'s: it was set aside as {aside} "
                "(not overwritten). Keep it for the record, and find out how it came to differ."
            )
        rebuild(db.paths[source], db.paths[stale], identity)
        if withheld is not None:  # a new copy in the mirror's own place: the journal's mirror
            mirror_identity.adopt(db.paths[PRIMARY], db.paths[MIRROR])
            db.recheck_mirror()
        markers.write_resynced(db.paths.values(), db.signing_key())
        markers.remove_all(db.paths.values())
        proof.remember(db, heads[source])
    rows = heads[source].rows
    notes.append(f"The {stale} was rebuilt from the {source}: both copies now hold {rows:,} rows.")
    return notes
