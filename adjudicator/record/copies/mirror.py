"""A journal on two disks: every write goes to the primary SQLite file and to its mirror.

`MirroredDatabase` is a Database over two SqliteDatabase copies (ADJUDICATOR_JOURNAL_MIRROR).
A transaction runs on both: reads on the serving copy (the primary while it lives), every write
on each live copy, and it commits on both before returning, so a verdict shown is on both disks.
The group commit batches rows as before, so a batch still costs one commit per disk.

A copy that fails (its file deleted or replaced, its disk full, read-only or pulled out) is
dropped and serving goes on from the other: the journal is "degraded: one copy". The loss is
written in a marker file beside the surviving copy (`markers`, signed with the hall's key),
so every process serving the journal drops the same copy at its next transaction, under the
same write locks, and a restarted server knows which copy is stale. Only when the last copy
fails is nothing recorded. `journal resync` rebuilds a dropped copy and removes the marker;
processes then take it back.

Copies are compared, not assumed: before each chain write, each copy's head must be the head
last committed (head_guard.py, against the records the copies keep: committed_head.py). A copy
changed behind the hall's back (rows deleted in place) is dropped like a lost one, "disagrees
at row N"; when no copy holds the head, nothing is written (ChainHeadMissing).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adjudicator.record.copies import (
    committed_head,
    head_guard,
    markers,
    mirror_identity,
    standing,
    takeover,
)
from adjudicator.record.copies.head_guard import HeadGuard
from adjudicator.record.database.db import Cursor, Database, DatabaseUnavailable
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import receipt_key, rollbacks

log = logging.getLogger("adjudicator.record.journal.journal")

PRIMARY, MIRROR = "primary", "mirror"
ROLES = (PRIMARY, MIRROR)
# Errors that say the statement itself is wrong (a constraint, a bug): every copy would say the
# same, so they are the caller's, not a sign that one disk failed.
_LOGIC_ERRORS = (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError)


class CopiesDisagree(DatabaseUnavailable):
    """The two copies hold different chains: neither is written until the director chooses."""


@dataclass(frozen=True)
class LostCopy:
    """A copy this process no longer writes: which, why, since when, and whether a marker
    file records it (then the copy is taken back when `journal resync` removes the marker)."""

    role: str
    path: str
    reason: str
    since: str
    marked: bool
    row: int | None = None  # where it parts from the chain, if it disagreed with it

    def summary(self) -> str:
        """'the mirror is lost', 'the mirror disagrees at row 5': for /healthz and status."""
        if self.row is not None:
            return f"the {self.role} disagrees at row {self.row}"
        return f"the {self.role} is lost"


def _writes(sql: str) -> bool:
    head = sql.lstrip()[:8].upper()
    return not head.startswith(("SELECT", "WITH", "EXPLAIN")) and not (
        head.startswith("PRAGMA") and "=" not in sql
    )


class MirroredDatabase(Database):
    """Two SQLite journals written as one; reads from the serving copy."""

    backend = "sqlite"

    def __init__(self, primary: str, mirror: str, key_path: Path | None = None):
        self.url = primary
        self.paths = {PRIMARY: str(primary), MIRROR: str(mirror)}
        self.path = Path(primary)
        self.key_path = key_path  # the hall's signing key; None: the configured one
        self.copies = {role: self._open(role) for role in ROLES}
        self._lost: dict[str, LostCopy] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        self._checked_pid = 0
        self._check_lock = threading.Lock()
        self._key: receipt_key.SigningKey | None = None
        self.heads = HeadGuard(self.signing_key)
        self.forged_markers: dict[str, str] = {}  # marker path -> what it claims (ignored)
        self._resyncs: frozenset[str] | None = None  # the resync notes seen (markers)
        self._withheld: tuple[int, mirror_identity.Waiting | None] | None = None  # (pid, why)

    def signing_key(self) -> receipt_key.SigningKey:
        """The hall's key, which signs the markers and keys the head records."""
        if self._key is None:
            self._key = receipt_key.load_or_create(self.key_path)
        return self._key

    def public_key(self):
        """The hall's public key, to check markers with; None while there is no key (then no
        marker counts: the hall has signed none). Never made here: a read makes no key."""
        if self._key is None:
            path = self.key_path or receipt_key.key_path()
            if not path.exists():
                return None
            try:
                self._key = receipt_key.load(path)
            except receipt_key.ReceiptKeyError:
                return None
        return self._key.public

    def existing_key(self) -> receipt_key.SigningKey | None:
        """The hall's key if there is one (never made here: a read)."""
        return self._key if self.public_key() is not None else None

    def withheld(self) -> mirror_identity.Waiting | None:
        """Why the configured mirror is not this journal's own (mirror_identity.py), if it is
        not: then this laptop does not judge, and never opens, writes or marks that file."""
        found = self._withheld
        if found is None or found[0] != os.getpid():
            primary = self.paths[PRIMARY]
            journal_id = standing.head(primary).journal_id
            found = (os.getpid(), mirror_identity.waiting(primary, self.paths[MIRROR], journal_id))
            self._withheld = found
        return found[1]

    def evidence_paths(self) -> list[str]:
        """Every copy that may prove another laptop took the journal over (read only): this
        laptop's, the configured mirror, and the mirror's last known path."""
        primary = self.paths[PRIMARY]
        journal_id = standing.head(primary).journal_id
        return mirror_identity.places(primary, self.paths[MIRROR], journal_id)

    def written_paths(self) -> list[str]:
        """The copies this laptop may write (a withheld mirror is not one of them)."""
        withheld = self.withheld()
        return [self.paths[r] for r in ROLES if not (r == MIRROR and withheld is not None)]

    def markers(self) -> markers.Markers:
        """The marker files beside the copies, signed or forged."""
        found = markers.read_all(self.paths.values(), self.public_key())
        self.forged_markers = found.forged
        return found

    def _open(self, role: str) -> SqliteDatabase:
        """A copy's database; a mirror already there is never made again by a connection (a
        process opening it first after the stick's copy was lost would make an empty one)."""
        made = role == PRIMARY or not Path(self.paths[role]).exists()
        return SqliteDatabase(self.paths[role], create_folder=role == PRIMARY, create_file=made)

    def check_copies(self) -> None:
        """Once per process, before its first transaction: do the copies stand together?

        Refused (TakenOver) while another laptop took the journal over (its statement is the
        newest, or its rows go on past this laptop's own: takeover.py). A mirror that is not
        this journal's own (withheld) is never opened: the journal is written here alone, and
        held (one_hall.py) until the director acts. Under both write locks (no commit half
        done), a copy only behind the other, or missing, is dropped (`journal resync`, or
        restarting `serve`, brings it back); two copies that disagree stop everything
        (CopiesDisagree) until the director chooses.
        """
        if self._checked_pid == os.getpid():
            return
        with self._check_lock, ExitStack() as locks:
            if self._checked_pid == os.getpid():
                return
            # Another laptop took the journal over: this one writes nothing to it, not even a
            # marker (`adjudicator kit open` here takes it back).
            takeover.refuse_if_taken_over(
                self.evidence_paths(), self.existing_key(), takeover.install_id(create=False)
            )
            withheld = self.withheld()
            if withheld is not None:
                self._withhold(withheld)
                self._checked_pid = os.getpid()
                return
            for role in ROLES:
                try:
                    locks.enter_context(self.copies[role].writer_lock())
                except DatabaseUnavailable:
                    pass  # its folder is gone: the comparison finds it missing
            try:
                verdict, primary, mirror = standing.compare(*self.paths.values())
            except sqlite3.Error as exc:
                raise DatabaseUnavailable(f"The journal's copies cannot be read: {exc}.") from None
            if verdict == "disagree":
                raise CopiesDisagree(disagree_message(primary, mirror))
            if mirror.exists:  # from now on, never made again here: only a resync rebuilds it
                self.copies[MIRROR].create_file = False
            behind = {"first-behind": (PRIMARY, primary), "second-behind": (MIRROR, mirror)}
            if verdict in behind:
                role, stale = behind[verdict]
                self._checked_pid = os.getpid()  # drop() reads the markers: no recursion
                if self.paths[role] not in self.markers().signed:
                    self.drop(role, f"{stale.describe()}, behind the other copy")
                # else: dropped already, and the marker says why (read at the next sync)
            self._checked_pid = os.getpid()

    def _withhold(self, why: mirror_identity.Waiting) -> None:
        """Never write the configured mirror (no marker either: it is not this journal's)."""
        since = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock:
            self._lost[MIRROR] = LostCopy(MIRROR, self.paths[MIRROR], why.what(), since, False)
        log.error("journal: the mirror is withheld, this laptop does not judge: %s", why.what())

    def recheck_mirror(self) -> None:
        """Look again whether the configured mirror is the journal's own (after a resync)."""
        self._withheld = None

    def _take_back_withheld(self) -> None:
        """After a resync: the configured mirror is this journal's own again? Then write it."""
        self._withheld = None
        if self.withheld() is not None:
            return
        with self._lock:
            self._lost.pop(MIRROR, None)
            self.copies[MIRROR] = self._open(MIRROR)
        log.warning("journal: the mirror is back (resynced): both copies written")

    # -- which copies serve ------------------------------------------------------------------

    def live_roles(self) -> list[str]:
        """The copies written now, the serving one first (after reading the marker files)."""
        self.check_copies()
        self._sync_markers()
        return [role for role in ROLES if role not in self._lost]

    def lost_copy(self) -> LostCopy | None:
        """The copy dropped, if the journal is degraded to one copy."""
        self._sync_markers()
        lost = list(self._lost.values())
        return lost[0] if lost else None

    def serving(self) -> SqliteDatabase:
        return self.copies[self.live_roles()[0]]

    def drop(self, role: str, reason: str, row: int | None = None) -> bool:
        """Stop writing `role` (it failed, or it disagrees with the chain at `row`); False if
        it is the last copy (then nothing is)."""
        with self._lock:
            if role in self._lost:
                return True
            if all(other in self._lost for other in ROLES if other != role):
                return False
            since = datetime.now(UTC).isoformat(timespec="seconds")
            survivors = [self.paths[r] for r in ROLES if r != role and r not in self._lost]
            fields = {"lost": self.paths[role], "role": role, "reason": reason, "since": since}
            try:
                marked = markers.write(survivors, {**fields, "row": row}, self.signing_key())
            except receipt_key.ReceiptKeyError:
                marked = False  # this process still drops it; the others find out themselves
            self._lost[role] = LostCopy(role, self.paths[role], reason, since, marked, row)
        log.error(
            "journal degraded to one copy: %s (%s): %s; serving from the other",
            self._lost[role].summary(),
            self.paths[role],
            reason,
        )
        txn = getattr(self._local, "txn", None)
        if txn is not None:
            txn.discard(role)
        return True

    def _sync_markers(self) -> None:
        """Drop copies another process found lost; take back copies a resync restored."""
        withheld = self._withheld is not None and self._withheld[1] is not None
        if withheld and self._checked_pid == os.getpid():
            tokens = markers.resync_tokens([self.paths[PRIMARY]], self.public_key())
            if self._resyncs is not None and tokens - self._resyncs:
                self._take_back_withheld()
            self._resyncs = tokens
            if self._withheld is not None and self._withheld[1] is not None:
                return  # never reads nor drops anything by a marker beside a withheld mirror
        named = self.markers().signed
        tokens = markers.resync_tokens(self.paths.values(), self.public_key())
        with self._lock:
            if self._resyncs is not None and tokens - self._resyncs:
                # Rebuilt by `journal resync` (not a file swapped under us): open both afresh,
                # and forget losses marked before it (a marker there now is newer: read below).
                for role in ROLES:
                    lost = self._lost.get(role)
                    if lost is None or lost.marked:
                        self._lost.pop(role, None)
                        self.copies[role] = self._open(role)
            self._resyncs = tokens
            for role in ROLES:
                marker = named.get(self.paths[role])
                lost = self._lost.get(role)
                if marker is not None and lost is None:
                    if all(other in self._lost for other in ROLES if other != role):
                        continue  # never the last copy: its own commits will say if it fails
                    row = marker.get("row")
                    self._lost[role] = LostCopy(
                        role,
                        self.paths[role],
                        marker["reason"],
                        marker["since"],
                        True,
                        row if isinstance(row, int) else None,
                    )
                elif marker is None and lost is not None and lost.marked:
                    del self._lost[role]  # resynced: a fresh connection to the rebuilt file
                    self.copies[role] = self._open(role)
                    log.warning("journal: the %s is back (resynced): both copies written", role)

    # -- the Database interface -------------------------------------------------------------

    @contextmanager
    def transaction(self, *, chain_lock: bool = False) -> Iterator[Cursor]:
        with ExitStack() as locks:
            roles = self._lock_copies(locks) if chain_lock else self.live_roles()
            txn = _Transaction(self, chain_lock)
            self._local.txn = txn
            try:
                txn.begin(roles if chain_lock else roles[:1])
                if chain_lock and self.heads.on:
                    txn.start_head = self.heads.before(txn, self.drop, self._disagree)
                yield _MirrorCursor(txn)
            except sqlite3.Error as exc:
                txn.rollback()
                raise DatabaseUnavailable(f"The journal could not be written: {exc}.") from None
            except BaseException:
                txn.rollback()
                raise
            else:
                txn.commit()
            finally:
                self._local.txn = None
                txn.locks.close()

    @contextmanager
    def locked_copies(self) -> Iterator[list[str]]:
        """Hold every live copy's write lock, as a chain write does (no commit is half done
        on the copies meanwhile); the live copies."""
        with ExitStack() as locks:
            yield self._lock_copies(locks)

    def _lock_copies(self, locks: ExitStack) -> list[str]:
        """Take the write lock of every live copy, in role order (so no two processes wait on
        each other); the live copies, read again under the locks."""
        while True:
            wanted = self.live_roles()
            attempt = ExitStack()
            held = []
            for role in wanted:
                try:
                    attempt.enter_context(self.copies[role].writer_lock())
                    held.append(role)
                except DatabaseUnavailable as exc:
                    if not self.drop(role, str(exc)):
                        attempt.close()
                        raise
            now = self.live_roles()
            if set(now) <= set(held):
                locks.enter_context(attempt.pop_all())
                return now
            attempt.close()  # a copy came back meanwhile: lock it too, in order

    def _disagree(self) -> CopiesDisagree:
        primary, mirror = (standing.head(self.paths[role]) for role in ROLES)
        return CopiesDisagree(disagree_message(primary, mirror))

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        while True:
            role = self.live_roles()[0]
            try:
                return self.copies[role].query_one(sql, params)
            except DatabaseUnavailable as exc:
                if not self.drop(role, str(exc)):
                    raise

    def close(self) -> None:
        for copy in self.copies.values():
            copy.close()

    def file_problem(self) -> str | None:
        """Copies whose files were deleted or replaced are dropped; a problem only if the last."""
        for role in self.live_roles():
            problem = self.copies[role].file_problem()
            if problem and not self.drop(role, problem):
                return problem
        return None

    def space_problem(self) -> str | None:
        problems = [self.copies[role].space_problem() for role in self.live_roles()]
        return problems[0] if problems and all(problems) else None


