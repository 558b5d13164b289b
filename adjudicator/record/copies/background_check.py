"""A serving hall verifies both copies of a mirrored journal in full, every few minutes.

The head comparison before each commit (head_guard.py) catches a copy cut short or written
behind the hall's back at its newest row; a row changed further down, with the chain
recomputed or not, is found here: each live copy's chain is verified from row 1 and held
against every row proven recorded (proof.py). A copy that is not whole while the other is
gets dropped (a signed marker: every process follows); when no live copy is whole, the rows
missing are recorded as a rollback and judging stops.

One worker does it per interval: the stamp file beside the journal (`journal.sqlite3.verified`)
is locked without waiting and holds the time of the last full verification, so the others skip.
"""

from __future__ import annotations

import fcntl
import logging
import os
import random
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from adjudicator import settings
from adjudicator.durable import open_owner_only
from adjudicator.record.copies import proof, standing
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database.db import DatabaseUnavailable

log = logging.getLogger("adjudicator.record.journal.journal")

SUFFIX = ".verified"


def stamp_path(db: MirroredDatabase) -> Path:
    return Path(db.paths["primary"] + SUFFIX)


def last_verified(db: MirroredDatabase) -> str:
    """When both copies were last verified in full by a serving hall ('' if never)."""
    try:
        return stamp_path(db).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def verify_live(db: MirroredDatabase) -> list[str]:
    """Verify each live copy in full and hold it against the proofs; drop what is not whole
    beside a whole copy, or record the rows missing when none is. What was found.

    The proofs are read under the copies' write locks: a commit writes the copies side by side,
    and one read between the two would prove a row the other copy is still committing. The
    chains are verified after (the copies only grow meanwhile), so verdicts wait only for the
    reads of the proofs."""
    with db.locked_copies() as live:
        journal_id = next((standing.head(db.paths[role]).journal_id for role in live), None)
        if not journal_id:
            return []
        about = {journal_id: proof.for_journal(db, journal_id)}
    examined = {role: proof.examine(role, db.paths[role], about) for role in live}
    whole = [role for role in live if examined[role].whole]
    found = []
    for role in live:
        copy = examined[role]
        if copy.whole:
            continue
        found.append(copy.describe())
        if whole:
            first = (proof.missing_rows(copy) or (copy.head.rows + 1, 0))[0]
            db.drop(role, f"the full verification found {copy.describe()}", first)
    if not whole and examined:
        best = max(examined.values(), key=lambda copy: (copy.fork is None, copy.usable_to))
        found.append(proof.record_missing(db, best, examined))
    return found


def watch(db) -> Watch | None:
    """Start the background verification for a mirrored journal in this serving process."""
    if not isinstance(db, MirroredDatabase):
        return None
    minutes = settings.get_int("journal_verify_minutes", 0)
    found = Watch(db, minutes)
    found.start()
    return found


def stamp_now(db: MirroredDatabase) -> None:
    """Both copies were just verified in full (at a server's start): say when."""
    try:
        fd = open_owner_only(stamp_path(db), os.O_WRONLY | os.O_TRUNC)
        os.write(fd, datetime.now(UTC).isoformat(timespec="seconds").encode("ascii"))
        os.close(fd)
    except OSError:
        pass


class Watch:
    """The background verification of one serving process (a daemon thread)."""

    def __init__(self, db: MirroredDatabase, minutes: int):
        self.db = db
        self.seconds = minutes * 60
        self._started = 0  # the pid that started the thread (a forked worker starts its own)
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the thread in this process, once."""
        with self._lock:
            if self.seconds <= 0 or self._started == os.getpid():
                return
            self._started = os.getpid()
        threading.Thread(target=self._run, name="journal-verify", daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(self.seconds * random.uniform(0.2, 0.4))  # workers wake apart
            try:
                self.run_if_due()
            except Exception:  # noqa: BLE001 - the thread must outlive any one failure
                log.exception("the background verification of the journal's copies failed")

    def run_if_due(self) -> bool:
        """Verify now if no process did within the interval (and none is doing it)."""
        try:
            fd = open_owner_only(stamp_path(self.db), os.O_RDWR)
        except OSError:
            return False
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False  # another process verifies now
            last = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
            if last and _age(last) < self.seconds:
                return False
            try:
                for problem in verify_live(self.db):
                    log.error("journal copies: %s", problem)
            except DatabaseUnavailable as exc:
                log.error("journal copies could not be verified: %s", exc)
                return False
            now = datetime.now(UTC).isoformat(timespec="seconds").encode("ascii")
            os.ftruncate(fd, 0)
            os.pwrite(fd, now, 0)
            return True
        finally:
            os.close(fd)


def _age(stamp: str) -> float:
    try:
        then = datetime.fromisoformat(stamp)
    except ValueError:
        return float("inf")
    return (datetime.now(UTC) - then).total_seconds()
