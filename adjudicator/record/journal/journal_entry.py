"""One journal row: its fields, its hash, and the form in which the database stores it.

The hash is SHA-256 over the canonical JSON of every field but `row_hash` (words as a list),
exactly `json.dumps(fields, sort_keys=True, separators=(",", ":"))`; a field added after the
first schema (penalty, flag, dictionary, flag_reasons, details, division, players, install) is
hashed only when set, so older rows keep their hashes. Rows are built and read as plain tuples
in FIELDS order: this runs for every row written or read.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Callable
from dataclasses import MISSING, dataclass
from typing import Any

from adjudicator.record.database.journal_health import GENESIS


@dataclass(frozen=True)
class Entry:
    """One journal row."""

    id: int
    recorded_at: str
    kind: str
    tournament: str
    kiosk: str
    lexicon_name: str
    lexicon_fingerprint: str
    lexicon_words: int
    rule: str
    words: tuple[str, ...]
    word_count: int
    verdict: str
    consequence: str
    refers_to: int | None = None
    table: str | None = None
    round: str | None = None
    challenger: str | None = None
    player: str | None = None
    actor: str | None = None
    note: str | None = None
    penalty: str | None = None  # the consequence as numbers: canonical JSON (rules.Consequence)
    flag: str | None = None  # why the director should look at this row, as a short tag
    dictionary: str | None = None  # a word judge's dictionary check: ACCEPTABLE/UNACCEPTABLE
    flag_reasons: str | None = None  # a second opinion's: JSON list of why it is flagged ('[]')
    details: str | None = None  # JSON object: final_play, waived, confirmed, ground, revokes
    division: str | None = None  # the TSH division of a challenge's game (schema 12)
    players: str | None = None  # its players as TSH names them: JSON list, first player first
    install: str | None = None  # the install id of the laptop that wrote it (schema 24: writer)
    prev_hash: str = GENESIS
    row_hash: str = ""

    def to_api(self) -> dict[str, Any]:
        """The adjudication as the HTTP API and `journal export --format json` give it."""
        return {
            "id": self.id,
            "verdict": self.verdict,
            "words": list(self.words),
            "word_count": self.word_count,
            "tournament": self.tournament,
            "kiosk": self.kiosk,
            "kind": self.kind,
            "refers_to": self.refers_to,
            "lexicon": {
                "name": self.lexicon_name,
                "fingerprint": self.lexicon_fingerprint,
                "words": self.lexicon_words,
            },
            "rule": self.rule,
            "consequence": self.consequence,
            "penalty": self.penalty_numbers(),
            "recorded_at": self.recorded_at,
            "table": self.table,
            "round": self.round,
            "challenger": self.challenger,
            "player": self.player,
            "division": self.division,
            "players": self.player_names(),
        }

    def detail(self, name: str, default: Any = None) -> Any:
        """One value of the row's `details` (final_play, waived, confirmed, ground, ...)."""
        return json.loads(self.details).get(name, default) if self.details else default

    def player_names(self) -> list[str] | None:
        """The game's two players as TSH names them, the first player first (linked games)."""
        return json.loads(self.players) if self.players else None

    def penalty_numbers(self) -> dict[str, Any] | None:
        """The recorded penalty object (play_stands, points_to_player, ...), if any."""
        return json.loads(self.penalty) if self.penalty else None

    def compute_hash(self) -> str:
        """SHA-256 over the previous row's hash and every field of this row.

        A field added after the first schema is hashed only when set, so rows written
        before it existed keep their hashes.
        """
        return hash_values([getattr(self, name) for name in _HASHED_FIELDS])