def disagree_message(primary: standing.CopyHead, mirror: standing.CopyHead) -> str:
    return (
        f"The journal's two copies disagree ({primary.describe()}, {mirror.describe()}, and "
        "their chains differ): nothing is recorded until the director chooses the copy to keep. "
        "Run `adjudicator journal status`, then `adjudicator journal resync --keep primary` "
        "(or `--keep mirror`): the other copy is set aside, never overwritten."
    )


class _Transaction:
    """One transaction on every live copy: (role, raw cursor) pairs, the serving copy first."""

    def __init__(self, db: MirroredDatabase, chain_lock: bool):
        self.db = db
        self.chain_lock = chain_lock
        self.parts: list[tuple[str, sqlite3.Cursor]] = []
        self.all_begun = False
        self.locks = ExitStack()  # write locks a read transaction takes at its first write
        self.start_head: committed_head.Head | None = None  # where the copies ended when checked

    def read_heads(self) -> tuple[dict[str, committed_head.Head], list[str | None]] | None:
        """Each live copy's head and head record, one statement each; None before the journal
        has its tables or its identity (in no copy). A copy that cannot be read, or that lacks
        the identity the other has, is dropped (the last one: raised)."""
        heads: dict[str, committed_head.Head] = {}
        records: list[str | None] = []
        anonymous = []
        for role, raw in list(self.parts):
            try:
                row = raw.connection.execute(head_guard.HEAD_SQL).fetchone()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return None
                if not self.db.drop(role, f"its head cannot be read: {exc}"):
                    raise DatabaseUnavailable(f"The journal cannot be read: {exc}.") from None
                continue
            head = head_guard.head_from_row(row)
            if head is None:
                anonymous.append(role)
                continue
            heads[role] = head
            records.append(head_guard.record_from_row(row))
        if not heads:
            return None  # a journal being made: no copy has its identity yet
        for role in anonymous:  # deleted behind the hall's back: the comparison is kept on
            self.db.drop(role, "its journal identity row is gone (changed behind the hall's back)")
        return heads, records

    def serving_role(self) -> str:
        return self.parts[0][0]

    def hash_at(self, role: str, row_id: int) -> str | None:
        """That copy's hash of row `row_id` (inside this transaction), None if it has none."""
        raw = next(raw for name, raw in self.parts if name == role)
        found = raw.connection.execute(head_guard.HASH_AT_SQL, (row_id,)).fetchone()
        return found[0] if found else None

    def record_rollback(self, proven: committed_head.Head, head: int, record: str) -> None:
        """Record, and commit at once (the chain lock still held), that rows up to `proven`
        are missing, with the copies' head record now where they stand (the proof is in the
        rollback); then begin again on the live copies."""
        source = rollbacks.HEAD_SOURCE
        params = rollbacks.values(proven.id, proven.hash, source, head)
        self.run("execute", rollbacks.INSERT_SQL, params)
        self.write_record(record)
        self._commit_parts()
        rollbacks.logged(proven.id, source, head)
        for role in self.db.live_roles():
            self._begin_one(role)

    def write_record(self, record: str) -> None:
        """Keep the head's sealed record in every live copy, in this transaction."""
        self.run("execute", committed_head.WRITE_SQL, (record,))

    def new_head(self) -> committed_head.Head | None:
        """Where the serving copy ends now, before the commit (one indexed read)."""
        if not self.parts:
            return None
        try:
            row = self.parts[0][1].connection.execute(head_guard.HEAD_SQL).fetchone()
        except sqlite3.OperationalError:
            return None
        return head_guard.head_from_row(row)

    def begin(self, roles: list[str]) -> None:
        """Begin on `roles` (a chain write: every live copy) or on the serving copy alone."""
        for role in roles:
            self._begin_one(role)
        if not self.parts:  # the serving copy failed at once: the next one serves
            self._begin_serving()
        self.all_begun = self.chain_lock or len(self.db.live_roles()) == 1

    def _begin_one(self, role: str, immediate: bool = False) -> None:
        try:
            begun = self.db.copies[role].begin(chain_lock=self.chain_lock or immediate)
            self.parts.append((role, begun))
        except DatabaseUnavailable as exc:
            if not self.db.drop(role, str(exc)):
                raise

    def _begin_serving(self) -> None:
        while not self.parts:
            self._begin_one(self.db.live_roles()[0])

    def _begin_rest(self) -> None:
        """A write in a read transaction: take every live copy's write lock (as a chain write
        does, so a resync never runs beside it), then begin on the other live copies too. If
        the copies changed since the transaction began, it begins again on those now live."""
        if self.all_begun:
            return
        self.all_begun = True
        live = self.db._lock_copies(self.locks)
        if [role for role, _ in self.parts] != live[:1]:
            self.rollback()
            for role in live:
                self._begin_one(role, immediate=True)
            return
        for role in live[1:]:
            self._begin_one(role, immediate=True)

    def run(self, method: str, sql: str, params: Any) -> sqlite3.Cursor:
        """Execute on the serving copy (a read) or on every copy (a write); the serving cursor."""
        write = _writes(sql)
        if write:
            self._begin_rest()
        result = None
        for role, raw in list(self.parts if write else self.parts[:1]):
            try:
                getattr(raw, method)(sql, params)
            except _LOGIC_ERRORS:
                if result is None:
                    raise  # the serving copy refused it: the caller's error, as without a mirror
                self.db.drop(role, "it refused a write the other copy took: they diverged")
                continue
            except sqlite3.Error as exc:
                if not self.db.drop(role, str(exc)):
                    self.db.copies[role].discard_connection()  # reopened fresh next time
                    raise
                if not write:  # a read: ask the copy that serves now
                    self._begin_serving()
                    return self.run(method, sql, params)
                continue
            result = result or raw
        if result is None:
            raise DatabaseUnavailable("The journal could not be written: no copy took the write.")
        return result

    def discard(self, role: str) -> None:
        for index, (name, raw) in enumerate(self.parts):
            if name == role:
                _rollback(raw)
                del self.parts[index]
                return

    def commit(self) -> None:
        """Commit on every copy at once (the other copy's in a helper thread: two disks, two
        fsyncs side by side); fine while one holds it (the others are dropped). A chain write
        that moves the head writes the new head's sealed record into every copy, in itself."""
        if not (self.chain_lock and self.db.heads.on):
            self._commit_parts()
            return
        after = self.new_head()
        try:
            self.db.heads.at_commit(self, self.start_head, after)
        except BaseException:  # the head's record cannot be written (the key): nothing is
            self.rollback()
            raise
        self._commit_parts()
        self.db.heads.committed(after)

    def _commit_parts(self) -> None:
        outcomes: dict[str, BaseException | None] = {}
        helpers = [_commit_helper().submit(_commit, raw) for _, raw in self.parts[1:]]
        if self.parts:
            outcomes[self.parts[0][0]] = _commit(self.parts[0][1])
        for (role, _), helper in zip(self.parts[1:], helpers, strict=True):
            outcomes[role] = helper.result()
        self.parts = []
        committed = [role for role, failure in outcomes.items() if failure is None]
        failures = [(role, failure) for role, failure in outcomes.items() if failure is not None]
        if not committed:
            for role, _ in failures:
                self.db.copies[role].discard_connection()
            reason = failures[0][1] if failures else "no copy is open"
            raise DatabaseUnavailable(f"The journal could not be written: {reason}.")
        for role, exc in failures:
            self.db.drop(role, f"a commit failed on it: {exc}")

    def rollback(self) -> None:
        for _, raw in self.parts:
            _rollback(raw)
        self.parts = []


