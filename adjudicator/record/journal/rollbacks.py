"""A journal rolled back: rows that a signed receipt or the server's high-water mark proves were
recorded are missing (a restored file, a swapped disk). Judging stops until they come back.

Once found, the rollback is kept in the journal itself (`journal_rollbacks`), so every process
and every restart sees it. Each append checks it under the chain lock, in its own transaction:
while rows are missing, no row is appended, so no number that a receipt already carries is
issued again. It clears by itself when the rows are back (resynced from the mirror, restored
from a backup), or when the director accepts the loss (`journal accept-loss`, lost_rows.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adjudicator.record.database.db import Database, DatabaseUnavailable
from adjudicator.wording import N_

log = logging.getLogger("adjudicator.record.journal.journal")

ROLLED_BACK_MESSAGE = N_(  # a kiosk shows it in its language (babel.cfg)
    "The journal is missing verdicts it recorded earlier: no verdict can be recorded. "
    "Call the director."
)

# The consequence of a row that fills a lost number (lost_rows.py, `journal accept-loss`).
LOST_TEXT = "Lost: this row was recorded, then lost when the journal was rolled back."

OPEN_SQL = (  # a fork first: whatever else is missing, it decides what the director must do
    "SELECT row_id, row_hash, source, head, found_at FROM journal_rollbacks "
    "WHERE resolved_at IS NULL "
    "ORDER BY CASE WHEN row_hash LIKE 'fork at row %' THEN 0 ELSE 1 END, row_id DESC LIMIT 1"
)


class JournalRolledBack(DatabaseUnavailable):
    """Rows a receipt proves were recorded are missing: nothing is judged until they are back."""


@dataclass(frozen=True)
class Rollback:
    row_id: int  # the highest row proven recorded
    row_hash: str
    source: str  # what proved it: a kiosk's receipt, the high-water mark
    head: int  # where the journal ended when it was found
    found_at: str

    @property
    def fork(self) -> int | None:
        """The row from which the journal is a fork (fork_check.py), None for rows missing."""
        if not self.row_hash.startswith(FORK):
            return None
        return int(self.row_hash[len(FORK) :].split()[0])

    def detail(self) -> str:
        """What happened, which rows are missing, and what the director can do."""
        if self.fork is not None:
            return f"{self.what()} {FORK_REMEDIES}"
        return f"{self.what()} {REMEDIES}{self._new_event()}"

    def what(self) -> str:
        if self.fork is not None:
            return (
                f"FORK: {self.source}. This copy of the journal is another history than the "
                "one the hall recorded (a copy rewritten, its chain recomputed?)."
            )
        if self.row_hash.startswith(BROKEN):
            return (
                f"No copy of the journal is whole: {self.source} so rows {self.head + 1} to "
                f"{self.row_id} cannot be trusted."
            )
        if self.head < self.row_id:
            missing = (
                f"row {self.row_id} is missing"
                if self.head + 1 == self.row_id
                else f"rows {self.head + 1} to {self.row_id} are missing"
            )
            return (
                f"The journal ends at row {self.head}, but {self.source} proves that row "
                f"{self.row_id} was recorded: {missing} (a restored file or a swapped disk?)."
            )
        return (
            f"The journal's row {self.row_id} is not the row that {self.source} proves was "
            "recorded (a restored file or a swapped disk?)."
        )

    @property
    def missing(self) -> tuple[int, int]:
        """The rows missing (or not to be trusted): first and last."""
        return min(self.head + 1, self.row_id), self.row_id

    def _new_event(self) -> str:
        if not self.source.startswith(KEY_SOURCE):
            return ""
        return (
            " If this journal is new, for a next event, `adjudicator journal begin --reason "
            "TEXT` begins it under this hall's key (then judging starts afresh)."
        )


BROKEN = "chain broken at row"  # the row_hash of a rollback found in a broken chain
FORK = "fork at row "  # the row_hash of a fork's rollback: 'fork at row N' (fork_check.py)
KEY_SOURCE = "this hall's key"  # the source of a journal the key never began (journal_begun)
# What proved the missing rows recorded (a rollback's source; copies/proof.py's proofs say it too).
HEAD_SOURCE = "the journal's head as last committed (kept in its copies)"
MARK_SOURCE = "the server's signed high-water mark"
REMEDIES = (
    "No verdict is recorded until the rows are back: put the right disk back, run "
    "`adjudicator journal resync` if the other copy holds them, or restore a backup that holds "
    "them (stop the hall, copy the backup over the journal, start it again). If they are gone "
    "for good, `adjudicator journal accept-loss --reason TEXT` records the loss: their numbers "
    "are never issued again."
)

FORK_REMEDIES = (
    "No verdict is recorded from it, and it is never accepted as a loss: `adjudicator journal "
    "accept-loss` refuses a fork. Stop the hall, move this copy aside (keep it: it is "
    "evidence), put a backup or the other copy of the journal in its place, and start the hall "
    "again."
)


INSERT_SQL = (
    "INSERT INTO journal_rollbacks (row_id, row_hash, source, head, found_at) "
    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (row_id, row_hash) DO NOTHING"
)


def found(db: Database, row_id: int, row_hash: str, source: str, head: int) -> bool:
    """Record that rows up to `row_id` are missing; True if this is news."""
    with db.transaction() as cur:
        cur.execute(INSERT_SQL, values(row_id, row_hash, source, head))
        new = cur.rowcount == 1
    if new:
        logged(row_id, source, head)
    return new


def values(row_id: int, row_hash: str, source: str, head: int) -> tuple:
    """The parameters of INSERT_SQL."""
    return (row_id, row_hash, source, head, _now())


def logged(row_id: int, source: str, head: int) -> None:
    """Say in the log that rows up to `row_id` are found missing."""
    log.error(
        "JOURNAL ROLLED BACK: it ends at row %s but %s proves row %s was recorded; "
        "no verdict is recorded until the rows are back",
        head,
        source,
        row_id,
    )


def current(db: Database) -> Rollback | None:
    """The open rollback, if any (a read: for the overview, /healthz and the kiosks)."""
    with db.transaction() as cur:
        row = cur.execute(OPEN_SQL).one()
    return Rollback(**row) if row else None


def check_in_append(cur: Any, newest: tuple[int, str] | None) -> None:
    """Under the chain lock: raise JournalRolledBack while proven rows are missing. Rows that
    are back (the same hash at the same number) clear it."""
    row = cur.execute(OPEN_SQL).one()
    while row is not None:
        if newest is None or newest[0] < row["row_id"]:
            raise JournalRolledBack(ROLLED_BACK_MESSAGE)
        held = cur.execute(
            "SELECT row_hash FROM adjudications WHERE id = ?", (row["row_id"],)
        ).one()
        if held is None or held["row_hash"] != row["row_hash"]:
            raise JournalRolledBack(ROLLED_BACK_MESSAGE)
        resolve(cur, row["row_id"], "the rows are back")
        row = cur.execute(OPEN_SQL).one()


def resolve(cur: Any, up_to: int, resolution: str) -> None:
    cur.execute(
        "UPDATE journal_rollbacks SET resolved_at = ?, resolution = ? "
        "WHERE resolved_at IS NULL AND row_id <= ?",
        (_now(), resolution, up_to),
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
