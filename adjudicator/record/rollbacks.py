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

from adjudicator.record.db import Database, DatabaseUnavailable
from adjudicator.wording import N_

log = logging.getLogger("adjudicator.record.journal")

ROLLED_BACK_MESSAGE = N_(  # a kiosk shows it in its language (babel.cfg)
    "The journal is missing verdicts it recorded earlier: no verdict can be recorded. "
    "Call the director."
)

OPEN_SQL = (
    "SELECT row_id, row_hash, source, head, found_at FROM journal_rollbacks "
    "WHERE resolved_at IS NULL ORDER BY row_id DESC LIMIT 1"
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

    def detail(self) -> str:
        return (
            f"The journal ends at row {self.head}, but {self.source} proves that row "
            f"{self.row_id} was recorded (a restored file or a swapped disk?). No verdict is "
            "recorded until the rows are back: put the right disk back, or run `adjudicator "
            "journal resync` (from the mirror) or restore a backup that holds them. If they are "
            "gone for good, `adjudicator journal accept-loss --reason TEXT` records the loss; "
            "their numbers are never issued again."
        )


def found(db: Database, row_id: int, row_hash: str, source: str, head: int) -> bool:
    """Record that rows up to `row_id` are missing; True if this is news."""
    with db.transaction() as cur:
        cur.execute(
            "INSERT INTO journal_rollbacks (row_id, row_hash, source, head, found_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (row_id, row_hash) DO NOTHING",
            (row_id, row_hash, source, head, _now()),
        )
        new = cur.rowcount == 1
    if new:
        log.error(
            "JOURNAL ROLLED BACK: it ends at row %s but %s proves row %s was recorded; "
            "no verdict is recorded until the rows are back",
            head,
            source,
            row_id,
        )
    return new


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
