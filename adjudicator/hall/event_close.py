"""The director closes an event, and may reopen it: no challenge is judged for a closed one.

The statements are signed with the hall's key and kept beside the journal, with no journal
number (record/journal/closings.py, which also refuses, under the chain lock, what a closed
event no longer takes). Closing may give a reason; reopening must, and both are recorded.
After the close the event's challenge report may be published (`adjudicator report --out`) and
may name the words not in the lexicon (`--words`): the games are over (hall/director/report.py).
"""

from __future__ import annotations

from adjudicator.hall import tournaments
from adjudicator.judging.reasons import check_reason
from adjudicator.record.database import journal_health
from adjudicator.record.journal import closings
from adjudicator.record.journal.closings import Statement
from adjudicator.textcheck import TextError, check_text

MAX_CLOSE_REASON = 500


def close(hall, slug: str, actor: str, reason: str = "") -> Statement:
    """Close tournament `slug` (signed, recorded); refused when it is closed already."""
    tournament = tournaments.get(hall.db, slug)
    text = " ".join((reason or "").split())
    try:
        check_text(text, "reason", MAX_CLOSE_REASON)
    except TextError as exc:
        raise closings.ClosingRefused(f"The reason for closing cannot be recorded: {exc}") from None
    return closings.record(
        hall.db, hall.signing_key(), tournament.slug, closings.CLOSE, actor, text
    )


def reopen(hall, slug: str, actor: str, reason: str) -> Statement:
    """Reopen tournament `slug` for `reason` (signed, recorded); refused unless it is closed."""
    tournament = tournaments.get(hall.db, slug)
    text = check_reason(reason, "reopening")
    return closings.record(
        hall.db, hall.signing_key(), tournament.slug, closings.REOPEN, actor, text
    )


def state(hall, slug: str) -> Statement | None:
    """The tournament's newest statement the hall's key signed (None: never closed)."""
    return closings.state(hall.db, slug, _public(hall), journal_health.journal_id(hall.db))


def closing(hall, slug: str) -> Statement | None:
    """The statement that closed the tournament, if it is closed now; else None."""
    found = state(hall, slug)
    return found if found is not None and found.closed else None


def closed_tournaments(hall) -> dict[str, Statement]:
    """Every closed tournament's closing statement, by slug."""
    return closings.closed_tournaments(hall.db, _public(hall), journal_health.journal_id(hall.db))


def _public(hall):
    return hall.signing_key().public