FIELDS = tuple(Entry.__dataclass_fields__)  # also the columns of `journal export --format csv`
_HASHED_FIELDS = tuple(name for name in FIELDS if name != "row_hash")
_LATER_FIELDS = (
    "penalty",
    "flag",
    "dictionary",
    "flag_reasons",
    "details",
    "division",
    "players",
    "install",
)  # schema versions 6, 7, 12 and 24
_RENAMED = {"table": "table_no", "round": "round_no"}  # TABLE and ROUND are SQL keywords
COLUMNS = tuple(_RENAMED.get(name, name) for name in FIELDS)
INSERT = (
    f"INSERT INTO adjudications ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})"
)
SELECT = f"SELECT {', '.join(COLUMNS)} FROM adjudications"
# A row with its keyed hash (row_keys.py): written by every append, read by the full walk.
KEYED_HASH = "keyed_hash"
INSERT_KEYED = (
    f"INSERT INTO adjudications ({', '.join(COLUMNS)}, {KEYED_HASH}) "
    f"VALUES ({', '.join('?' for _ in COLUMNS)}, ?)"
)
SELECT_KEYED = f"SELECT {', '.join(COLUMNS)}, {KEYED_HASH} FROM adjudications"
WORDS = FIELDS.index("words")
PREV_HASH = FIELDS.index("prev_hash")
ROW_HASH = FIELDS.index("row_hash")
assert ROW_HASH == len(FIELDS) - 1, "the hashed fields are every field before row_hash"
_DEFAULT_VALUES = tuple(field.default for field in Entry.__dataclass_fields__.values())
_INDEX = {name: index for index, name in enumerate(FIELDS)}
_INTEGERS = tuple(FIELDS.index(name) for name in ("id", "lexicon_words", "word_count"))
# The canonical form is json.dumps(fields, sort_keys=True, separators=(",", ":")); building
# the dict in sorted key order gives the same bytes without sorting on every row.
_SORTED = tuple(sorted(range(len(_HASHED_FIELDS)), key=lambda index: _HASHED_FIELDS[index]))
_SORTED_NAMES = tuple(_HASHED_FIELDS[index] for index in _SORTED)
_ENCODER = json.JSONEncoder(separators=(",", ":"))


def _made_encoder() -> Callable[[dict], str]:
    """The canonical JSON of a row's fields: the encoder's C core made once (JSONEncoder.encode
    makes it anew on every call, a tenth of a row's hash); the same bytes. A row's values are
    flat, so no cycle needs marking."""
    core = getattr(json.encoder, "c_make_encoder", None)
    if core is None:
        return _ENCODER.encode
    made = core(
        None, _ENCODER.default, json.encoder.encode_basestring_ascii, None, ":", ",",
        False, False, True,
    )  # fmt: skip
    return lambda fields: "".join(made(fields, 0))


_ENCODE = _made_encoder()


_PICK_SORTED = operator.itemgetter(*_SORTED)


def hash_values(values: list[Any] | tuple) -> str:
    """The row hash of a row's hashed fields, in _HASHED_FIELDS order (words as a sequence)."""
    picked = _PICK_SORTED(values)
    kinds = tuple(map(type, picked))
    made = _TEMPLATES.get(kinds)
    if made is None:
        made = _template(kinds)
        if made is None:
            return hashlib.sha256(_canonical(picked).encode()).hexdigest()
    template, strings, integers, in_order = made
    values = (
        *map(_QUOTE, strings(picked)),
        *integers(picked),
        _ENCODE(list(picked[_SORTED_WORDS])),
    )
    return hashlib.sha256((template % in_order(values)).encode()).hexdigest()


def _canonical(picked: tuple) -> str:
    """The canonical JSON of a row's fields (`picked`: in sorted name order): json.dumps with
    sorted keys and no spaces, a later field left out when not set (older rows keep their
    hashes). What the templates below write, for any value."""
    fields = dict(zip(_SORTED_NAMES, picked, strict=True))
    fields["words"] = list(fields["words"])
    for name in _LATER_FIELDS:
        if fields[name] is None:
            del fields[name]
    return _ENCODE(fields)


# The same text made faster: a row whose values are each None, a str or an int (every row a
# journal stores) is written into a template kept for its pattern of value types, its strings
# quoted as the JSON encoder quotes them. A pattern with any other type is encoded as above.
_QUOTE = json.encoder.encode_basestring_ascii
_SORTED_WORDS = _SORTED_NAMES.index("words")
_TEMPLATES: dict[tuple, tuple[str, Callable, Callable, Callable]] = {}
_MOST_TEMPLATES = 4096


