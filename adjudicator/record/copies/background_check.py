"""A serving hall verifies both copies of a mirrored journal in full, every few minutes.

The head comparison before each commit (head_guard.py) catches a copy cut short or written
behind the hall's back at its newest row; a row changed further down, with the chain
recomputed or not, is found here: each live copy's chain is verified from row 1 and held
against every row proven recorded (proof.py). A copy that is not whole while the other is
gets dropped (a signed marker: every process follows); when no live copy is whole, the rows
missing are recorded as a rollback and judging stops.

One worker does it per interval: the stamp file beside the journal (`journal.sqlite3.verified`)
is locked without waiting and holds the time of the last full verification, so the others skip.

That worker has a child process walk, at the lowest CPU priority (`python -P -m
adjudicator.record.copies.background_check`). Walking a long chain is seconds of pure Python:
on a thread of a serving worker it held the interpreter's lock all that while, and each verdict
and poll of that worker waited for it at every turn (a verdict's p99 was 13-15x its usual
beside it: benchmarks/live_check.py). The child does exactly what the thread did
(`verify_live`), as any process of the hall does: it opens the copies, and a drop is a signed
marker every process follows. It prints what it found as one JSON line, which the worker logs.
It ends when its worker does (Linux: a signal at its parent's death), and is stopped past its
time.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import random
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adjudicator import children, settings
from adjudicator.durable import open_owner_only
from adjudicator.errors import AdjudicatorError
from adjudicator.record.copies import proof, standing
from adjudicator.record.copies.mirror import MIRROR, PRIMARY, MirroredDatabase
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.journal import receipt_key

log = logging.getLogger("adjudicator.record.journal.journal")

SUFFIX = ".verified"
LONGEST_SECONDS = 20 * 60  # a child still walking after this, or four intervals, is stopped


class NotVerified(Exception):
    """The child did not finish the verification (it failed, or ran past its time)."""


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
        """Verify now (in a child process) if no process did within the interval (and none is
        doing it); whether both copies were verified now."""
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
            if last and 0 <= _age(last) < self.seconds:  # a time ahead: a clock set back since
                return False
            try:
                found = verify_apart(self.db, max(LONGEST_SECONDS, 4 * self.seconds))
                if found is None:  # no process can be started here: on this thread, as before
                    found = verify_live(self.db)
            except DatabaseUnavailable as exc:
                log.error("journal copies could not be verified: %s", exc)
                return False
            except NotVerified as exc:
                log.error("journal copies: the background verification failed: %s", exc)
                return False
            for problem in found:
                log.error("journal copies: %s", problem)
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


# -- the child ---------------------------------------------------------------------------


def verify_apart(db: MirroredDatabase, timeout: float) -> list[str] | None:
    """What the verification of `db`'s copies found, verified in a child process; None when no
    child can be started here (an embedded interpreter): the caller verifies itself.

    Raises DatabaseUnavailable when the child could not read the copies (it says why), and
    NotVerified when it failed or ran past `timeout` seconds (it is stopped)."""
    child = _start(db)
    if child is None:
        return None
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        within = f"{timeout / 60:.0f} minutes" if timeout >= 120 else f"{timeout:.0f} seconds"
        raise NotVerified(f"it did not end within {within}, and was stopped") from None
    said = _answer(out)
    if child.returncode != 0 or said is None:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise NotVerified(f"its process ended with status {child.returncode}: {last[0][:300]}")
    if "unavailable" in said:
        raise DatabaseUnavailable(said["unavailable"])
    return said["found"]


def _start(db: MirroredDatabase) -> subprocess.Popen | None:
    """The child verifying `db`'s copies (None when it cannot be started)."""
    return children.start(__name__, *_arguments(db), errors=True)


def _arguments(db: MirroredDatabase) -> list[str]:
    """The child's: the copies, the key as this process resolved it (the child reads the same
    settings), and this process's id."""
    key = db.key_path or receipt_key.key_path(make_home=False)
    return [db.paths[PRIMARY], db.paths[MIRROR], str(key), str(os.getpid())]


def _answer(out: bytes) -> dict[str, Any] | None:
    """The child's one line, if it is one this module writes."""
    said = children.answer(out)
    if not isinstance(said, dict):
        return None
    if isinstance(said.get("unavailable"), str):
        return said
    found = said.get("found")
    if isinstance(found, list) and all(isinstance(item, str) for item in found):
        return said
    return None


def verify(primary: str, mirror: str, key: Path) -> dict[str, Any]:
    """The child's work: verify_live on the copies, as any process opens them."""
    if not Path(primary).is_file():  # never made here: the worker finds it gone at its next write
        return {"unavailable": f"the journal file {primary} is missing"}
    db = MirroredDatabase(primary, mirror, key_path=key)
    try:
        found = verify_live(db)
        return {"found": found, "priority": os.getpriority(os.PRIO_PROCESS, 0)}
    except (DatabaseUnavailable, AdjudicatorError) as exc:
        return {"unavailable": str(exc)}
    finally:
        db.close()


def main(argv: list[str]) -> int:
    """`python -m adjudicator.record.copies.background_check PRIMARY MIRROR KEY PARENT_PID`."""
    if len(argv) != 4 or not argv[3].isdigit():
        return 2
    children.end_with(int(argv[3]))  # the Watch's thread started it: it lives as its worker
    children.lowest_priority()
    print(json.dumps(verify(argv[0], argv[1], Path(argv[2]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
