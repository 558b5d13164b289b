"""A challenge's game in a tournament linked to TSH: the round and table it is played at, the
division, both players, and the challenger as TSH names them.

The game is the one at the challenge's table (the kiosk's, unless the challenge names one) in
the round it names, else in the table's current round (games.current_game). The challenger
may be given by TSH number or by name; one not seated at that game is refused, naming who is.
With no linked game there (no table known, a table TSH does not use, an unlinked tournament),
the challenge is recorded as typed: a kiosk with no game this round still judges.
"""

from __future__ import annotations

import re
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.hall.tsh import games, links
from adjudicator.hall.tsh.event import Game, Seat
from adjudicator.judging.game import canonical
from adjudicator.record.database.db import Database
from adjudicator.wording import N_, Phrase

_NOT_SEATED = N_(
    "{challenger} is not playing at table {table} in round {round}: {first} and {second} are. "
    "Choose one of them."
)


class NoGameAtTable(AdjudicatorError):
    """A challenge recorded by hand (`judge --tournament SLUG --table N`) names a table where
    the linked tournament has no game in that round: refused, naming the tables that have one."""


class NotSeated(AdjudicatorError):
    """The challenger named is not one of the two players TSH seats at the game.
    `phrase` is the message as a kiosk says it in its tournament's language."""

    def __init__(self, message: str, phrase: Phrase | None = None):
        super().__init__(message)
        self.phrase = phrase


def seat_challenge(db: Database, slug: str, details: dict[str, Any]) -> dict[str, Any]:
    """The challenge's details with its game as TSH has it (round, table, the challenger's TSH
    name, division, players), or as given when TSH has no game there."""
    table = details.get("table")
    if not table:
        return details
    round_given = details.get("round")
    game = (
        games.game_at(db, slug, round_given, table)
        if round_given
        else games.current_game(db, slug, table)
    )
    if game is None:
        return details
    seated = dict(details)
    seated["round"], seated["table"] = str(game.round), game.table
    seated["division"] = game.division
    seated["players"] = games.players_of(game)
    if details.get("challenger"):
        seated["challenger"] = seat_of(game, details["challenger"]).name
    return seated


def check_table_has_game(db: Database, slug: str, details: dict[str, Any]) -> None:
    """Where the tournament is linked to TSH, the table named must have a game in the round
    named (else its current round), or NoGameAtTable naming the tables that have one. A kiosk
    at such a table still judges (seat_challenge); the command line, typed by hand, does not
    record a challenge silently as typed."""
    table = canonical(details.get("table"))
    if not table or links.get(db, slug) is None:
        return
    round_given = canonical(details.get("round"))
    game = (
        games.game_at(db, slug, round_given, table)
        if round_given
        else games.current_game(db, slug, table)
    )
    if game is not None:
        return
    number = int(round_given) if round_given and round_given.isdecimal() else None
    if round_given and (number is None or len(round_given) > games.ROUND_DIGITS):
        tables = []  # not a round TSH numbers: no game in it
    else:
        tables = games.tables_with_games(db, slug, number)
    when = f"in round {round_given}" if round_given else "this round"
    where = (
        f"the tables with a game {when} are {_spans(tables)}"
        if tables
        else f"TSH pairs no game {when}"
    )
    raise NoGameAtTable(
        f"Tournament {slug} is linked to TSH's pairings, and table {table} has no game {when}: "
        f"{where}. Give the table (and round) the challenge was made at, or see them with "
        f"`adjudicator tsh show {slug}`."
    )


def _spans(tables: list[str]) -> str:
    """Tables as a reader scans them: 1-20, 25, 30-31 (names that are not numbers as they are)."""
    parts: list[str] = []
    numbers = [int(t) for t in tables if t.isdecimal()]
    start = previous = None
    for n in numbers + [None]:
        if previous is not None and n == previous + 1:
            previous = n
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = n
    return ", ".join(parts + [t for t in tables if not t.isdecimal()])


def seat_of(game: Game, challenger: str) -> Seat:
    """The player a challenger names: by TSH number, or by name ("Last, First", or "First
    Last", in any case), or NotSeated naming the two players there."""
    wanted = _plain(challenger)
    for seat in game.seats:
        if wanted == str(seat.number) or wanted in _name_forms(seat.name):
            return seat
    first, second = (f"{seat.name} (#{seat.number})" for seat in game.seats)
    fields = {
        "challenger": challenger,
        "table": game.table,
        "round": game.round,
        "first": first,
        "second": second,
    }
    raise NotSeated(_NOT_SEATED.format(**fields), Phrase.of(_NOT_SEATED, **fields))


def _plain(text: str) -> str:
    """A name as compared: case and spacing ignored, '#12' is '12'."""
    text = " ".join(str(text).split()).casefold().lstrip("#")
    return re.sub(r"\s*,\s*", ", ", text)


def _name_forms(name: str) -> set[str]:
    plain = _plain(name)
    last, comma, first = plain.partition(", ")
    return {plain, f"{first} {last}"} if comma else {plain}
