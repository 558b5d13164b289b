"""The journal: every adjudication, append-only, each row chained to the one before by a hash.

A row is committed durably before its verdict is shown to anyone. `verify` recomputes the
chain and names the first row that was edited, inserted or removed. No row holds per-word
validity: only the words as challenged and the one verdict.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Callable, Iterable, Iterator
from dataclasses import MISSING, dataclass
from datetime import UTC, datetime
from typing import Any

from adjudicator import journal_health, tallies
from adjudicator.db import Database
from adjudicator.errors import AdjudicatorError
from adjudicator.journal_health import GENESIS

MAX_ID = 2**63 - 1
KINDS = ("challenge", "second-opinion", "ruling", "void")


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
        }

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
_LATER_FIELDS = ("penalty", "flag")  # schema version 6
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
    for name in _LATER_FIELDS:  # hashed only when set: older rows keep their hashes
        if fields[name] is None:
            del fields[name]
    return hashlib.sha256(_ENCODER.encode(fields).encode()).hexdigest()


def _make_entry(values: list[Any] | tuple) -> Entry:
    """An Entry from its values in FIELDS order, without the frozen dataclass's slow __init__
    (one object.__setattr__ per field): this runs for every row read or written."""
    entry = object.__new__(Entry)
    entry.__dict__.update(zip(FIELDS, values, strict=True))
    return entry


@dataclass
class Pending:
    """One row waiting to be appended: its fields, an optional guard, and then its outcome.

    The guard runs under the chain lock; it may raise to refuse the row, or return a dict of
    fields that can only be known there (such as a penalty that counts earlier rows).
    """

    fields: dict[str, Any]
    guard: Callable[[Any], dict[str, Any] | None] | None = None
    entry: Entry | None = None
    error: BaseException | None = None


def append(
    db: Database, *, guard: Callable[[Any], dict[str, Any] | None] | None = None, **fields: Any
) -> Entry:
    """Record one adjudication durably and return it with its id, time and hash.

    `guard(cursor)` runs first under the chain lock and may raise an AdjudicatorError to refuse
    the write, or return fields to complete the row with.
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
    transaction's error propagates and no row of the batch has an entry. The journal's identity
    is checked in the same transaction (journal_health.read_head): a journal that is not the
    one this process opened gets no row, and the process judges nothing more.
    """
    health = journal_health.of(db)
    if health.lost:
        raise health.mark_lost("")
    written: list[tuple[Pending, Entry]] = []
    try:
        with db.transaction(chain_lock=True) as cur:
            head = journal_health.read_head(db, cur)
            next_id, prev_hash = head.next_id, head.prev_hash
            # The journal's clock never runs backwards (a clock step, another server's clock),
            # so a time range is an id range and the director's filters stay on indexes.
            not_before = head.recorded_at
            for pending in batch:
                try:
                    completed = pending.guard(cur) if pending.guard is not None else None
                except AdjudicatorError as refusal:  # handed back to that row's caller
                    pending.error = refusal
                    continue
                # Anything else (the database failing under a guard's query) fails the batch:
                # handed back as a refusal it would reach the client as an unexplained error.
                now = datetime.now(UTC).isoformat(timespec="microseconds")
                entry = _new_entry(
                    {
                        **pending.fields,
                        **(completed or {}),
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
        journal_health.after_commit(db)  # rows committed to a file gone meanwhile: not shown
    except journal_health.JournalLost:
        raise
    except Exception as failure:
        health.commit_failed(str(failure))
        raise
    newest = written[-1][1] if written else None
    health.committed((newest.id, newest.row_hash) if newest else head.newest)
    for pending, entry in written:  # only once the commit is durable
        pending.entry = entry


def get(db: Database, entry_id: int) -> Entry | None:
    """The journal row with this id, if any (an id no row can have is simply not found)."""
    if not 0 < entry_id <= MAX_ID:  # SQLite cannot even compare a larger integer
        return None
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

    `where` adds SQL conditions (`?` placeholders, values in `params`) to the filters. Every
    id is read, also ids below 1 that no append makes: an export or a verify hides nothing.
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
    tail = f"ORDER BY id LIMIT {int(batch)}"
    first = f"{_SELECT} WHERE {' AND '.join(conditions) or '1 = 1'} {tail}"
    sql = f"{_SELECT} WHERE {' AND '.join(['id > ?', *conditions])} {tail}"
    with db.transaction() as cur:
        rows = cur.execute(first, params).tuples()
    while rows:
        yield rows
        with db.transaction() as cur:
            rows = cur.execute(sql, (rows[-1][0], *params)).tuples()


@dataclass(frozen=True)
class VerifyResult:
    rows: int
    first_bad_id: int | None = None
    problem: str = ""
    last_hash: str = ""

    @property
    def ok(self) -> bool:
        return self.first_bad_id is None


def verify(db: Database, witnessed: Iterable[tuple[int, str]] = ()) -> VerifyResult:
    """Walk the chain in id order, in batches; the first row whose hash, link, number or stored
    form is wrong ends the walk. Rows are checked as read, so memory stays constant.

    `witnessed` holds (row id, hash or its first digits) pairs from checkpoints: each row must
    still be there with that hash, so rows rewritten or cut off the end are found too.
    """
    wanted: dict[int, list[str]] = {}
    for row_id, row_hash in witnessed:
        wanted.setdefault(row_id, []).append(row_hash.lower())
    expected_prev, expected_id, count = GENESIS, 1, 0
    for rows in batches(db):
        for row in rows:
            entry_id, prev_hash, row_hash = row[0], row[_PREV], row[_ROW_HASH]
            words = _canonical_words(row)
            if words is None:
                return VerifyResult(
                    count, entry_id, f"row {entry_id} holds a value not in its canonical form"
                )
            if entry_id != expected_id:
                problem = (
                    f"row {entry_id} lies outside the chain (its ids run 1, 2, 3, ...)"
                    if entry_id < expected_id
                    else f"row {expected_id} is missing before row {entry_id}"
                )
                return VerifyResult(count, entry_id, problem)
            if prev_hash != expected_prev:
                return VerifyResult(
                    count, entry_id, f"row {entry_id} does not link to row {entry_id - 1}"
                )
            values = list(row)
            values[_WORDS] = words
            if hash_values(values) != row_hash:
                return VerifyResult(
                    count, entry_id, f"row {entry_id} was altered after it was recorded"
                )
            if wanted and any(not row_hash.startswith(h) for h in wanted.pop(entry_id, ())):
                return VerifyResult(
                    count, entry_id, f"row {entry_id} differs from the one a checkpoint witnessed"
                )
            expected_prev, expected_id, count = row_hash, entry_id + 1, count + 1
    if wanted:
        missing = min(wanted)
        return VerifyResult(
            count,
            missing,
            f"row {missing}, witnessed by a checkpoint, is missing: the journal ends at row "
            f"{count} (rows were cut off the end)",
        )
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


def from_row(row: dict[str, Any]) -> Entry:
    """An Entry from a row of `SELECT * FROM adjudications` (columns by name)."""
    return from_values(tuple(row[column] for column in _COLUMNS))


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


def _canonical_words(row: tuple) -> list[str] | None:
    """A stored row's words if every stored value is exactly what an append writes, else None.

    '196601 ' for 196601, 196601.0, 'QI  ZA' for 'QI ZA': each reads back as the same entry
    and hashes alike, so only the stored form itself can tell.
    """
    words = row[_WORDS]
    if type(words) is not str or any(type(row[index]) is not int for index in _INTEGERS):
        return None
    split = words.split()
    return split if " ".join(split) == words else None


def from_values(row: tuple) -> Entry:
    """An Entry from a stored row's values in FIELDS order."""
    values = list(row)
    values[_WORDS] = tuple(values[_WORDS].split())
    for index in _INTEGERS:
        values[index] = int(values[index])
    return _make_entry(values)