def _template(kinds: tuple) -> tuple[str, Callable, Callable, Callable] | None:
    """The template for rows whose values have these types (None: one it does not write), what
    picks its strings and its integers, and what puts them (quoted), and the words, in the
    template's order; kept for the next row of the pattern."""
    pairs = list(zip(_SORTED_NAMES, kinds, strict=True))
    strings = [index for index, (name, kind) in enumerate(pairs) if kind is str and name != "words"]
    integers = [
        index for index, (name, kind) in enumerate(pairs) if kind is int and name != "words"
    ]
    place = {index: number for number, index in enumerate([*strings, *integers, _SORTED_WORDS])}
    parts, in_order = [], []
    for index, (name, kind) in enumerate(pairs):
        if index in place:
            value = "%s"
            in_order.append(place[index])
        elif kind is type(None):
            if name in _LATER_FIELDS:  # hashed only when set: older rows keep their hashes
                continue
            value = "null"
        else:
            return None  # a bool, a float, a subclass: json's own way
        parts.append(f"{_QUOTE(name)}:{value}")
    made = ("{" + ",".join(parts) + "}", _picker(strings), _picker(integers), _picker(in_order))
    if len(_TEMPLATES) < _MOST_TEMPLATES:
        _TEMPLATES[kinds] = made
    return made


def _picker(indexes: list[int]) -> Callable[[tuple], tuple]:
    """What picks these values of a row, as a tuple (operator.itemgetter's, for any count)."""
    if len(indexes) > 1:
        return operator.itemgetter(*indexes)
    if indexes:
        only = indexes[0]
        return lambda picked: (picked[only],)
    return lambda picked: ()


def make_entry(values: list[Any] | tuple) -> Entry:
    """An Entry from its values in FIELDS order, without the frozen dataclass's slow __init__
    (one object.__setattr__ per field): this runs for every row read or written."""
    entry = object.__new__(Entry)
    entry.__dict__.update(zip(FIELDS, values, strict=True))
    return entry


def from_row(row: dict[str, Any]) -> Entry:
    """An Entry from a row of `SELECT * FROM adjudications` (columns by name)."""
    return from_values(tuple(row[column] for column in COLUMNS))


def new_entry(fields: dict[str, Any]) -> Entry:
    """A new row from its fields (the optional ones may be left out), with its hash."""
    values = list(_DEFAULT_VALUES)
    for name, value in fields.items():
        index = _INDEX.get(name)
        if index is None:
            raise TypeError(f"unknown journal field: {name}")
        values[index] = value
    if MISSING in values:
        missing = [name for name, value in zip(FIELDS, values, strict=True) if value is MISSING]
        raise TypeError(f"missing journal fields: {', '.join(missing)}")
    values[WORDS] = tuple(values[WORDS])
    values[ROW_HASH] = hash_values(values)
    return make_entry(values)


def stored_values(entry: Entry) -> tuple:
    """The values to store for `entry`, in FIELDS order (its __dict__ order: make_entry)."""
    values = list(entry.__dict__.values())
    values[WORDS] = " ".join(values[WORDS])
    return tuple(values)


def canonical_words(row: tuple) -> list[str] | None:
    """A stored row's words if every stored value is exactly what an append writes, else None.

    '196601 ' for 196601, 196601.0, 'QI  ZA' for 'QI ZA': each reads back as the same entry
    and hashes alike, so only the stored form itself can tell.
    """
    words = row[WORDS]
    if type(words) is not str or any(type(row[index]) is not int for index in _INTEGERS):
        return None
    split = words.split()
    return split if " ".join(split) == words else None


def from_values(row: tuple) -> Entry:
    """An Entry from a stored row's values in FIELDS order."""
    values = list(row)
    values[WORDS] = tuple(values[WORDS].split())
    for index in _INTEGERS:
        values[index] = int(values[index])
    return make_entry(values)
