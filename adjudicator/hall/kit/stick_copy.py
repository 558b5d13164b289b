"""Whether the stick's copy of the journal may be taken over: the one walk of its chain a
takeover makes, before it becomes this laptop's journal.

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

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from adjudicator.hall.kit import manifest
from adjudicator.hall.kit.sealing import KitError
from adjudicator.record.copies import proof, standing
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import chain_walk, split_walk
from adjudicator.record.journal.receipt_key import SigningKey
from adjudicator.record.proofs import high_water, journal_begun
from adjudicator.record.proofs.fork_check import Proof, Statements


class StickCopyRefused(KitError):
    """The stick's copy of the journal cannot be taken over: nothing was written."""


class ChainWalk:
    """The stick's chain, walked in a thread (its later half in a child process: split_walk.py)
    while the passphrase's Argon2id runs (it leaves Python's lock), so that the takeover's one
    walk is mostly done when the key is: `verify` then looks up what the statements name
    (chain_walk.walk's `chained`)."""

    def __init__(self, path: str):
        self._stop = threading.Event()
        self._found: chain_walk.Walk | None = None
        self._thread = threading.Thread(target=self._run, args=(path,), name="stick-chain")
        self._thread.daemon = True
        self._thread.start()

    def _run(self, path: str) -> None:
        if not Path(path).is_file():
            return  # verify says so
        try:
            self._found = split_walk.walk(path, self._stop)  # on both cores
        except Exception:  # noqa: BLE001 - only a head start: verify walks again and says why
            self._found = None  # stopped, unreadable, damaged in any way

    def result(self) -> chain_walk.Walk | None:
        """The chain as walked (None: verify walks it itself)."""
        self._thread.join()
        return self._found

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


@contextmanager
def walking(path: str) -> Iterator[ChainWalk]:
    """The stick's chain walked meanwhile (ChainWalk), and stopped when the block ends, a
    wrong passphrase or any refusal among them."""
    walk = ChainWalk(path)
    try:
        yield walk
    finally:
        walk.stop()


def verify(
    path: str,
    key: SigningKey,
    key_path: Path,
    named: manifest.Head | None,
    chained: chain_walk.Walk | None = None,
) -> standing.CopyHead:
    """The copy's head if it may be taken over; StickCopyRefused naming what is wrong. `named`:
    the journal the kit's manifest names (None: the kit was sealed before any journal);
    `chained`: its chain walked already (ChainWalk)."""
    head = readable_head(path)
    if not head.exists or not head.journal_id:
        raise StickCopyRefused(
            f"No journal at {path}: set ADJUDICATOR_JOURNAL_MIRROR to the journal's copy on the "
            "USB stick (nothing was written)."
        )
    if named is not None and head.journal_id != named.journal:
        raise StickCopyRefused(
            f"The journal at {path} ({head.journal_id[:8]}) is not the one the kit's manifest "
            f"names ({named.journal[:8]}): another journal, or a backup of another event, was "
            "put in the mirror's place. Nothing was written. Give the journal's copy that was "
            "on the stick with this kit (ADJUDICATOR_JOURNAL_MIRROR)."
        )
    _refuse_unbegun(path, head.journal_id, key, key_path)
    # The one call that holds a copy against the hall's signed statements (the fork check of
    # issue 33, as every start makes it), the manifest's among them: a fork, rows missing or a
    # broken chain refuse it.
    statements = with_manifest(proof.statements_of([path], key, key_path, head.journal_id), named)
    examined = proof.examine("stick's copy", path, {head.journal_id: statements}, chained=chained)
    if not examined.whole:
        raise StickCopyRefused(
            f"The journal on the stick cannot be taken over: {examined.describe()}. "
            f"{_what(examined)} Nothing was written. Bring the copy that holds the hall's "
            "rows (a backup, the other laptop's disk)."
        )
    return head


def readable_head(path: str) -> standing.CopyHead:
    """The head of the copy at `path`; StickCopyRefused if SQLite cannot read it at all (a file
    overwritten, or not a journal)."""
    try:
        return standing.head(path)
    except sqlite3.DatabaseError as exc:
        raise StickCopyRefused(
            f"The journal at {path} cannot be read ({exc}): it is damaged, or not a journal. "
            "Nothing was written. Bring the copy that holds the hall's rows (a backup, the "
            "other laptop's disk)."
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
