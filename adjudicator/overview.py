"""Today's challenges per tournament, from the hourly tallies kept beside the journal.

The tallies are written in each append's own transaction (tallies.py), so this is an index
range over a small table: the same cost on the first day of a season and on its millionth
challenge. The director's overview (hall_status.py) shows it beside each tournament.
"""

from __future__ import annotations

from datetime import UTC, datetime, time

from adjudicator import tallies
from adjudicator.db import Database


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


def challenges_today(db: Database, now: datetime | None = None) -> dict[str, int]:
    """Challenges per tournament since the local day's midnight (to the hour)."""
    return challenges_since(db, start_of_today(now))
