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
from adjudicator.hall.tsh import games
from adjudicator.hall.tsh.event import Game, Seat
from adjudicator.record.db import Database
from adjudicator.wording import N_, Phrase

_NOT_SEATED = N_(
    "{challenger} is not playing at table {table} in round {round}: {first} and {second} are. "
    "Choose one of them."
)


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
