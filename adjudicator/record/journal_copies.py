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

from adjudicator.durable import fsync_path, remove_if_there
from adjudicator.errors import AdjudicatorError
from adjudicator.record import (
    chain_head,
    copy_heads,
    copy_markers,
    copy_proof,
    high_water,
    receipt_key,
    rollbacks,
)
from adjudicator.record.db import DatabaseUnavailable
from adjudicator.record.db_mirror import (
    MIRROR,
    PRIMARY,
    ROLES,
    CopiesDisagree,
    MirroredDatabase,
    disagree_message,
)
from adjudicator.record.db_sqlite import SUFFIXES


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
    """When `serve` starts: verify both chains in full; rebuild a copy that is only behind (or
    marked lost) from the other if that one is whole (copy_proof), never from one that is not;
    refuse two copies that disagree (CopiesDisagree). When no copy is whole, the rows missing
    are recorded as a rollback: the hall does not judge until they are back or their loss is
    accepted. What was done, for the director."""
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
    trouble = None
    with ExitStack() as stack:
        _locked(db, stack)
        verdict, primary, mirror = copy_heads.compare(db.paths[PRIMARY], db.paths[MIRROR])
        if verdict == "disagree":
            raise CopiesDisagree(disagree_message(primary, mirror))
        heads = {PRIMARY: primary, MIRROR: mirror}
        journal_id = primary.journal_id or mirror.journal_id
        if journal_id is None:
            return notes  # neither holds a journal yet: both are made alike by the migrations
        proofs = gather_proofs(db, journal_id)
        examined = {role: copy_proof.examine(role, db.paths[role], proofs) for role in ROLES}
        stale = {"first-behind": PRIMARY, "second-behind": MIRROR}.get(verdict)
        if stale is None:
            marked = db.markers().signed
            stale = next((r for r in ROLES if db.paths[r] in marked), None)
            if stale is not None and not (primary.exists and mirror.exists):
                stale = None
        source = (PRIMARY if stale == MIRROR else MIRROR) if stale else PRIMARY
        if not examined[source].whole:
            trouble = examined[source]
            if stale is not None and heads[source].exists:
                db.drop(stale, f"{heads[stale].describe()}; not rebuilt: {trouble.describe()}")
        elif stale is not None:
            rebuild(db.paths[source], db.paths[stale])
            notes.append(
                f"The journal's {stale} ({heads[stale].describe()}) was rebuilt from the "
                f"{source} ({heads[source].describe()}), whose chain verifies in full."
            )
        if trouble is None:
            copy_markers.remove_all(db.paths.values())
            remember(db, heads[source])
    if trouble is not None:
        notes.append(no_whole_copy(db, trouble, examined))
    return notes


def gather_proofs(db: MirroredDatabase, journal_id: str) -> list[copy_proof.Proof]:
    """Every row proven recorded: the highest signed high-water mark (in the data home and
    beside each copy), the head last committed (beside the copies), and what the copies keep
    (receipts, checkpoints, rollbacks)."""
    key = db.signing_key()
    places = high_water.places(db.key_path or receipt_key.key_path(), db.paths.values())
    mark = high_water.highest(high_water.all_marks(places, key.public), journal_id)
    proofs = []
    if mark is not None and mark["id"] > 0:
        proofs.append(copy_proof.Proof(mark["id"], mark["row_hash"], MARK_SOURCE))
    remembered = db.head_files().read(journal_id)
    if remembered is not None and remembered.committed.id > 0:
        committed = remembered.committed
        proofs.append(copy_proof.Proof(committed.id, committed.hash, HEAD_SOURCE))
    return proofs + copy_proof.kept_in(db.paths.values(), journal_id, key.public)


HEAD_SOURCE = "the journal's head as last committed (kept beside its copies)"
MARK_SOURCE = "the server's signed high-water mark"


def remember(db: MirroredDatabase, head: copy_heads.CopyHead) -> None:
    """The copies stand together at `head`: remember it beside them (chain_head.py)."""
    if head.journal_id:
        at = chain_head.Head(head.journal_id, head.rows, head.last_hash)
        db.head_files().write(chain_head.Remembered(at))


def no_whole_copy(
    db: MirroredDatabase, best: copy_proof.Examined, examined: dict[str, copy_proof.Examined]
) -> str:
    """Record that no copy is whole (a rollback: judging stops); what the director is told."""
    first, last = copy_proof.missing_rows(best) or (best.head.rows + 1, best.head.rows + 1)
    if best.broken_at is not None:
        row_hash = f"{rollbacks.BROKEN} {best.broken_at}"  # no row ever has this hash
        source = f"the {best.role}'s chain is broken at row {best.broken_at} ({best.broken}),"
    else:
        proof = max(best.missing, key=lambda p: p.row)
        row_hash, source = proof.hash, proof.source
    rollbacks.found(db, last, row_hash, source, first - 1)
    states = "; ".join(e.describe() for e in examined.values() if not e.whole)
    return (
        f"NO COPY OF THE JOURNAL IS WHOLE ({states}): rows {first} to {last} are missing. "
        "No verdict is recorded until they are back. Restore a backup that holds them (stop "
        "the hall, copy the backup over the journal, start it again), or, if they are gone for "
        "good, run `adjudicator journal accept-loss --reason TEXT`."
    )


def resync(db: MirroredDatabase, keep: str | None = None) -> list[str]:
    """`journal resync`: verify both chains in full, then rebuild the lost or stale copy from
    the other, only if that one is whole (copy_proof); a copy that disagrees is set aside
    first. What was done, for the director."""
    if keep is not None and keep not in ROLES:
        raise ResyncError("--keep must be primary or mirror.")
    notes: list[str] = []
    with ExitStack() as stack:
        _locked(db, stack)
        verdict, primary, mirror = copy_heads.compare(db.paths[PRIMARY], db.paths[MIRROR])
        heads = {PRIMARY: primary, MIRROR: mirror}
        journal_ids = {head.journal_id for head in heads.values() if head.journal_id}
        proofs = [proof for journal_id in journal_ids for proof in gather_proofs(db, journal_id)]
        examined = {
            role: copy_proof.examine(role, db.paths[role], proofs)
            for role in ROLES
            if heads[role].exists
        }
        for role, found in examined.items():
            notes.append(
                f"The {role} {heads[role].describe()}: "
                + (
                    "its chain verifies in full."
                    if found.broken_at is None
                    else f"its chain is BROKEN (row {found.broken_at}: {found.broken})."
                )
            )
        marked = db.markers().signed
        stale = {"first-behind": PRIMARY, "second-behind": MIRROR}.get(verdict)
        if keep is not None:
            stale = PRIMARY if keep == MIRROR else MIRROR
        elif verdict == "same":
            stale = next((r for r in ROLES if db.paths[r] in marked), None)
        elif verdict == "disagree":
            sound = [role for role, found in examined.items() if found.broken_at is None]
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
        if heads[stale].exists and (verdict == "disagree" or examined[stale].broken_at is not None):
            aside = set_aside(db.paths[stale])
            notes.append(
                f"The {stale}'s chain disagrees with the {source}'s: it was set aside as {aside} "
                "(not overwritten). Keep it for the record, and find out how it came to differ."
            )
        rebuild(db.paths[source], db.paths[stale])
        copy_markers.remove_all(db.paths.values())
        remember(db, heads[source])
    rows = heads[source].rows
    notes.append(f"The {stale} was rebuilt from the {source}: both copies now hold {rows:,} rows.")
    return notes
