"""The journal: every adjudication, append-only, each row chained to the one before by a hash.

A row is committed durably before its verdict is shown to anyone. `verify` recomputes the
chain and names the first row that was edited, inserted or removed. No row holds per-word
validity: only the words as challenged and the one verdict.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from adjudicator import journal_health
from adjudicator.db import Database
from adjudicator.errors import AdjudicatorError
from adjudicator.journal_health import GENESIS

MAX_ID = 2**63 - 1  # the largest id a database integer holds
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
        fields = {name: getattr(self, name) for name in _HASHED_FIELDS}
        for name in _LATER_FIELDS:
            if fields[name] is None:
                del fields[name]
        fields["words"] = list(self.words)
        canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


FIELDS = tuple(Entry.__dataclass_fields__)  # also the columns of `journal export --format csv`
_HASHED_FIELDS = tuple(name for name in FIELDS if name != "row_hash")
_LATER_FIELDS = ("penalty", "flag")  # schema version 6
_RENAMED = {"table": "table_no", "round": "round_no"}  # TABLE and ROUND are SQL keywords
_COLUMNS = tuple(_RENAMED.get(name, name) for name in FIELDS)
_INSERT = (
    f"INSERT INTO adjudications ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})"
)


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
            next_id, prev_hash = journal_health.read_head(db, cur)
            head = (next_id - 1, prev_hash) if next_id > 1 else None
            for pending in batch:
                try:
                    completed = pending.guard(cur) if pending.guard is not None else None
                except AdjudicatorError as refusal:  # handed back to that row's caller
                    pending.error = refusal
                    continue
                # Anything else (the database failing under a guard's query) fails the batch:
                # handed back as a refusal it would reach the client as an unexplained error.
                entry = _with_hash(
                    Entry(
                        id=next_id,
                        recorded_at=datetime.now(UTC).isoformat(timespec="microseconds"),
                        prev_hash=prev_hash,
                        **{**pending.fields, **(completed or {})},
                    )
                )
                if pending.guard is not None:  # later guards in the batch must see this row
                    cur.execute(_INSERT, _row_values(entry))
                written.append((pending, entry))
                next_id, prev_hash = entry.id + 1, entry.row_hash
            unguarded = [_row_values(e) for p, e in written if p.guard is None]
            if unguarded:
                cur.executemany(_INSERT, unguarded)
        journal_health.after_commit(db)  # rows committed to a file gone meanwhile: not shown
    except journal_health.JournalLost:
        raise
    except Exception as failure:
        health.commit_failed(str(failure))
        raise
    health.committed((written[-1][1].id, written[-1][1].row_hash) if written else head)
    for pending, entry in written:  # only once the commit is durable
        pending.entry = entry


def parse_id(text: str | None) -> int | None:
    """An adjudication id as a person types it ('12' or '#12'), or None if it is not one.

    ASCII digits only ('²' and '٣' are digits to Python, not to a person typing an id). A
    number beyond any row (MAX_ID) is still a number: looking it up finds nothing."""
    raw = (text or "").strip().lstrip("#")
    if not raw.isascii() or not raw.isdigit() or len(raw) > 40:
        return None
    value = int(raw)
    return value if value >= 1 else None


def get(db: Database, entry_id: int) -> Entry | None:
    """The journal row with this id, if any (an id no row can have is simply not found)."""
    if not 0 < entry_id <= MAX_ID:  # SQLite cannot even compare a larger integer
        return None
    with db.transaction() as cur:
        row = cur.execute("SELECT * FROM adjudications WHERE id = ?", (entry_id,)).one()
    return _from_row(row) if row else None


def entries(
    db: Database, tournament: str | None = None, batch: int = 5000, **filters: Any
) -> Iterator[Entry]:
    """Every row in id order (optionally of one tournament, kiosk or kind), read in batches."""
    for row in _rows(db, tournament, batch, **filters):
        yield _from_row(row)


def _rows(
    db: Database, tournament: str | None = None, batch: int = 5000, **filters: Any
) -> Iterator[dict[str, Any]]:
    """The stored rows as the database gives them, in id order, read in batches.

    Every id is read, also ids below 1 that no append makes: an export hides nothing.
    """
    conditions, params = [], []
    if tournament:
        filters["tournament"] = tournament
    for column in ("tournament", "kiosk", "kind"):
        if filters.get(column):
            conditions.append(f"{column} = ?")
            params.append(filters[column])
    after: int | None = None
    while True:
        bounds = ["id > ?"] if after is not None else []
        where = " AND ".join([*bounds, *conditions]) or "1 = 1"
        with db.transaction() as cur:
            rows = cur.execute(
                f"SELECT * FROM adjudications WHERE {where} ORDER BY id LIMIT {int(batch)}",
                (*([after] if after is not None else []), *params),
            ).all()
        if not rows:
            return
        yield from rows
        after = rows[-1]["id"]


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
    """Walk the chain; the first row whose hash, link, number or stored form is wrong ends it.

    `witnessed` holds (row id, hash or its first digits) pairs from checkpoints: each row must
    still be there with that hash, so rows rewritten or cut off the end are found too.
    """
    wanted: dict[int, list[str]] = {}
    for row_id, row_hash in witnessed:
        wanted.setdefault(row_id, []).append(row_hash.lower())
    expected_prev, expected_id, count = GENESIS, 1, 0
    for row in _rows(db):
        entry = _canonical_entry(row)
        row_id = row["id"]
        if entry is None:
            return VerifyResult(
                count, row_id, f"row {row_id} holds a value not in its canonical form"
            )
        if entry.id != expected_id:
            problem = (
                f"row {entry.id} lies outside the chain (its ids run 1, 2, 3, ...)"
                if entry.id < expected_id
                else f"row {expected_id} is missing before row {entry.id}"
            )
            return VerifyResult(count, entry.id, problem)
        if entry.prev_hash != expected_prev:
            return VerifyResult(
                count, entry.id, f"row {entry.id} does not link to row {entry.id - 1}"
            )
        if entry.compute_hash() != entry.row_hash:
            return VerifyResult(
                count, entry.id, f"row {entry.id} was altered after it was recorded"
            )
        if any(not entry.row_hash.startswith(h) for h in wanted.pop(entry.id, ())):
            return VerifyResult(
                count, entry.id, f"row {entry.id} differs from the one a checkpoint witnessed"
            )
        expected_prev, expected_id, count = entry.row_hash, entry.id + 1, count + 1
    if wanted:
        missing = min(wanted)
        return VerifyResult(
            count,
            missing,
            f"row {missing}, witnessed by a checkpoint, is missing: the journal ends at row "
            f"{count} (rows were cut off the end)",
        )
    return VerifyResult(count, last_hash=expected_prev if count else "")


def count_since(cur: Any, kiosk: str, since: str) -> int:
    """How many challenges a kiosk made at or after the ISO time `since` (inside a transaction)."""
    row = cur.execute(
        "SELECT COUNT(*) AS n FROM adjudications WHERE kiosk = ? AND recorded_at >= ? "
        "AND kind = 'challenge'",
        (kiosk, since),
    ).one()
    return int(row["n"]) if row else 0


def from_row(row: dict[str, Any]) -> Entry:
    """An Entry from a row of `SELECT * FROM adjudications`."""
    return _from_row(row)


def _with_hash(entry: Entry) -> Entry:
    return replace(entry, row_hash=entry.compute_hash())


def _row_values(entry: Entry) -> tuple:
    return tuple(
        " ".join(entry.words) if name == "words" else getattr(entry, name) for name in FIELDS
    )


def _canonical_entry(row: dict[str, Any]) -> Entry | None:
    """The row as an Entry if every stored value is exactly what an append writes, else None.

    '196601 ' for 196601, 196601.0, 'QI  ZA' for 'QI ZA': each reads back as the same entry
    and hashes alike, so only the stored form itself can tell.
    """
    try:
        entry = _from_row(row)
        canonical = _row_values(entry)
    except (TypeError, ValueError, AttributeError):
        return None
    stored = tuple(row[_RENAMED.get(name, name)] for name in FIELDS)
    same = all(
        type(have) is type(want) and have == want
        for have, want in zip(stored, canonical, strict=True)
    )
    return entry if same else None


def _from_row(row: dict[str, Any]) -> Entry:
    values = {name: row[_RENAMED.get(name, name)] for name in FIELDS}
    values["words"] = tuple(values["words"].split())
    for name in ("id", "lexicon_words", "word_count"):
        values[name] = int(values[name])
    return Entry(**values)
