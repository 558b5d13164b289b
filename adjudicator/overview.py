"""The director's overview figures, read from the tallies kept beside the journal (no scans).

Each figure is an index look-up on a small table that the append transaction keeps current,
so the overview costs the same on the first day of a season and on its millionth challenge.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time

from adjudicator import journal, second_opinion, tallies
from adjudicator.db import Database


@dataclass(frozen=True)
class Overview:
    """Challenges today per tournament, open second-opinion flags, and the journal's size."""

    challenges_today: dict[str, int]
    open_flags: int
    journal_rows: int

    @property
    def challenges_today_total(self) -> int:
        return sum(self.challenges_today.values())


def start_of_today(now: datetime | None = None) -> datetime:
    """Midnight of the server's local day, in UTC."""
    local = (now or datetime.now(UTC)).astimezone()
    return datetime.combine(local.date(), time(), local.tzinfo).astimezone(UTC)


def challenges_since(db: Database, since: datetime) -> dict[str, int]:
    """Challenges per tournament from the UTC hour holding `since` on (tallies are hourly)."""
    hour = tallies.hour_of(since.astimezone(UTC).isoformat())
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT tournament, SUM(row_count) AS n FROM journal_tallies "
            "WHERE hour >= ? AND kind = 'challenge' GROUP BY tournament ORDER BY tournament",
            (hour,),
        ).tuples()
    return {tournament: int(count) for tournament, count in rows}


def figures(db: Database, now: datetime | None = None) -> Overview:
    """The overview's figures for the local day of `now` (default: now)."""
    return Overview(
        challenges_today=challenges_since(db, start_of_today(now)),
        open_flags=second_opinion.open_count(db),
        journal_rows=journal.newest_id(db),
    )