class _MirrorCursor(Cursor):
    """A Cursor whose statements go to the transaction's copies (see _Transaction.run)."""

    def __init__(self, txn: _Transaction):
        super().__init__(txn.parts[0][1])
        self._txn = txn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        self._raw = self._txn.run("execute", sql, tuple(params))
        self._names = None
        return self

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Cursor:
        self._raw = self._txn.run("executemany", sql, [tuple(row) for row in rows])
        self._names = None
        return self


_HELPER: tuple[int, ThreadPoolExecutor] | None = None
_HELPER_LOCK = threading.Lock()


def _commit_helper() -> ThreadPoolExecutor:
    """This process's helper threads for the second copy's commits (made anew after a fork)."""
    global _HELPER
    with _HELPER_LOCK:
        if _HELPER is None or _HELPER[0] != os.getpid():
            _HELPER = (os.getpid(), ThreadPoolExecutor(4, thread_name_prefix="mirror-commit"))
        return _HELPER[1]


def _commit(raw: sqlite3.Cursor) -> BaseException | None:
    """COMMIT one copy's transaction; its error (rolled back), or None."""
    try:
        raw.connection.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(raw)
        return exc
    return None


def _rollback(raw: sqlite3.Cursor) -> None:
    try:
        raw.connection.execute("ROLLBACK")
    except sqlite3.Error:
        pass
