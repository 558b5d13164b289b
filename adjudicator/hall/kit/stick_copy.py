"""Whether the stick's copy of the journal may be taken over: the one walk of its chain a
takeover makes, before it becomes this laptop's journal.

The stick is read once: its journal is copied first (SQLite's backup: one consistent snapshot)
into a private folder of this laptop, while the passphrase's Argon2id runs, and that copy is
walked and proven, and then put in place as this laptop's journal (renamed there, or copied
from this laptop's own disk). A stick written to after it was read changes nothing here: the
rows proven are the rows taken over. (Walking the stick and then copying it left a window in
which a row changed on the stick would have come across unproven.) The private folder is made
beside where the journal goes (in the nearest folder of its path that exists), so that the
copy is on the disk it goes to: a rename puts it in place, and a season's journal never fills
a /tmp held in memory. One left by a `kit open` that was killed is removed by the next.

The copy must be the journal the kit's signed manifest names (manifest.py), a journal the hall's
key began (and no newer journal the key signed rows of), and proven by the fork check every
start makes of a copy (record/copies/proof.py, fork_check.py): its chain verifies in full, no
signed statement contradicts it (the manifest's head row, the high-water mark kept beside it,
the kiosks' receipts and the checkpoints it keeps, every keyed row from where the manifest or
any statement says keying began: a copy rewritten and its chain recomputed, or stripped of its
proofs, is a FORK, named), and it holds every row they prove recorded (a backup or an older
copy in the mirror's place is a ROLLBACK, named).
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from adjudicator.hall.kit import manifest
from adjudicator.hall.kit.sealing import KitError
from adjudicator.record.copies import proof, resync, standing
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import chain_walk, split_walk
from adjudicator.record.journal.receipt_key import SigningKey
from adjudicator.record.proofs import high_water, journal_begun
from adjudicator.record.proofs.fork_check import Proof, Statements

COPY_NAME = "journal.sqlite3"  # the snapshot's name in its private folder


class StickCopyRefused(KitError):
    """The stick's copy of the journal cannot be taken over: nothing was written."""


class ChainWalk:
    """The stick's journal copied into a private folder, and that copy's chain walked (its
    later half in a child process: split_walk.py), in a thread while the passphrase's Argon2id
    runs (it leaves Python's lock), so that the takeover's one walk is mostly done when the key
    is: `verify` then looks up what the statements name (chain_walk.walk's `chained`)."""

    def __init__(self, stick: str, folder: str | None):
        self._stop = threading.Event()
        self._found: chain_walk.Walk | None = None
        self.stick = stick
        self.copy: str | None = None  # the snapshot, once taken
        copy = str(Path(folder) / COPY_NAME) if folder else None
        self._thread = threading.Thread(target=self._run, args=(stick, copy), name="stick-chain")
        self._thread.daemon = True
        self._thread.start()

    def _run(self, stick: str, copy: str | None) -> None:
        _leave_interrupts_to_the_main_thread()
        if copy is None or not Path(stick).is_file():
            return  # no private folder, or no stick: verify reads the stick itself, and says
        try:
            resync.snapshot(stick, copy, reading=True)  # nothing written to the stick
        except (OSError, sqlite3.Error):
            return  # unreadable or damaged: verify reads the stick itself, and names it
        self.copy = copy
        if self._stop.is_set():
            return
        try:
            self._found = split_walk.walk(copy, self._stop)  # on both cores
        except Exception:  # noqa: BLE001 - only a head start: verify walks again and says why
            self._found = None  # stopped, unreadable, damaged in any way

    def result(self) -> chain_walk.Walk | None:
        """The copy's chain as walked (None: verify walks it itself)."""
        self._thread.join()
        return self._found

    def taken(self) -> str:
        """The journal to prove and put in place: the snapshot, or the stick's own file where
        none could be taken (verify then refuses it, naming what is wrong)."""
        self._thread.join()
        return self.copy or self.stick

    def put(self, target: str) -> None:
        """The proven copy made `target`, this laptop's journal: renamed there from the private
        folder (copied, across file systems); from the stick only where no snapshot was taken."""
        self._thread.join()
        if self.copy is None:
            resync.rebuild(self.stick, target)
            return
        try:
            resync.put_in_place(self.copy, target)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise KitError(f"{target} could not be written: {exc}.") from None
            resync.rebuild(self.copy, target)  # another file system: copied from this disk
        except sqlite3.Error as exc:
            raise KitError(f"{target} could not be written: {exc}.") from None

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _leave_interrupts_to_the_main_thread() -> None:
    """Block Ctrl-C (SIGINT) in this thread. The director may press it while the main thread
    waits at the passphrase's prompt: the system gives a signal to any thread not blocking
    it, and one given to this thread would not interrupt the prompt's read, so Ctrl-C would
    seem to do nothing. (Its child processes inherit the block; the walk's end ends them.)"""
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, OSError, ValueError):
        pass  # no POSIX threads' signal masks: nothing to leave


