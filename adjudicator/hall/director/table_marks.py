"""What the journal holds for each table, for the hall map: its challenges in a round (or today,
at a table with no game), and what waits for the director there.

Counts are a few seeks of `adjudications_by_players` per TSH game (a challenge seated in a game
records its players), and one range of today's rows (from the hourly tallies' id range) for
the tables with no game; what
waits is what the flags page lists (the open second-opinion cases, the open separate look-ups
and changed penalties, each read as that page reads them: bounded, whatever the journal holds).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from adjudicator.hall.director import overview
from adjudicator.hall.tsh import games
from adjudicator.hall.tsh.event import Game
from adjudicator.judging import director_flags
from adjudicator.judging.game import canonical
from adjudicator.record.database.db import Database
from adjudicator.record.journal import tallies

SECOND_OPINION = "second-opinion"
SEPARATE_LOOKUP = director_flags.SEPARATE_LOOKUP
PENALTY_CHANGED = director_flags.PENALTY_CHANGED
WAITING_KINDS = (SECOND_OPINION, SEPARATE_LOOKUP, PENALTY_CHANGED)  # in the order shown


def challenges_in_games(db: Database, tournament: str, found: Iterable[Game]) -> dict:
    """Challenges recorded in each of these TSH games, by (round, table): {("3", "7"): 2}. A
    challenge seated in a game records its players (seating.py), read here by their index
    (adjudications_by_players), both orders, a few seeks per game however long the journal."""
    wanted = {(str(game.round), canonical(game.table)) for game in found if game.table}
    pairs = sorted(
        {
            games.recorded_players(order)
            for game in found
            for names in [[seat.name for seat in game.seats]]
            for order in (names, names[::-1])
        }
    )
    counted: dict[tuple[str, str], int] = {}
    with db.transaction() as cur:
        for start in range(0, len(pairs), 500):
            part = pairs[start : start + 500]
            marks = ", ".join("?" for _ in part)
            rows = cur.execute(
                "SELECT round_no, table_no, COUNT(*) FROM adjudications "
                f"WHERE players IN ({marks}) AND tournament = ? AND kind = 'challenge' "
                "GROUP BY round_no, table_no",
                (*part, tournament),
            ).tuples()
            for round_no, table_no, count in rows:
                key = (canonical(round_no), canonical(table_no))
                if key in wanted:
                    counted[key] = counted.get(key, 0) + int(count)
    return counted


def challenges_today(db: Database, tournament: str, now: datetime | None = None) -> dict:
    """Challenges per table of `tournament` on the server's local day: {"7": 2}. The hourly
    tallies give the day's id range; only its rows are read."""
    moment = now or datetime.now(UTC)
    start = overview.start_of_today(moment)
    end = overview.start_of_today(start + timedelta(hours=25))  # the next midnight (23-25 h on)
    first, last = (t.isoformat(timespec="microseconds") for t in (start, end))
    with db.transaction() as cur:
        bounds = cur.execute(
            "SELECT MIN(first_id) AS first, MAX(last_id) AS last FROM journal_tallies "
            "WHERE hour >= ? AND hour <= ? AND tournament = ? AND kind = 'challenge'",
            (tallies.hour_of(first), tallies.hour_of(last), tournament),
        ).one()
        if bounds is None or bounds["first"] is None:
            return {}
        rows = cur.execute(
            "SELECT table_no, COUNT(*) FROM adjudications WHERE id >= ? AND id <= ? "
            "AND tournament = ? AND kind = 'challenge' AND table_no IS NOT NULL "
            "AND recorded_at >= ? AND recorded_at < ? GROUP BY table_no",
            (int(bounds["first"]), int(bounds["last"]), tournament, first, last),
        ).tuples()
    found: dict[str, int] = {}
    for table_no, count in rows:
        found[canonical(table_no)] = found.get(canonical(table_no), 0) + int(count)
    return found


def waiting(db: Database) -> dict[tuple[str, str], set[str]]:
    """What waits for the director, per (tournament, table): the kinds of WAITING_KINDS."""
    found: dict[tuple[str, str], set[str]] = {}

    def mark(tournament: str, table: str | None, kind: str) -> None:
        if table:
            found.setdefault((tournament, canonical(table)), set()).add(kind)

    with db.transaction() as cur:
        cases = cur.execute(
            "SELECT a.tournament, a.table_no FROM journal_cases c "
            "JOIN adjudications a ON a.id = c.original_id WHERE c.open = 1"
        ).tuples()
    for tournament, table in cases:
        mark(tournament, table, SECOND_OPINION)
    for entry in director_flags.separate_lookups(db):
        mark(entry.tournament, entry.table, SEPARATE_LOOKUP)
    for change in director_flags.penalty_changes(db):
        mark(change.challenge.tournament, change.challenge.table, PENALTY_CHANGED)
    return found
