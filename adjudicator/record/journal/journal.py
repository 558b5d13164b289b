"""The journal: every adjudication, append-only, each row chained to the one before by a hash.

A row is committed durably before its verdict is shown to anyone. `verify` recomputes the
chain and names the first row that was edited, inserted or removed. No row holds per-word
validity: only the words as challenged and the one verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.record.database import journal_health
from adjudicator.record.database.db import Database
from adjudicator.record.database.journal_health import GENESIS as GENESIS
from adjudicator.record.journal import (
    chain_walk,
    closings,
    hall_beat,
    journal_holds,
    rollbacks,
    row_keys,
    tallies,
    writer,
)
from adjudicator.record.journal.journal_entry import (
    FIELDS as FIELDS,  # the journal's API: re-exported
)
from adjudicator.record.journal.journal_entry import (
    INSERT_KEYED,
    SELECT,
    new_entry,
    stored_values,
)
from adjudicator.record.journal.journal_entry import Entry as Entry
from adjudicator.record.journal.journal_entry import from_row as from_row
from adjudicator.record.journal.journal_entry import from_values as from_values

MAX_ID = 2**63 - 1  # the largest id a database integer holds
# A revocation undoes a void given on the wrong row (its details name the void it revokes); a
# waiver is the director's free challenge: the penalty waived, the verdict left as decided. A
# free-challenge row grants a player one for a later challenge (NSA VI.C); placement and
# exchange rows are the challenges the director decides (WESPA 3.10.16-17): no words, no lexicon.
KINDS = (
    "challenge",
    "second-opinion",
    "ruling",
    "void",
    "revocation",
    "waiver",
    "free-challenge",
    "placement",
    "exchange",
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
    despite_rollback: bool = False  # only the rows that record an accepted loss (lost_rows)


def append(
    db: Database,
    *,
    guard: Callable[[Any], dict[str, Any] | None] | None = None,
    despite_rollback: bool = False,
    **fields: Any,
) -> Entry:
    """Record one adjudication durably and return it with its id, time and hash.

    `guard(cursor)` runs first under the chain lock and may raise an AdjudicatorError to refuse
    the write, or return fields to complete the row with.
    """
    pending = Pending(fields, guard, despite_rollback=despite_rollback)
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
    if not all(pending.despite_rollback for pending in batch):
        journal_holds.check_here(db)  # a command where a start would hold: it judges nothing
    keys = row_keys.of(db)
    install = writer.row_install()  # each row names the laptop that wrote it
    written: list[tuple[Pending, Entry]] = []
    try:
        with db.transaction(chain_lock=True) as cur:
            head = journal_health.read_head(db, cur)
            if not all(pending.despite_rollback for pending in batch):
                rollbacks.check_in_append(cur, head.newest)  # never reuse a receipt's number
                journal_holds.check_in_append(cur)  # the stick may serve another laptop
                hall_beat.check_in_append()  # paused: another laptop may have taken over
            journal_id = str(health.journal_id)
            secret = keys.prepare(cur, journal_id, head.next_id)

            def stored(entry: Entry) -> tuple:
                keyed = row_keys.keyed_hash(secret, journal_id, entry.id, entry.row_hash)
                return (*stored_values(entry), keyed)

            next_id, prev_hash = head.next_id, head.prev_hash
            # The journal's clock never runs backwards (a clock step, another server's clock),
            # so a time range is an id range and the director's filters stay on indexes.
            not_before = head.recorded_at
            closed: dict[str, closings.Statement | None] = {}  # each tournament's, read once
            for pending in batch:
                try:
                    if not pending.despite_rollback:  # an event closed judges nothing new
                        closings.refuse_if_closed(
                            cur, pending.fields, keys.public_key, journal_id, closed
                        )
                    completed = pending.guard(cur) if pending.guard is not None else None
                except AdjudicatorError as refusal:  # handed back to that row's caller
                    pending.error = refusal
                    continue
                # Anything else (the database failing under a guard's query) fails the batch:
                # handed back as a refusal it would reach the client as an unexplained error.
                now = datetime.now(UTC).isoformat(timespec="microseconds")
                entry = new_entry(
                    {
                        **pending.fields,
                        **(completed or {}),
                        "id": next_id,
                        "recorded_at": max(now, not_before),
                        "prev_hash": prev_hash,
                        "install": install,
                    }
                )
                if pending.guard is not None:  # later guards in the batch must see this row
                    cur.execute(INSERT_KEYED, stored(entry))
                written.append((pending, entry))
                next_id, prev_hash, not_before = entry.id + 1, entry.row_hash, entry.recorded_at
            unguarded = [stored(e) for p, e in written if p.guard is None]
            if len(unguarded) == 1:
                cur.execute(INSERT_KEYED, unguarded[0])
            elif unguarded:
                cur.executemany(INSERT_KEYED, unguarded)
            tallies.record(cur, [entry for _, entry in written])
        journal_health.after_commit(db)  # rows committed to a file gone meanwhile: not shown
        keys.committed()
    except (
        journal_health.JournalLost,
        rollbacks.JournalRolledBack,
        journal_holds.JournalHeld,
        hall_beat.HallPaused,
    ):
        raise
    except Exception as failure:
        health.commit_failed(str(failure))
        raise
    newest = written[-1][1] if written else None
    health.committed((newest.id, newest.row_hash) if newest else head.newest)
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
    found = select(db, "id = ?", (entry_id,))
    return found[0] if found else None


def select(db: Database, where: str, params: tuple = (), tail: str = "") -> list[Entry]:
    """The rows matching an SQL condition (`?` placeholders), `tail` being ORDER BY/LIMIT."""
    with db.transaction() as cur:
        rows = cur.execute(f"{SELECT} WHERE {where} {tail}", params).tuples()
    return [from_values(row) for row in rows]


def follow_ups(db: Database, original_id: int) -> list[Entry]:
    """Every row that refers to `original_id` (second opinions, rulings), in id order."""
    return select(db, "refers_to = ?", (original_id,), "ORDER BY id")


def follow_ups_of(cur: Any, ids: Sequence[int]) -> dict[int, list[Entry]]:
    """Every row referring to one of `ids`, by the id it refers to (one indexed query, inside
    the caller's transaction)."""
    found: dict[int, list[Entry]] = {entry_id: [] for entry_id in ids}
    if not ids:
        return found
    marks = ", ".join("?" for _ in ids)
    rows = cur.execute(f"{SELECT} WHERE refers_to IN ({marks}) ORDER BY id", tuple(ids)).tuples()
    for row in rows:
        entry = from_values(row)
        found[entry.refers_to].append(entry)
    return found


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
    return chain_walk.read_batches(db, SELECT, conditions, params, batch)


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
    wanted: chain_walk.Witnessed = {}
    for row_id, row_hash in witnessed:
        wanted.setdefault(row_id, []).append((row_hash.lower(), "a checkpoint"))
    found = chain_walk.walk(db, wanted)
    if found.bad_id is not None:
        return VerifyResult(found.rows, found.bad_id, found.problem)
    if found.contradicted is not None:
        row_id = found.contradicted[0]
        return VerifyResult(
            found.rows, row_id, f"row {row_id} differs from the one a checkpoint witnessed"
        )
    if found.beyond:
        missing = min(found.beyond)
        return VerifyResult(
            found.rows,
            missing,
            f"row {missing}, witnessed by a checkpoint, is missing: the journal ends at row "
            f"{found.rows} (rows were cut off the end)",
        )
    return VerifyResult(found.rows, last_hash=found.last_hash)


def recent_counts(
    cur: Any, kiosk: str, at_most: int, since: str, table: str | None = None
) -> tuple[int, int]:
    """How many of a kiosk's newest `at_most` challenges (inside a transaction, read by index)
    were made at or after the ISO time `since`: in all, and naming `table` (0 for None)."""
    row = cur.execute(
        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN table_no = ? THEN 1 ELSE 0 END), 0) FROM ("
        "SELECT recorded_at, table_no FROM adjudications WHERE kiosk = ? AND kind = 'challenge' "
        f"ORDER BY id DESC LIMIT {int(at_most)}) AS newest WHERE recorded_at >= ?",
        (table, kiosk, since),
    ).tuples()
    return int(row[0][0]), int(row[0][1])


def count_since(cur: Any, kiosk: str, since: str, at_most: int) -> int:
    """How many challenges a kiosk made at or after the ISO time `since`, counting no further
    than `at_most` (inside a transaction): its newest `at_most` challenges, read by index."""
    return recent_counts(cur, kiosk, at_most, since)[0]
