"""The journal: every adjudication, append-only, each row chained to the one before by a hash.

A row is committed durably before its verdict is shown to anyone. `verify` recomputes the
chain and names the first row that was edited, inserted or removed. No row holds per-word
validity: only the words as challenged and the one verdict.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Callable, Iterator
from dataclasses import MISSING, dataclass
from datetime import UTC, datetime
from typing import Any

from adjudicator import tallies
from adjudicator.db import Database

GENESIS = "0" * 64
KINDS = ("challenge", "second-opinion", "ruling")


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
            "recorded_at": self.recorded_at,
            "table": self.table,
            "round": self.round,
            "challenger": self.challenger,
            "player": self.player,
        }

    def compute_hash(self) -> str:
        """SHA-256 over the previous row's hash and every field of this row."""
        return hash_values([getattr(self, name) for name in _HASHED_FIELDS])


FIELDS = tuple(Entry.__dataclass_fields__)  # also the columns of `journal export --format csv`
_HASHED_FIELDS = tuple(name for name in FIELDS if name != "row_hash")
_RENAMED = {"table": "table_no", "round": "round_no"}  # TABLE and ROUND are SQL keywords
_COLUMNS = tuple(_RENAMED.get(name, name) for name in FIELDS)
_INSERT = (
    f"INSERT INTO adjudications ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})"
)
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM adjudications"
_WORDS = FIELDS.index("words")
_PREV = FIELDS.index("prev_hash")
_ROW_HASH = FIELDS.index("row_hash")
assert _ROW_HASH == len(FIELDS) - 1, "the hashed fields are every field before row_hash"
_DEFAULT_VALUES = tuple(field.default for field in Entry.__dataclass_fields__.values())
_INDEX = {name: index for index, name in enumerate(FIELDS)}
_INTEGERS = tuple(FIELDS.index(name) for name in ("id", "lexicon_words", "word_count"))
# The canonical form is json.dumps(fields, sort_keys=True, separators=(",", ":")); building
# the dict in sorted key order gives the same bytes without sorting on every row.
_SORTED = tuple(sorted(range(len(_HASHED_FIELDS)), key=lambda index: _HASHED_FIELDS[index]))
_SORTED_NAMES = tuple(_HASHED_FIELDS[index] for index in _SORTED)
_ENCODER = json.JSONEncoder(separators=(",", ":"))


_PICK_SORTED = operator.itemgetter(*_SORTED)


def hash_values(values: list[Any] | tuple) -> str:
    """The row hash of a row's hashed fields, in _HASHED_FIELDS order (words as a sequence)."""
    fields = dict(zip(_SORTED_NAMES, _PICK_SORTED(values), strict=True))
    fields["words"] = list(fields["words"])
    return hashlib.sha256(_ENCODER.encode(fields).encode()).hexdigest()


def _make_entry(values: list[Any] | tuple) -> Entry:
    """An Entry from its values in FIELDS order, without the frozen dataclass's slow __init__
    (one object.__setattr__ per field): this runs for every row read or written."""
    entry = object.__new__(Entry)
    entry.__dict__.update(zip(FIELDS, values, strict=True))
    return entry


@dataclass
class Pending:
    """One row waiting to be appended: its fields, an optional guard, and then its outcome."""

    fields: dict[str, Any]
    guard: Callable[[Any], None] | None = None
    entry: Entry | None = None
    error: BaseException | None = None


def append(db: Database, *, guard: Callable[[Any], None] | None = None, **fields: Any) -> Entry:
    """Record one adjudication durably and return it with its id, time and hash.

    `guard(cursor)` runs first under the chain lock and may raise to refuse the write.
    """
    pending = Pending(fields, guard)
    append_batch(db, [pending])
    if pending.error is not None:
        raise pending.error
    assert pending.entry is not None
    return pending.entry


def append_batch(db: Database, batch: list[Pending]) -> None:
    """Append every row of `batch` in one transaction: one lock, one fsync (group commit).

    A row whose guard refuses it gets that error and is skipped; if the commit fails, the
    transaction's error propagates and no row of the batch has an entry.
    """
    with db.transaction(chain_lock=True) as cur:
        last = cur.execute(
            "SELECT id, row_hash, recorded_at FROM adjudications ORDER BY id DESC LIMIT 1"
        ).one()
        next_id, prev_hash = ((last["id"] + 1), last["row_hash"]) if last else (1, GENESIS)
        # The journal's clock never runs backwards (a clock step, another server's clock), so
        # a time range is an id range and the director's filters stay on indexes.
        not_before = last["recorded_at"] if last else ""
        written: list[tuple[Pending, Entry]] = []
        for pending in batch:
            try:
                if pending.guard is not None:
                    pending.guard(cur)
            except Exception as refusal:  # noqa: BLE001 - handed back to that row's caller
                pending.error = refusal
                continue
            now = datetime.now(UTC).isoformat(timespec="microseconds")
            entry = _new_entry(
                {
                    **pending.fields,
                    "id": next_id,
                    "recorded_at": max(now, not_before),
                    "prev_hash": prev_hash,
                }
            )
            if pending.guard is not None:  # later guards in the batch must see this row
                cur.execute(_INSERT, _row_values(entry))
            written.append((pending, entry))
            next_id, prev_hash, not_before = entry.id + 1, entry.row_hash, entry.recorded_at
        unguarded = [_row_values(e) for p, e in written if p.guard is None]
        if len(unguarded) == 1:
            cur.execute(_INSERT, unguarded[0])
        elif unguarded:
            cur.executemany(_INSERT, unguarded)
        tallies.record(cur, [entry for _, entry in written])
    for pending, entry in written:  # only once the commit is durable
        pending.entry = entry


