"""TSH's published `tourney.js`, read as TSH writes it.

TSH::Tournament::SaveJSON (lib/perl/TSH/Tournament.pm) writes, in UTF-8,
`newt=` + the tournament as JavaScript + `;\n`, on one line. The JavaScript is
JavaScript::Serializable's (lib/perl/JavaScript/Serializable.pm, ToJavaScriptAny), which is
not JSON:
- an undefined Perl value is the bare word `undefined` (players[0], unpaired rounds, ...);
- a scalar matching /^-?(?:\\d+|\\d*\\.\\d+)$/ is a bare number with its leading zeros taken
  off, so `.5` and `-.5` can appear; any other scalar is a string;
- a string escapes only `"`, `\\` and the line break (a backslash before a real line break:
  JavaScript's line continuation, which stands for nothing); tabs and other control
  characters are written raw;
- hash keys are quoted strings, in sorted order.
The tournament's keys (EXPORT_JAVASCRIPT): `config` (TSH::Config's `event_name`, `tables`,
...), `divisions` (TSH::Division's `name` and `players`, its 1-based `data` list, entry 0
undefined) and more the hall does not need. A player (TSH::Player) has `id`, `name`,
`pairings`, `scores` and `etc` (`board`, `p12`, ...).

The text is made JSON token by token (one pass, strings untouched but for their line
continuations) and read by the standard JSON reader: a file that is not this shape, or is cut
short, is refused with a message saying so.
"""

from __future__ import annotations

import json
import re
from typing import Any

from adjudicator.hall.tsh.event import (
    MAX_PLAYERS,
    Division,
    Event,
    Player,
    TshError,
    canonical_division,
    cross_tables_id,
    event_name,
    numbers,
    player_name,
    tables_map,
    whole,
)

MAX_DEPTH = 32
# Tokens outside strings that JSON spells otherwise, and every string (kept, so nothing inside
# one is taken for a token): `undefined`, and numbers with no digit before the point.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|\bundefined\b|(?<![\w.])(-?)\.(?=\d)', re.S)
_CONTINUATION = re.compile(r"\\(?:\r\n|\n|\r|\u2028|\u2029)")
_PREFIX = re.compile(r"\A\ufeff?\s*(?:var\s+)?newt\s*=\s*")
_NOT_TSH = (
    "is not TSH's tourney.js (TSH writes `newt={...};`, in its event's html folder): "
    "link the tourney.js TSH publishes, the event's folder, or its URL."
)


def read(data: bytes, where: str = "The file") -> Event:
    """The event in a tourney.js, or TshError saying why it cannot be one TSH wrote."""
    return event_from_value(parse(data, where), where)


def parse(data: bytes, where: str = "The file") -> Any:
    """The JavaScript value a tourney.js assigns to `newt`, as Python values (undefined and
    null as None)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TshError(f"{where} is not UTF-8 text: it {_NOT_TSH}") from None
    prefix = _PREFIX.match(text)
    if prefix is None:
        raise TshError(f"{where} {_NOT_TSH}")
    body = text[prefix.end() :].rstrip()
    if body.endswith(";"):
        body = body[:-1].rstrip()
    elif body.startswith("{") and not body.endswith("}"):
        raise TshError(f"{where} ends early: TSH may have been writing it; read it again.")
    try:
        value = json.loads(_TOKENS.sub(_as_json, body), strict=False)
    except RecursionError:
        raise TshError(f"{where} nests too deeply: it {_NOT_TSH}") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError) and exc.pos >= len(body) - 1:
            raise TshError(f"{where} ends early: TSH may have been writing it.") from None
        raise TshError(f"{where} {_NOT_TSH}") from None
    if not isinstance(value, dict):
        raise TshError(f"{where} {_NOT_TSH}")
    _check_depth(value)
    return value


def _as_json(found: re.Match) -> str:
    token = found.group(0)
    if token.startswith('"'):
        return _CONTINUATION.sub("", token) if "\\" in token else token
    if token == "undefined":
        return "null"
    return f"{found.group(1)}0."  # '.5' -> '0.5', '-.5' -> '-0.5'


def _check_depth(value: Any, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise TshError("The file nests too deeply to be TSH's tourney.js.")
    if isinstance(value, dict):
        for item in value.values():
            if isinstance(item, dict | list):
                _check_depth(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict | list):
                _check_depth(item, depth + 1)


def event_from_value(value: dict[str, Any], where: str = "The file") -> Event:
    """The event in a parsed tourney.js value."""
    divisions = value.get("divisions")
    if not isinstance(divisions, list) or not divisions:
        raise TshError(f"{where} has no divisions: it {_NOT_TSH}")
    config = value.get("config") if isinstance(value.get("config"), dict) else {}
    tables = _tables(config.get("tables"), len(divisions))
    read = tuple(_division(item, tables, where) for item in divisions)
    names = [division.name for division in read]
    if len(set(names)) != len(names):
        raise TshError(f"{where} names a division twice: it {_NOT_TSH}")
    return Event(event_name(config.get("event_name")), read)


def _tables(value: Any, division_count: int) -> dict[str, Any]:
    """TSH's tables map by division (TSH::Config::AssignTables: a list is the map of an event's
    only division)."""
    if value is None:
        return {}
    if isinstance(value, list):
        return {"": value} if division_count == 1 else {}
    if not isinstance(value, dict):
        raise TshError("The tables map is neither a list nor a map: fix `config tables` in TSH.")
    return {canonical_division(name): boards for name, boards in value.items()}


def _division(value: Any, tables: dict[str, Any], where: str) -> Division:
    if not isinstance(value, dict) or not isinstance(value.get("players"), list):
        raise TshError(f"{where} has a division without players: it {_NOT_TSH}")
    name = canonical_division(value.get("name"))
    if not name:
        raise TshError(f"{where} has a division without a name: it {_NOT_TSH}")
    listed = value["players"]
    if len(listed) > MAX_PLAYERS + 1:
        raise TshError(f"Division {name} has {len(listed) - 1} players: more than TSH runs.")
    if listed and listed[0] is not None:
        raise TshError(f"{where}: division {name}'s players do not start at 1: it {_NOT_TSH}")
    players = tuple(_player(item, number, name) for number, item in enumerate(listed) if number)
    boards = tables.get(name, tables.get(""))
    return Division(name, players, tables_map(boards, f"Tables of division {name}"))


def _player(value: Any, number: int, division: str) -> Player:
    where = f"Player {number} of division {division}"
    if not isinstance(value, dict):
        raise TshError(f"{where} is missing: this is not a file TSH wrote.")
    if whole(value.get("id", number), f"{where}'s id") != number:
        raise TshError(f"{where} says it is number {value.get('id')!r}: not a file TSH wrote.")
    name, xtid = player_name(value.get("name"), where)
    etc = value.get("etc") if isinstance(value.get("etc"), dict) else {}
    xtid = xtid or _xtid(etc.get("xtid"))
    scores = value.get("scores") or []
    if not isinstance(scores, list):
        raise TshError(f"{where}'s scores are not a list: this is not a file TSH wrote.")
    return Player(
        number,
        name,
        xtid,
        numbers(value.get("pairings"), f"{where}'s pairings"),
        tuple(score is not None for score in scores),
        numbers(etc.get("board"), f"{where}'s boards"),
        numbers(etc.get("p12"), f"{where}'s firsts (p12)"),
    )


def _xtid(value: Any) -> str | None:
    """etc.xtid, a list of one cross-tables number in TSH's files."""
    if isinstance(value, list) and value:
        value = value[0]
    return cross_tables_id(value)
