"""A TSH event as the hall needs it: its divisions, their players, and the games of each round.

What TSH keeps per player is the same in `tourney.js` and in a `.t` file (TSH's
lib/perl/TSH/Player.pm, "Supplementary player data"): `pairings`, one opponent number per
round (0 a bye, undefined not paired yet), `scores` per round (undefined not scored yet), and in
`etc`: `board`, the board per round (0: none assigned), and `p12`, 1 if the player went first,
2 second, 0 a bye, 3 must draw, 4 indeterminate. Player N is number N of its division
(TSH::Division::AddPlayer: `id` is the index in the 1-based `data` list).

Boards are numbered within a division (TSH::Division::ComputeBoards), and TSH's `config tables`
maps a division's board B to the hall's table `tables{DIV}[B-1]` (TSH::Division::BoardTable).
A pairing is a game only when both players name each other (ComputeBoards checks the same).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.judging.game import canonical
from adjudicator.textcheck import TITLE_MAX, TextError, check_text

NAME_MAX = TITLE_MAX  # a player's name as TSH has it ("Last, First"), shown and recorded
TABLE_MAX = 40  # the hall's table, as a challenge's `table` (hall.MAX_DETAIL)
MAX_ROUNDS = 1000
MAX_PLAYERS = 5000
# A cross-tables id kept at the end of a name, "Last, First:XT017175" (TSH's cross_tables_id
# roster downloads); the same id may also be in etc.xtid.
_XT_SUFFIX = re.compile(r":(XT[0-9]+)\s*$")
_XT_NUMBER = re.compile(r"[0-9]{1,12}")
_DIVISION_JUNK = re.compile(r"\W")


class TshError(AdjudicatorError):
    """A TSH source cannot be read or linked as asked; the message says what to fix."""


@dataclass(frozen=True)
class Player:
    number: int
    name: str
    xtid: str | None
    pairings: tuple[int | None, ...]
    scored: tuple[bool, ...]
    boards: tuple[int | None, ...]
    p12: tuple[int | None, ...]


@dataclass(frozen=True)
class Division:
    name: str
    players: tuple[Player, ...]  # number N at index N-1
    tables: tuple[str | None, ...] | None = None  # board B at index B-1; None: no tables map


@dataclass(frozen=True)
class Event:
    name: str
    divisions: tuple[Division, ...]

    def division(self, name: str) -> Division:
        """The division `name` (compared as TSH compares them), or TshError naming them all."""
        wanted = canonical_division(name)
        for division in self.divisions:
            if division.name == wanted:
                return division
        known = ", ".join(division.name for division in self.divisions) or "none"
        raise TshError(f"The TSH event has no division {name!r} (its divisions: {known}).")


@dataclass(frozen=True)
class Seat:
    number: int
    name: str
    first: bool
    xtid: str | None = None

    def to_api(self) -> dict[str, Any]:
        """`id` (TSH's number), `name`, `first`; and `xtid`, the cross-tables id, when known."""
        found: dict[str, Any] = {"id": self.number, "name": self.name, "first": self.first}
        if self.xtid:
            found["xtid"] = self.xtid
        return found


@dataclass(frozen=True)
class Game:
    division: str
    round: int  # 1-based, as TSH shows it
    board: int | None
    table: str | None  # the hall's table; None when TSH assigned no board
    seats: tuple[Seat, Seat]  # the first player first (when TSH knows who went first)
    scored: bool

    def to_api(self) -> dict[str, Any]:
        return {
            "division": self.division,
            "round": self.round,
            "table": self.table,
            "players": [seat.to_api() for seat in self.seats],
        }


def canonical_division(name: object) -> str:
    """A division's name as TSH compares them (TSH::Division::CanonicaliseName): no
    non-word characters, upper case ('a' and 'A ' are division A)."""
    return _DIVISION_JUNK.sub("", str(name or "")).upper()


def event_name(raw: object) -> str:
    """The event's name as TSH's `config event_name` gives it (TSH's default when unset)."""
    name = " ".join(str(raw).split()) if raw else ""
    try:
        return check_text(name, "event name", NAME_MAX) or "Unnamed Event"
    except TextError as exc:
        raise TshError(f"{exc} Fix `config event_name` in TSH.") from None


def player_name(raw: object, where: str) -> tuple[str, str | None]:
    """A player's name as TSH shows it ("Last, First") and their cross-tables id, if the name
    carries one (":XT017175"). TSH stores a name ending in a digit with a trailing comma and
    strips it to show it (TSH::Player::Name)."""
    if not isinstance(raw, str):
        raise TshError(f"{where} has no name: this is not a file TSH wrote.")
    name = raw.strip()
    xtid = None
    found = _XT_SUFFIX.search(name)
    if found:
        xtid, name = found.group(1), name[: found.start()].rstrip()
    name = re.sub(r",\s*$", "", name).strip()
    try:
        name = check_text(name, f"name of {where}", NAME_MAX, required=True)
    except TextError as exc:
        raise TshError(f"{exc} Fix the name in TSH.") from None
    return " ".join(name.split()), xtid


def cross_tables_id(value: Any) -> str | None:
    """A cross-tables id as the hall shows it ("XT017175") from the number TSH keeps in
    etc.xtid (a number, or its digits in a string); None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    text = str(value).strip()
    return f"XT{int(text):06d}" if _XT_NUMBER.fullmatch(text) else None


def whole(value: Any, where: str, *, allow_none: bool = True) -> int | None:
    """A whole number as TSH writes one (a number, or digits in a string), None for undefined."""
    if value is None or value == "":
        if allow_none:
            return None
        raise TshError(f"{where} is missing: this is not a file TSH wrote.")
    if isinstance(value, bool):
        raise TshError(f"{where} is not a number: this is not a file TSH wrote.")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?\d{1,9}", value.strip()):
        return int(value.strip())
    raise TshError(f"{where} is {value!r}, not a number: this is not a file TSH wrote.")


def numbers(values: Any, where: str) -> tuple[int | None, ...]:
    """A per-round list of whole numbers (undefined kept as None)."""
    if values is None:
        return ()
    if not isinstance(values, list | tuple):
        raise TshError(f"{where} is not a list: this is not a file TSH wrote.")
    if len(values) > MAX_ROUNDS:
        raise TshError(f"{where} has {len(values)} rounds: more than any event TSH runs.")
    return tuple(whole(value, f"{where}, round {index + 1}") for index, value in enumerate(values))


def table_label(value: Any, where: str) -> str | None:
    """One entry of TSH's tables map: the hall's table (a number or a label), None if unset."""
    if value is None or value == "" or value == "?":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TshError(f"{where} is not a table number: fix `config tables` in TSH.")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = " ".join(str(value).split())
    try:
        text = check_text(text, where, TABLE_MAX)
    except TextError as exc:
        raise TshError(f"{exc} Fix `config tables` in TSH.") from None
    return canonical(text)  # as a challenge's table is compared: '07' is '7', 'a3' is 'A3'


def tables_map(values: Any, where: str) -> tuple[str | None, ...] | None:
    """A division's entry of TSH's `tables` map, board by board."""
    if values is None:
        return None
    if not isinstance(values, list | tuple):
        raise TshError(f"{where} is not a list of tables: fix `config tables` in TSH.")
    return tuple(table_label(value, f"{where}, board {i + 1}") for i, value in enumerate(values))


def games(division: Division) -> list[Game]:
    """Every game of the division, round by round and board by board. A bye is no game, nor is
    a pairing only one of the two players names."""
    by_number = {player.number: player for player in division.players}
    found = []
    for player in division.players:
        for r0, opponent_number in enumerate(player.pairings):
            if not opponent_number or opponent_number <= player.number:
                continue  # a bye, not paired, or the pair seen from the other side
            opponent = by_number.get(opponent_number)
            if opponent is None or _at(opponent.pairings, r0) != player.number:
                continue
            found.append(_game(division, r0, player, opponent))
    found.sort(key=lambda game: (game.round, game.board or 10**9, game.seats[0].number))
    return found


def _game(division: Division, r0: int, one: Player, other: Player) -> Game:
    board = _at(one.boards, r0) or _at(other.boards, r0) or None
    table = None
    if board is not None and board > 0:
        if division.tables is None:
            table = str(board)
        elif board <= len(division.tables):
            table = division.tables[board - 1]
    else:
        board = None
    first = _who_went_first(_at(one.p12, r0), _at(other.p12, r0))
    seats = (
        Seat(one.number, one.name, first == 1, one.xtid),
        Seat(other.number, other.name, first == 2, other.xtid),
    )
    if first == 2:
        seats = (seats[1], seats[0])
    scored = _at(one.scored, r0) or _at(other.scored, r0) or False
    return Game(division.name, r0 + 1, board, table, seats, bool(scored))


def _who_went_first(mine: int | None, theirs: int | None) -> int | None:
    """1 if the first player named went first, 2 if the other did, None if TSH does not say
    (p12 3 'must draw', 4 'indeterminate', or not recorded)."""
    if mine == 1 or theirs == 2:
        return 1
    if mine == 2 or theirs == 1:
        return 2
    return None


def _at(values: Sequence[Any], index: int) -> Any:
    return values[index] if index < len(values) else None


def current_round(games_here: Iterable[Game]) -> int | None:
    """The round a table (or division) is playing: the earliest paired round whose game has no
    score yet; when every paired round is scored, the latest. TSH may pair ahead (round
    robins), so the earliest unscored game is the one being played: no jump in mid-game."""
    unscored = [game.round for game in games_here if not game.scored]
    if unscored:
        return min(unscored)
    rounds = [game.round for game in games_here]
    return max(rounds) if rounds else None


def rounds_paired(division: Division) -> int:
    """How many rounds TSH has paired in the division (byes count as paired)."""
    return max(
        (sum(1 for p in player.pairings if p is not None) for player in division.players), default=0
    )


def check_one_game_a_table(found: Iterable[Game]) -> None:
    """Refuse two games at one of the hall's tables in one round (two divisions' boards mapped
    to the same table): a kiosk there could not know its game."""
    seen: dict[tuple[int, str], Game] = {}
    for game in found:
        if game.table is None:
            continue
        other = seen.setdefault((game.round, game.table), game)
        if other is not game:
            raise TshError(
                f"Round {game.round} has two games at table {game.table} (division "
                f"{other.division} board {other.board} and division {game.division} board "
                f"{game.board}): give each division its own tables in TSH's `config tables`."
            )
