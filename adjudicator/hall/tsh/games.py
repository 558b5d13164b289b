"""The games of the tournaments linked to TSH, as the hall asks for them: a table's current
round (`current_game`), a table in a given round (`game_at`), a round's games (`show`), each
division's current round (`show_current`), the tables with a game (`tables_with_games`), and
the players, for the journal's filter. Each is one indexed query of `tsh_games` (links.py
writes it); a stored game's seats are read once per process, so a challenge pays a dict
look-up for them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from adjudicator.hall.tsh.event import Game, Seat, current_round
from adjudicator.judging.game import canonical
from adjudicator.record.database.db import Database
from adjudicator.wording import natural_key

FIELDS = "division, round_no, table_no, board, players, scored"
ROUND_DIGITS = 6  # a round TSH numbers has at most this many digits


def show(db: Database, slug: str, round_number: int | None = None) -> list[Game]:
    """The linked games of a tournament (of one round), by round, division and board."""
    sql = f"SELECT {FIELDS} FROM tsh_games WHERE tournament = ?"
    params: tuple = (slug,)
    if round_number is not None:
        sql, params = sql + " AND round_no = ?", (slug, round_number)
    with db.transaction() as cur:
        rows = cur.execute(sql + " ORDER BY round_no, division, board, table_no", params).all()
    return [_game(row) for row in rows]


def current_rounds(found: Sequence[Game]) -> dict[str, int]:
    """Each division's current round among `found` (a tournament's games, as `show` gives
    them): its earliest paired round with a game not yet scored, else its latest."""
    divisions: dict[str, list[Game]] = {}
    for game in found:
        divisions.setdefault(game.division, []).append(game)
    return {name: current_round(played) for name, played in divisions.items()}


def show_current(db: Database, slug: str) -> tuple[dict[str, int], list[Game]]:
    """Each division's current round, and the games of those rounds (`tsh show` without
    --round)."""
    every = show(db, slug)
    rounds = current_rounds(every)
    return rounds, [game for game in every if game.round == rounds[game.division]]


def tables_with_games(db: Database, slug: str, round_number: int | None = None) -> list[str]:
    """The tables with a game in a round (each division's current round when none is given),
    in number order (2 before 10)."""
    if round_number is None:
        found = show_current(db, slug)[1]
    else:
        found = show(db, slug, round_number)
    return sorted({game.table for game in found if game.table}, key=natural_key)


def current_game(db: Database, slug: str, table: str | None) -> Game | None:
    """The game at a table in its current round: the earliest round paired there whose game
    has no score yet; when every one is scored, the latest. One indexed query."""
    table = canonical(table)
    if not table:
        return None
    row = db.query_one(
        f"SELECT {FIELDS} FROM tsh_games WHERE tournament = ? AND table_no = ? "
        "ORDER BY scored, CASE WHEN scored = 0 THEN round_no ELSE -round_no END LIMIT 1",
        (slug, table),
    )
    return _game(row) if row else None


def game_at(
    db: Database, slug: str, round_number: str | int | None, table: str | None
) -> Game | None:
    """The game at a table in a given round (None if the round is not a number TSH uses)."""
    table, text = canonical(table), canonical(None if round_number is None else str(round_number))
    if not table or not text or not text.isdecimal() or len(text) > ROUND_DIGITS:
        return None
    row = db.query_one(
        f"SELECT {FIELDS} FROM tsh_games WHERE tournament = ? AND table_no = ? AND round_no = ?",
        (slug, table, int(text)),
    )
    return _game(row) if row else None


def player_names(db: Database, tournament: str | None = None) -> list[str]:
    """Every player of the linked games (of one tournament), by name: the journal's filter."""
    sql, params = "SELECT DISTINCT players FROM tsh_games", ()
    if tournament:
        sql, params = sql + " WHERE tournament = ?", (tournament,)
    with db.transaction() as cur:
        rows = cur.execute(sql, params).tuples()
    return sorted({item["name"] for (players,) in rows for item in json.loads(players)})


def games_of_player(db: Database, name: str, tournament: str | None = None) -> list[str]:
    """The `players` values a challenge row records (seating) for every linked game the named
    player sits at: the journal rows of a player's games are those holding one of them. Both
    orders: a row keeps the order of its challenge, and TSH may settle who went first later."""
    wanted = " ".join(str(name).split()).casefold()
    sql, params = "SELECT DISTINCT players FROM tsh_games", ()
    if tournament:
        sql, params = sql + " WHERE tournament = ?", (tournament,)
    with db.transaction() as cur:
        rows = cur.execute(sql, params).tuples()
    found = set()
    for (players,) in rows:
        names = [item["name"] for item in json.loads(players)]
        if any(n.casefold() == wanted for n in names):
            found.add(recorded_players(names))
            found.add(recorded_players(names[::-1]))
    return sorted(found)


def recorded_players(names: Sequence[str]) -> str:
    """A game's players as a challenge row records them: a JSON list, the first player first."""
    return json.dumps(list(names))


@lru_cache(maxsize=4096)
def players_of(game: Game) -> str:
    """recorded_players of a game, made once per process and game."""
    return recorded_players([seat.name for seat in game.seats])


def _game(row: dict[str, Any]) -> Game:
    return Game(
        row["division"],
        int(row["round_no"]),
        row["board"],
        row["table_no"],
        _seats(row["players"]),
        bool(row["scored"]),
    )


@lru_cache(maxsize=4096)
def _seats(players: str) -> tuple[Seat, ...]:
    """A stored game's seats, read once per process: a challenge pays a dict look-up."""
    return tuple(
        Seat(item["id"], item["name"], bool(item["first"]), item.get("xtid"))
        for item in json.loads(players)
    )
