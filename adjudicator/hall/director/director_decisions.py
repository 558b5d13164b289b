"""What the director records that no kiosk judges: a free challenge granted to a player (NSA
VI.C: judging/free_challenges.py) and the challenges the director decides, placement and
exchange (WESPA 3.10.16-17: judging/director_challenges.py).

Both name a tournament and, where given, a game: its table and round are checked like a
kiosk's, and in a tournament linked to TSH the game is TSH's (the round, both players, the
division), the player named as TSH names them, so the row shows in that player's journal (the
game's history) beside the game's challenges. The CLI (`free-challenge`, `director-challenge`)
and the director's pages call these.
"""

from __future__ import annotations

from typing import Any

from adjudicator.hall import tournaments
from adjudicator.hall.hall import clean_details
from adjudicator.hall.tsh import games as tsh_games
from adjudicator.hall.tsh import seating
from adjudicator.judging import director_challenges, director_points, free_challenges, game
from adjudicator.judging.rulebooks import get_rulebook
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal


def grant_free_challenge(
    db: Database,
    slug: str,
    to: str,
    reason: str,
    *,
    actor: str,
    station: str,
    round_no: Any = None,
    table: Any = None,
) -> journal.Entry:
    """Grant player `to` of tournament `slug` one free challenge (in the game at `round_no` and
    `table`, where given), as the director, for `reason`."""
    tournament = tournaments.get(db, slug)
    name = free_challenges.check_name(to)
    game = _game(db, slug, {"round": round_no, "table": table, "challenger": name})
    if not game.get("players"):
        game["challenger"] = _tsh_name(db, slug, name)
    return free_challenges.record_grant(
        db,
        get_rulebook(tournament.rulebook),
        slug,
        game["challenger"],
        reason,
        actor=actor,
        station=station,
        game=game,
    )


def decide_challenge(
    db: Database,
    slug: str,
    kind: str,
    outcome: str,
    reason: str,
    *,
    actor: str,
    station: str,
    points: Any = None,
    **game: Any,
) -> journal.Entry:
    """Record the director's decision on a placement or exchange challenge at tournament
    `slug`; `game`: table, round, challenger and player, each optional; `points`: the
    director's points to the player (director_points.py)."""
    tournament = tournaments.get(db, slug)
    director_challenges.check_kind(kind)
    director_challenges.check_outcome(outcome)
    points = director_points.check_points(points)
    seated = _game(db, slug, game)
    return director_challenges.record(
        db,
        slug,
        tournament.rulebook,
        kind,
        outcome,
        reason,
        actor=actor,
        station=station,
        game=seated,
        points=points,
    )


def _game(db: Database, slug: str, given: dict[str, Any]) -> dict[str, Any]:
    """The game's fields checked as a kiosk's are, and seated at TSH's game where linked."""
    clean = clean_details({k: v for k, v in given.items() if v not in (None, "")})
    return seating.seat_challenge(db, slug, clean)


def _tsh_name(db: Database, slug: str, name: str) -> str:
    """`name` as TSH names the one player it matches in the tournament's linked games (a
    grant for any game of theirs), else as typed."""
    found = [
        player for player in tsh_games.player_names(db, slug) if game.same_player(player, name)
    ]
    return found[0] if len(found) == 1 else name
