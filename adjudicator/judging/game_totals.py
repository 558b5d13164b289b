"""A game's totals: what its challenges and the director's decisions give each player, as they
stand now.

A game is a tournament's round and table. Its challenges count by their effective outcome
(outcomes.py: voids, reissues, rulings, opinions, waivers, free challenges, recounts), the
director's placement and exchange decisions by their own rows (director_challenges.py). Points
to the player (`points_to_player`: a per-word or per-turn penalty, the director's `--points`)
go to the player whose play was challenged: the row's `player`, else in a game TSH pairs the
one of its two players who did not challenge, else "the opponent of" the challenger. Points to
the challenger (NASPA 6.2's 10) go to the challenger, and so do lost turns and seconds. Names
that are one player's (game.same_player: `ann` and `Ann`, "Lee, Ann" and "Ann Lee") count once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adjudicator.judging import outcomes
from adjudicator.judging.director_points import DETAIL
from adjudicator.judging.game import same_player
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal

KINDS = ("challenge", "placement", "exchange")


@dataclass
class PlayerTotals:
    """One player's totals in a game."""

    name: str
    points: int = 0  # added to their score (negative: taken off), the director's included
    director_points: int = 0  # of which the director gave by hand (`--points`)
    turns_lost: int = 0
    seconds_lost: int = 0  # off their clock (a time penalty rule)
    rows: list[int] = field(default_factory=list)  # the rows that gave them something

    def to_api(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "points": self.points,
            "director_points": self.director_points,
            "turns_lost": self.turns_lost,
            "seconds_lost": self.seconds_lost,
            "rows": list(self.rows),
        }


def game_rows(db: Database, tournament: str, round_no: str, table: str) -> list[journal.Entry]:
    """The game's challenges and the director's decisions, in id order (the game's index)."""
    marks = ", ".join("?" for _ in KINDS)
    return journal.select(
        db,
        f"tournament = ? AND round_no = ? AND table_no = ? AND kind IN ({marks})",
        (tournament, round_no, table, *KINDS),
        "ORDER BY id",
    )


def totals(db: Database, tournament: str, round_no: str, table: str) -> list[PlayerTotals]:
    """Each player's totals in the game at `round_no` and `table` of `tournament`, in the order
    they first appear; [] for a game with no row."""
    found: list[PlayerTotals] = []
    for entry, outcome in outcomes.with_outcomes(db, game_rows(db, tournament, round_no, table)):
        penalty = (outcome.penalty if outcome is not None else entry.penalty_numbers()) or {}
        points = int(penalty.get("points_to_player") or 0)
        by_hand = _director_points(entry, outcome)
        if points or by_hand:
            mine = _player(found, _challenged(entry))
            mine.points += points
            mine.director_points += by_hand
            mine.rows.append(entry.id)
        lost = int(penalty.get("points_to_challenger") or 0)
        turn = bool(penalty.get("challenger_loses_turn"))
        seconds = int(penalty.get("seconds_to_challenger") or 0)
        if (lost or turn or seconds) and entry.challenger:
            mine = _player(found, entry.challenger)
            mine.points += lost
            mine.turns_lost += turn
            mine.seconds_lost += seconds
            mine.rows.append(entry.id)
    return found


def _director_points(entry: journal.Entry, outcome: Any) -> int:
    """The director's points in the row's effective penalty (a ruling's, or its own)."""
    if outcome is not None:
        return int(outcome.points or 0)
    points = entry.detail(DETAIL)
    return points if isinstance(points, int) else 0


def _challenged(entry: journal.Entry) -> str:
    """Whose play (or exchange) the row is about."""
    if entry.player:
        return entry.player
    players = entry.player_names() or []
    others = [p for p in players if not (entry.challenger and same_player(p, entry.challenger))]
    if len(others) == 1:
        return others[0]
    return f"the opponent of {entry.challenger}" if entry.challenger else "the player"


def _player(found: list[PlayerTotals], name: str) -> PlayerTotals:
    for totals_of in found:
        if same_player(totals_of.name, name):
            return totals_of
    found.append(PlayerTotals(name))
    return found[-1]
