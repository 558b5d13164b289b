"""Journal health: is this process still writing to the journal it opened, and can it write?

One notion, read by /healthz, the kiosk status and the director's overview alike:
- **lost** (sticky until the process restarts): the journal is no longer the one this process
  opened. Its file was deleted or replaced, its WAL or shared-memory file went, another database
  answers at the same address, or a row this process recorded is gone or changed. A server that
  went on would record verdicts nowhere, or into a journal someone swapped in.
- **cannot write**: the last commit failed (disk full, database down). The next commit that
  succeeds clears it; `probe` tries one when asked, at most every PROBE_SECONDS.

The identity is checked inside the append transaction the group commit already runs: the
journal's random id, the head of the chain and the hash of the newest row this process knows
come back in one statement, and for SQLite three stat() calls compare the files at the
journal's path with those it opened. No extra round trip per request.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from adjudicator.record.database.db import Database, DatabaseUnavailable
from adjudicator.wording import N_

log = logging.getLogger("adjudicator.record.journal.journal")

PROBE_SECONDS = 2.0
GENESIS = "0" * 64

# The chain's head, the journal's id and the hash of row ? (the newest this process knows),
# in one statement and one round trip. An empty journal has no head row: IDENTITY_SQL then.
HEAD_SQL = (
    "SELECT id, row_hash, recorded_at, (SELECT journal_id FROM journal_identity) AS journal_id, "
    "(SELECT k.row_hash FROM adjudications k WHERE k.id = ?) AS known_hash "
    "FROM adjudications ORDER BY id DESC LIMIT 1"
)
IDENTITY_SQL = (
    "SELECT journal_id, NULL AS id, NULL AS row_hash, NULL AS recorded_at, NULL AS known_hash "
    "FROM journal_identity"
)

# Marked for the kiosk's catalogues (babel.cfg): a kiosk shows them in its tournament's language.
LOST_MESSAGE = N_(
    "The journal is not the one this server opened: no verdict can be recorded. Call the director."
)
CANNOT_WRITE_MESSAGE = N_(
    "The journal cannot be written just now: no verdict can be recorded. Call the director."
)


class Head(NamedTuple):
    """Where the chain goes on: the next row's id, the hash it links to, and the newest row's
    time (the journal's clock never runs backwards; "" for an empty journal)."""

    next_id: int
    prev_hash: str
    recorded_at: str

    @property
    def newest(self) -> tuple[int, str] | None:
        """The newest row as (id, hash), None for an empty journal."""
        return (self.next_id - 1, self.prev_hash) if self.next_id > 1 else None


class JournalLost(DatabaseUnavailable):
    """The journal is not the one this process opened: nothing is judged until a restart."""


@dataclass(frozen=True)
class Health:
    """What /healthz, kiosks and the director are told about the journal."""

    state: str  # "ok", "degraded" (one copy of a mirrored journal), "lost", "cannot-write";
    # the hall adds "rolled-back", "held" (for the director) and "paused" (hall_beat)
    message: str = ""  # for kiosks and /healthz: what it means, no file names
    detail: str = ""  # for the director: what happened and what to do
    since: str = ""
    copy: str = ""  # degraded: the copy no longer written ("primary" or "mirror")
    row: int | None = None  # degraded: where that copy parts from the chain, if it does;
    last: int | None = None  # rolled back: the rows missing are `row` to `last`

    @property
    def copy_summary(self) -> str:
        """'the mirror is lost', 'the mirror disagrees at row 5' (degraded only)."""
        if self.row is not None:
            return f"the {self.copy} disagrees at row {self.row}"
        return f"the {self.copy} is lost"

    @property
    def ok(self) -> bool:
        """Whether verdicts are recorded (a degraded journal still records them on one copy)."""
        return self.state in ("ok", "degraded")

    @property
    def summary(self) -> str:
        """One line for /healthz and `journal status`: "ok", "degraded: one copy", ..."""
        return {"degraded": "degraded: one copy", "cannot-write": "cannot write"}.get(
            self.state, self.state
        )

    def to_api(self) -> dict[str, Any]:
        """The public part, as the kiosk status gives it: a kiosk shows nothing different
        while a mirrored journal runs on one copy (that is the director's business)."""
        state = "ok" if self.state == "degraded" else self.state
        return {"ok": self.ok, "state": state, "message": self.message}


class JournalHealth:
    """The health of one opened journal in this process (see `of`)."""

    def __init__(self) -> None:
        self.journal_id: str | None = None
        self.known: tuple[int, str] | None = None  # the newest row this process saw committed
        self._lost: tuple[str, str] | None = None  # (detail, since)
        self._failed: tuple[str, str] | None = None
        self._last_probe = 0.0
        self._lock = threading.Lock()

    @property
    def lost(self) -> bool:
        return self._lost is not None

    def mark_lost(self, detail: str) -> JournalLost:
        """Record (once, for good) that the journal is not the one opened; the error to raise."""
        with self._lock:
            if self._lost is None:
                self._lost = (detail, _now())
                log.error("journal lost: %s; no verdict is recorded until a restart", detail)
        return JournalLost(f"{LOST_MESSAGE} ({self._lost[0]})")

    def commit_failed(self, reason: str) -> None:
        """A commit failed: 'cannot write' until one succeeds."""
        with self._lock:
            if self._failed is None:
                self._failed = (reason, _now())
                self._last_probe = time.monotonic()  # the failure itself was the first try

    def committed(self, last: tuple[int, str] | None) -> None:
        """A commit succeeded; `last` is the newest row it wrote or read (id, hash)."""
        with self._lock:
            self._failed = None
            if last is not None and (self.known is None or last[0] >= self.known[0]):
                self.known = last

    def status(self) -> Health:
        """The journal's health as this process last saw it."""
        if self._lost is not None:
            detail, since = self._lost
            return Health(
                "lost",
                LOST_MESSAGE,
                f"{detail}. No verdict is recorded from then on. Put the journal back (or find "
                "out who replaced it), restart the server, and run `adjudicator journal verify` "
                "with your checkpoints and `adjudicator journal audit` with the kiosks' receipts.",
                since,
            )
        if self._failed is not None:
            reason, since = self._failed
            return Health(
                "cannot-write",
                CANNOT_WRITE_MESSAGE,
                f"The last attempt to record a verdict failed: {reason} Free disk space or "
                "bring the database back; judging resumes by itself at the next commit.",
                since,
            )
        return Health("ok")

    def due_for_probe(self) -> bool:
        """Whether a failed state may be re-tested now (at most every PROBE_SECONDS)."""
        with self._lock:
            if self._failed is None or self._lost is not None:
                return False
            now = time.monotonic()
            if now - self._last_probe < PROBE_SECONDS:
                return False
            self._last_probe = now
            return True


_REGISTRY_LOCK = threading.Lock()


def of(db: Database) -> JournalHealth:
    """The health record of `db` in this process (one per Database object)."""
    health = db.__dict__.get("_journal_health")
    if health is None:
        with _REGISTRY_LOCK:
            health = db.__dict__.setdefault("_journal_health", JournalHealth())
    return health


def journal_id(db: Database) -> str | None:
    """The id of the journal this process opened: pinned at its first append, else read now."""
    health = of(db)
    if health.journal_id is None:
        with db.transaction() as cur:
            row = cur.execute("SELECT journal_id FROM journal_identity").one()
        if row is not None:
            health.journal_id = health.journal_id or row["journal_id"]
    return health.journal_id


def read_head(db: Database, cur: Any) -> Head:
    """Inside an append transaction: check the journal is the one opened; where the chain goes on.

    Raises JournalLost (and stays lost) if it is not.
    """
    health = of(db)
    if health.lost:
        raise health.mark_lost("")
    problem = db.file_problem()
    if problem:
        raise health.mark_lost(problem)
    known = health.known
    row = cur.execute(HEAD_SQL, (known[0] if known else None,)).one()
    if row is None:  # no rows yet (or none left)
        row = cur.execute(IDENTITY_SQL).one()
    if row is None or not row["journal_id"]:
        raise health.mark_lost("the journal's identity row is gone: this is not the journal opened")
    if health.journal_id is None:
        health.journal_id = row["journal_id"]
    elif row["journal_id"] != health.journal_id:
        raise health.mark_lost(
            f"another journal (id {row['journal_id'][:8]}, not {health.journal_id[:8]}) answers "
            "at the journal's address"
        )
    if known is not None and row["known_hash"] != known[1]:
        raise health.mark_lost(
            f"row {known[0]}, which this server saw recorded, is missing or changed"
        )
    if row["id"] is None:
        return Head(1, GENESIS, "")
    return Head(int(row["id"]) + 1, row["row_hash"], row["recorded_at"])


def after_commit(db: Database) -> None:
    """After a commit: a file replaced while it ran means its rows may be in no journal."""
    problem = db.file_problem()
    if problem:
        raise of(db).mark_lost(problem)


def check(db: Database) -> Health:
    """The journal's health now: cheap enough for every /healthz and kiosk poll.

    Compares the journal's files with those opened (stat calls only), asks whether its disk
    is full, and, when the last commit failed, tries a probe commit at most every
    PROBE_SECONDS so the state clears by itself.
    """
    health = of(db)
    if not health.lost:
        problem = db.file_problem()
        if problem:
            health.mark_lost(problem)
    if health.due_for_probe():
        probe(db)
    status = health.status()
    space = db.space_problem() if status.ok else None
    if space:
        return Health(
            "cannot-write",
            CANNOT_WRITE_MESSAGE,
            f"{space[0].upper()}{space[1:]}. Verdicts may fail to be recorded until then.",
            _now(),
        )
    if status.ok:
        return degraded(db) or status
    return status


def lost_role(db: Database) -> str | None:
    """ "primary" or "mirror" while a mirrored journal runs on one copy, else None."""
    lost_copy = getattr(db, "lost_copy", None)
    lost = lost_copy() if lost_copy is not None else None
    return lost.role if lost is not None else None


def degraded(db: Database) -> Health | None:
    """For a mirrored journal running on one copy: which copy is lost, and what to do."""
    lost_copy = getattr(db, "lost_copy", None)
    lost = lost_copy() if lost_copy is not None else None
    if lost is None:
        return None
    other = "mirror" if lost.role == "primary" else "primary"
    what = f"disagrees at row {lost.row}" if lost.row is not None else "is lost"
    remedy = (
        f"Run `adjudicator journal resync`: the {lost.role} is set aside (kept, never "
        f"overwritten) and rebuilt from the {other}, once the {other}'s chain verifies."
        if lost.row is not None
        else f"Put the {lost.role}'s disk back (or another at the same path) and run "
        "`adjudicator journal resync`."
    )
    return Health(
        "degraded",
        "",
        f"Degraded: one copy. The journal's {lost.role} copy ({lost.path}) {what}: "
        f"{lost.reason}. Verdicts are recorded on the {other} copy alone, so one more failure "
        f"stops judging. {remedy}",
        lost.since,
        copy=lost.role,
        row=lost.row,
    )


def probe(db: Database) -> Health:
    """Commit a write to the journal's identity row (not to the chain): does writing work now?"""
    health = of(db)
    try:
        with db.transaction(chain_lock=True) as cur:
            head = read_head(db, cur)
            cur.execute("UPDATE journal_identity SET probed_at = ?", (_now(),))
        after_commit(db)
    except JournalLost:
        pass
    except Exception as failure:  # noqa: BLE001 - the state records it
        health.commit_failed(str(failure))
    else:
        health.committed(head.newest)
    return health.status()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
