"""Judging held: the journal records no verdict until the director acts, for a reason that is
not a rollback (no row is missing): the journal's mirror, the USB stick, was not the one set at
the start, another laptop judged the hall when this one started, or, while this one served,
another laptop of the hall showed it took the hall over (copies/learned_takeover.py).

One hall judges. A stick that a journal has written to and that is not there when the hall
starts may be serving another laptop (`adjudicator kit open`), so this hall does not judge
(503) until the stick is back or the director says it is alone (`adjudicator journal
confirm-alone`); so too when another laptop with the hall's key answered, judging, as this one
started (hall/hall_peers.py). The
hold is kept in the journal itself (`journal_holds`), so every process and every restart sees
it, and each append checks it under the chain lock, in its own transaction, beside the
rollbacks (one read of a table that is empty but for these days).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.record.database.db import Database, DatabaseUnavailable
from adjudicator.wording import N_

log = logging.getLogger("adjudicator.record.journal.journal")

MIRROR_MISSING = "mirror-missing"
ANOTHER_LAPTOP = "another-laptop"  # another laptop judged the hall when this one started
ALONE = (MIRROR_MISSING, ANOTHER_LAPTOP)  # what `journal confirm-alone` ends
TAKEN_OVER = "taken-over"  # another laptop took the hall over: only this laptop's `kit open`

HELD_MESSAGE = N_(  # a kiosk shows it in its language (babel.cfg)
    "The hall waits for the director before it judges again: no verdict can be recorded. "
    "Call the director."
)

OPEN_SQL = (  # a takeover first: what lifts it is not what lifts the others
    "SELECT kind, detail, since FROM journal_holds WHERE resolved_at IS NULL "
    f"ORDER BY CASE WHEN kind = '{TAKEN_OVER}' THEN 0 ELSE 1 END, since LIMIT 1"
)
HELD_SQL = "SELECT 1 FROM journal_holds WHERE resolved_at IS NULL LIMIT 1"  # on every append


class JournalHeld(DatabaseUnavailable):
    """The hall does not judge until the director acts (see the module's docstring)."""


class HoldError(AdjudicatorError):
    """A hold cannot be ended as asked."""


@dataclass(frozen=True)
class Hold:
    kind: str
    detail: str  # what happened and what the director can do
    since: str


def hold(db: Database, kind: str, detail: str) -> bool:
    """Hold judging for `kind` (once: an open hold of that kind is kept); True if this is news."""
    with db.transaction() as cur:
        found = cur.execute(
            "SELECT 1 FROM journal_holds WHERE kind = ? AND resolved_at IS NULL", (kind,)
        ).one()
        if found is None:
            cur.execute(
                "INSERT INTO journal_holds (kind, detail, since) VALUES (?, ?, ?)",
                (kind, detail, _now()),
            )
    if found is None:
        log.error("judging held (%s): %s", kind, detail)
    return found is None


def hold_here(db: Database, detail: str) -> None:
    """Hold judging in this process only (a command run where a start would hold: it judges
    nothing, and writes no hold a serving hall would see)."""
    db.__dict__["_held_here"] = detail


def check_here(db: Database) -> None:
    """Raise JournalHeld if this process holds judging on `db` (hold_here): a command, so it
    says why, and what lifts it (a kiosk is shown HELD_MESSAGE in its language whatever the
    text)."""
    detail = db.__dict__.get("_held_here")
    if detail:
        raise JournalHeld(f"JUDGING HELD: {detail}")


def current(db: Database) -> Hold | None:
    """The open hold, if any (a read: for /healthz, the overview and `journal status`)."""
    with db.transaction() as cur:
        row = cur.execute(OPEN_SQL).one()
    return Hold(**row) if row else None


def check_in_append(cur: Any) -> None:
    """Under the chain lock: raise JournalHeld while a hold is open."""
    if cur.execute(HELD_SQL).tuples():
        raise JournalHeld(HELD_MESSAGE)


def release(db: Database, kind: str, resolution: str, record: str = "") -> int:
    """End every open hold of `kind`, saying why; how many were open. With `record`, the
    director's decision is kept even when nothing was held (a row made ended, saying so)."""
    with db.transaction() as cur:
        cur.execute(
            "UPDATE journal_holds SET resolved_at = ?, resolution = ? "
            "WHERE kind = ? AND resolved_at IS NULL",
            (_now(), resolution, kind),
        )
        ended = cur.rowcount
        if record and not ended:
            cur.execute(
                "INSERT INTO journal_holds (kind, detail, since, resolved_at, resolution) "
                "VALUES (?, ?, ?, ?, ?)",
                (kind, record, _now(), _now(), resolution),
            )
    if ended:
        log.warning("judging resumes (%s): %s", kind, resolution)
    return ended


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
