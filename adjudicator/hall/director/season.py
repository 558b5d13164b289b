"""A season's record: every player's figures over the tournaments of one journal between two
dates (each tournament by its first day), summed over tournaments and divisions by name.

The figures are the judging's (`player_figures`): the tallies kept at each append, with each
corrected challenge counted by its effective outcome, so a season costs a read of its players'
tallies and of its corrections, whatever the journal's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import event_close, tournaments
from adjudicator.judging import player_figures
from adjudicator.judging.player_figures import PlayerFigures
from adjudicator.record.journal.player_tallies import FIGURES
from adjudicator.wording import natural_key

COLUMNS = ("name", "tournaments", *FIGURES)  # what a season may be sorted by, and its CSV


class SeasonError(AdjudicatorError):
    """The season's dates or sort cannot be used as given."""


@dataclass
class Season:
    start: str
    end: str
    tournaments: list[tournaments.Tournament]
    closed: set[str]
    players: list[PlayerFigures]
    sort: str = "name"
    descending: bool = False

    def rows(self) -> list[dict[str, Any]]:
        """Each player as the JSON and the CSV give them (COLUMNS)."""
        return [
            {"name": p.name, "tournaments": p.tournament_count, **p.figures} for p in self.players
        ]

    def to_api(self) -> dict[str, Any]:
        return {
            "season": {"from": self.start, "to": self.end},
            "tournaments": [
                {
                    "slug": t.slug,
                    "title": t.title,
                    "date": day_of(t),
                    "closed": t.slug in self.closed,
                }
                for t in self.tournaments
            ],
            "figures": list(FIGURES),
            "sort": {"by": self.sort, "descending": self.descending},
            "players": self.rows(),
        }


def check_day(text: str | None, what: str) -> str:
    """A day as YYYY-MM-DD, or SeasonError saying what to type."""
    try:
        return date.fromisoformat(str(text or "").strip()).isoformat()
    except ValueError:
        raise SeasonError(
            f"Give the season's {what} day as YYYY-MM-DD, such as 2024-01-01 (was {text!r})."
        ) from None


def day_of(tournament: tournaments.Tournament) -> str:
    """A tournament's first day (its creation's day when it has none)."""
    return tournament.event_date or tournament.created_at[:10]


def build(hall, start: str, end: str, sort: str = "name", descending: bool = False) -> Season:
    """Every player's figures over the tournaments whose first day is from `start` to `end`
    (both YYYY-MM-DD, included), sorted by `sort` (one of COLUMNS)."""
    start, end = check_day(start, "first"), check_day(end, "last")
    if end < start:
        raise SeasonError(f"The season ends ({end}) before it starts ({start}): swap the days.")
    if sort not in COLUMNS:
        raise SeasonError(f"Sort by one of {', '.join(COLUMNS)} (was {sort!r}).")
    found = [t for t in tournaments.list_all(hall.db) if start <= day_of(t) <= end]
    found.sort(key=lambda t: (day_of(t), t.slug))
    players = player_figures.of_season(hall.db, [t.slug for t in found])
    closed = set(event_close.closed_tournaments(hall)) & {t.slug for t in found}
    return Season(start, end, found, closed, ordered(players, sort, descending), sort, descending)


def ordered(players: list[PlayerFigures], sort: str, descending: bool) -> list[PlayerFigures]:
    """`players` sorted by a column (then by name, which always reads A to Z)."""
    by_name = sorted(players, key=lambda p: natural_key(p.name))
    if sort == "name":
        return list(reversed(by_name)) if descending else by_name
    if sort == "tournaments":
        return sorted(by_name, key=lambda p: p.tournament_count, reverse=descending)
    return sorted(by_name, key=lambda p: p.figures[sort], reverse=descending)