def get(db: Database, entry_id: int) -> Entry | None:
    """The journal row with this id, if any."""
    found = select(db, "id = ?", (entry_id,))
    return found[0] if found else None


def select(db: Database, where: str, params: tuple = (), tail: str = "") -> list[Entry]:
    """The rows matching an SQL condition (`?` placeholders), `tail` being ORDER BY/LIMIT."""
    with db.transaction() as cur:
        rows = cur.execute(f"{_SELECT} WHERE {where} {tail}", params).tuples()
    return [from_values(row) for row in rows]


def follow_ups(db: Database, original_id: int) -> list[Entry]:
    """Every row that refers to `original_id` (second opinions, rulings), in id order."""
    return select(db, "refers_to = ?", (original_id,), "ORDER BY id")


def newest_id(db: Database) -> int:
    """The id of the newest row (0 for an empty journal): also the number of rows in the chain."""
    with db.transaction() as cur:
        row = cur.execute("SELECT MAX(id) AS id FROM adjudications").one()
    return int(row["id"] or 0) if row else 0


def entries(
    db: Database, tournament: str | None = None, batch: int = 5000, **filters: Any
) -> Iterator[Entry]:
    """Every row in id order (optionally of one tournament, kiosk or kind), read in batches."""
    for rows in batches(db, tournament, batch, **filters):
        yield from map(from_values, rows)


def rows(db: Database, tournament: str | None = None, **filters: Any) -> Iterator[tuple]:
    """The rows of `entries` as stored (FIELDS order, words as one text), read in batches."""
    for found in batches(db, tournament, **filters):
        yield from found


def batches(
    db: Database,
    tournament: str | None = None,
    batch: int = 5000,
    *,
    where: tuple[str, ...] = (),
    params: tuple = (),
    **filters: Any,
) -> Iterator[list[tuple]]:
    """The rows of `entries` as raw tuples in FIELDS order, `batch` at a time (constant memory).

    `where` adds SQL conditions (`?` placeholders, values in `params`) to the filters.
    """
    conditions, params = list(where), list(params)
    if tournament:
        filters["tournament"] = tournament
    for column in ("tournament", "kiosk", "kind"):
        if filters.get(column):
            conditions.append(f"{column} = ?")
            params.append(filters[column])
    if filters.get("kind") not in (None, "", "challenge"):
        conditions.append("kind <> 'challenge'")  # lets the partial index answer it
    where = " AND ".join(["id > ?", *conditions])
    sql = f"{_SELECT} WHERE {where} ORDER BY id LIMIT {int(batch)}"
    after = 0
    while True:
        with db.transaction() as cur:
            rows = cur.execute(sql, (after, *params)).tuples()
        if not rows:
            return
        yield rows
        after = rows[-1][0]


@dataclass(frozen=True)
class VerifyResult:
    rows: int
    first_bad_id: int | None = None
    problem: str = ""
    last_hash: str = ""

    @property
    def ok(self) -> bool:
        return self.first_bad_id is None


def verify(db: Database) -> VerifyResult:
    """Walk the chain in id order, in batches; the first row whose hash, link or number is
    wrong ends the walk. Rows are checked as read, so memory stays constant at any size."""
    expected_prev, expected_id, count = GENESIS, 1, 0
    for rows in batches(db):
        for row in rows:
            entry_id, prev_hash, row_hash = int(row[0]), row[_PREV], row[_ROW_HASH]
            if entry_id != expected_id:
                return VerifyResult(
                    count, entry_id, f"row {expected_id} is missing before row {entry_id}"
                )
            if prev_hash != expected_prev:
                return VerifyResult(
                    count, entry_id, f"row {entry_id} does not link to row {entry_id - 1}"
                )
            if _stored_hash(row) != row_hash:
                return VerifyResult(
                    count, entry_id, f"row {entry_id} was altered after it was recorded"
                )
            expected_prev, expected_id, count = row_hash, entry_id + 1, count + 1
    return VerifyResult(count, last_hash=expected_prev if count else "")


def count_since(cur: Any, kiosk: str, since: str, at_most: int) -> int:
    """How many challenges a kiosk made at or after the ISO time `since`, counting no further
    than `at_most` (inside a transaction): its newest `at_most` challenges, read by index."""
    rows = cur.execute(
        "SELECT recorded_at FROM adjudications WHERE kiosk = ? AND kind = 'challenge' "
        f"ORDER BY id DESC LIMIT {int(at_most)}",
        (kiosk,),
    ).tuples()
    return sum(1 for (recorded_at,) in rows if recorded_at >= since)


def _new_entry(fields: dict[str, Any]) -> Entry:
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
    values[_WORDS] = tuple(values[_WORDS])
    values[_ROW_HASH] = hash_values(values)
    return _make_entry(values)


def _row_values(entry: Entry) -> tuple:
    """The values to store for `entry`, in FIELDS order (its __dict__ order: _make_entry)."""
    values = list(entry.__dict__.values())
    values[_WORDS] = " ".join(values[_WORDS])
    return tuple(values)


def _stored_hash(row: tuple) -> str:
    """The hash a stored row (FIELDS order, as read) should carry."""
    values = list(row[:_ROW_HASH])
    for index in _INTEGERS:
        values[index] = int(values[index])
    values[_WORDS] = values[_WORDS].split()
    return hash_values(values)


def from_values(row: tuple) -> Entry:
    """An Entry from a stored row's values in FIELDS order."""
    values = list(row)
    values[_WORDS] = tuple(values[_WORDS].split())
    for index in _INTEGERS:
        values[index] = int(values[index])
    return _make_entry(values)
