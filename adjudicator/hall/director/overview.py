"""Today's challenges per tournament, from the hourly tallies kept beside the journal.

The tallies are written in each append's own transaction (tallies.py), so this is an index
range over a small table: the same cost on the first day of a season and on its millionth
challenge. The director's overview (hall_status.py) shows it beside each tournament.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from adjudicator.record.database.db import Database
from adjudicator.record.journal import tallies


def start_of_today(now: datetime | None = None) -> datetime:
    """Midnight of the server's local day, in UTC."""
    return _local_midnight((now or datetime.now(UTC)).astimezone().date())


def challenges_between(db: Database, start: datetime, end: datetime) -> dict[str, int]:
    """Challenges per tournament from the UTC hour holding `start` up to the one holding `end`
    (tallies are hourly): a bounded range of the tallies, whatever the journal holds after."""
    first, last = (tallies.hour_of(moment.astimezone(UTC).isoformat()) for moment in (start, end))
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT tournament, SUM(row_count) AS n FROM journal_tallies "
            "WHERE hour >= ? AND hour < ? AND kind = 'challenge' "
            "GROUP BY tournament ORDER BY tournament",
            (first, last),
        ).tuples()
    return {tournament: int(count) for tournament, count in rows}


def challenges_today(db: Database, now: datetime | None = None) -> dict[str, int]:
    """Challenges per tournament on the server's local day (to the hour)."""
    today = (now or datetime.now(UTC)).astimezone().date()
    return challenges_between(db, _local_midnight(today), _local_midnight(today + timedelta(1)))


def _local_midnight(day: date) -> datetime:
    """The midnight that starts `day` in the server's time zone (its own offset, even on a day
    the clocks change), in UTC."""
    return datetime.combine(day, time()).astimezone().astimezone(UTC)