@contextmanager
def walking(path: str, target: str | None = None) -> Iterator[ChainWalk]:
    """The stick's journal copied into a private folder and its chain walked meanwhile
    (ChainWalk); the walk stopped, and the folder removed, when the block ends: a wrong
    passphrase, any refusal among them, or the copy put in place. `target`: where the copy
    goes (the private folder is made near it)."""
    folder = walk = None
    try:  # a Ctrl-C as the walk starts leaves no folder behind either
        folder = private_folder(target)
        walk = ChainWalk(path, folder)
        yield walk
    finally:
        if walk is not None:
            walk.stop()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def private_folder(target: str | None) -> str | None:
    """A new folder only this user may read (0700), in the nearest existing folder of
    `target`'s path, else in the system's temporary folder; None when neither can be had (the
    stick is then proven and copied as it stands). Folders left there by a `kit open` that no
    longer runs are removed first."""
    near = _nearest_folder(Path(target).parent) if target else None
    for where in ([str(near)] if near else []) + [None]:
        try:
            if where is not None:
                _remove_left_behind(Path(where))
            return tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{os.getpid()}-", dir=where)
        except OSError:
            continue
    return None


PRIVATE_PREFIX = ".adjudicator-kit-open-"  # then the pid of the `kit open` that made it


def _nearest_folder(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if candidate.is_dir():
            return candidate
    return None


def _remove_left_behind(where: Path) -> None:
    """Private folders of a `kit open` killed before it could remove its own (its pid gone)."""
    for found in where.glob(f"{PRIVATE_PREFIX}*"):
        pid = found.name[len(PRIVATE_PREFIX) :].partition("-")[0]
        if not pid.isdigit() or found.is_symlink() or not found.is_dir():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(found, ignore_errors=True)
        except (PermissionError, OverflowError, ValueError):
            continue  # another user's process: not ours to judge


def verify(
    path: str,
    key: SigningKey,
    key_path: Path,
    named: manifest.Head | None,
    chained: chain_walk.Walk | None = None,
    stick: str | None = None,
) -> standing.CopyHead:
    """The copy's head if it may be taken over; StickCopyRefused naming what is wrong. `named`:
    the journal the kit's manifest names (None: the kit was sealed before any journal);
    `chained`: its chain walked already (ChainWalk); `stick`: where the copy at `path` was
    taken from (ChainWalk.taken), whose name the refusals give and beside which the hall's
    marks are kept."""
    stick = stick or path
    head = readable_head(path, stick)
    if not head.exists or not head.journal_id:
        raise StickCopyRefused(
            f"No journal at {stick}: set ADJUDICATOR_JOURNAL_MIRROR to the journal's copy on the "
            "USB stick (nothing was written)."
        )
    if named is not None and head.journal_id != named.journal:
        raise StickCopyRefused(
            f"The journal at {stick} ({head.journal_id[:8]}) is not the one the kit's manifest "
            f"names ({named.journal[:8]}): another journal, or a backup of another event, was "
            "put in the mirror's place. Nothing was written. Give the journal's copy that was "
            "on the stick with this kit (ADJUDICATOR_JOURNAL_MIRROR)."
        )
    _refuse_unbegun(path, head.journal_id, key, key_path, stick)
    # The one call that holds a copy against the hall's signed statements (the fork check of
    # issue 33, as every start makes it), the manifest's among them: a fork, rows missing or a
    # broken chain refuse it.
    said = proof.statements_of([path], key, key_path, head.journal_id, beside=[stick])
    statements = with_manifest(said, named)
    examined = proof.examine("stick's copy", path, {head.journal_id: statements}, chained=chained)
    if not examined.whole:
        raise StickCopyRefused(
            f"The journal on the stick cannot be taken over: {examined.describe()}. "
            f"{_what(examined)} Nothing was written. Bring the copy that holds the hall's "
            "rows (a backup, the other laptop's disk)."
        )
    return head


def readable_head(path: str, shown: str | None = None) -> standing.CopyHead:
    """The head of the copy at `path`; StickCopyRefused if SQLite cannot read it at all (a file
    overwritten, or not a journal), naming it `shown` (the stick's copy it was taken from)."""
    try:
        return standing.head(path)
    except sqlite3.DatabaseError as exc:
        raise StickCopyRefused(
            f"The journal at {shown or path} cannot be read ({exc}): it is damaged, or not a "
            "journal. Nothing was written. Bring the copy that holds the hall's rows (a backup, "
            "the other laptop's disk)."
        ) from None


def with_manifest(statements: Statements, named: manifest.Head | None) -> Statements:
    """The statements, and what the kit's manifest says of the journal: its head row, and where
    keying began (the earlier of its and theirs counts)."""
    if named is None or named.journal != statements.journal:
        return statements
    proofs = statements.proofs
    if named.row > 0:
        proofs += (Proof(named.row, named.row_hash, manifest.SOURCE, named.journal),)
    keyed_from, source = statements.keyed_from, statements.keyed_source
    if named.keyed_from is not None and (keyed_from is None or named.keyed_from < keyed_from):
        keyed_from, source = named.keyed_from, manifest.SOURCE
    return replace(statements, proofs=proofs, keyed_from=keyed_from, keyed_source=source)


def _what(examined: proof.Examined) -> str:
    """What such a copy is, in one word the director can act on."""
    if examined.fork is not None:
        return (
            "It is a FORK: another history than the one the hall recorded (a copy rewritten, "
            "or stripped of its proofs)."
        )
    if examined.missing:
        return (
            "It is a ROLLBACK: an older copy than the hall's (a backup, or an older copy, put "
            "in the mirror's place)."
        )
    return "Its chain is damaged."


def _refuse_unbegun(
    path: str, journal_id: str, key: SigningKey, key_path: Path, stick: str
) -> None:
    copy = SqliteDatabase(path, create_folder=False)
    try:
        _, signed = journal_begun.identity(copy)
    finally:
        copy.close()
    marks = high_water.all_marks(high_water.places(key_path, [stick]), key.public)
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
