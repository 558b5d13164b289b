"""The one walk over a journal's chain, in id order, in batches, in constant memory.

Each row is checked as read: its stored form, its number (1, 2, 3, ...), its link to the row
before and its hash (the first failure ends the walk: the chain is broken there). Two more
checks ride along, for what signed statements say of the rows (fork_check.py):
- from the first keyed row on, each row's keyed hash (row_keys.py), when the secret is at hand;
- the rows witnesses name (a checkpoint, a receipt, the high-water mark): each must hold the
  witnessed hash, or its first digits. The first that differs ends the walk.
A row a witness or its own valid keyed hash proves is *agreed*, and so is every row before it
(the hash chains them). A keyed row whose keyed hash is missing or wrong is *unkeyed*; one
agreed row after it lifts that (its keyed hash alone was damaged), so only an unkeyed row after
the last agreed one stays a contradiction.

So when the last row the chain verifies to holds a valid keyed hash and no witness differs,
every keyed row before it is agreed whatever its own keyed hash says: the walk then checks
that one keyed hash, not each row's (the same finding, without a MAC a row). Any other outcome
is walked again with every row's keyed hash, to say where the copy parts. A chain walked
already (`chained`: the stick's, walked while the passphrase is derived) is reused after a
few look-ups show it is still the copy it walked and every witness agrees.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from adjudicator.record.database.db import Database
from adjudicator.record.database.journal_health import GENESIS
from adjudicator.record.journal import row_keys
from adjudicator.record.journal.journal_entry import (
    FIELDS,
    KEYED_HASH,
    PREV_HASH,
    ROW_HASH,
    SELECT,
    SELECT_KEYED,
    WORDS,
    canonical_words,
    hash_values,
)
from adjudicator.record.journal.rollbacks import LOST_TEXT

_KIND, _CONSEQUENCE = FIELDS.index("kind"), FIELDS.index("consequence")
Witnessed = dict[int, list[tuple[str, str]]]  # row -> [(its hash or first digits, who says so)]


@dataclass(frozen=True)
class Keyed:
    """The keyed hashes to check: of which journal, from which row, with which secret (None:
    the hall's key is not here, so the keyed rows go unchecked)."""

    journal: str
    first: int
    secret: row_keys.RowSecret | None


@dataclass
class Walk:
    """What the walk found (see the module's docstring)."""

    rows: int = 0  # rows 1..rows verified (the chain)
    bad_id: int | None = None  # the row where the chain breaks
    problem: str = ""
    last_hash: str = ""
    agreed_to: int = 0  # the last row a witness or a valid keyed hash proves
    unkeyed: int | None = None  # the first keyed row after agreed_to without a valid keyed hash
    contradicted: tuple[int, str] | None = None  # (row, witness): the first row that differs
    beyond: Witnessed = field(default_factory=dict)  # witnessed rows the walk never reached


@dataclass
class Span:
    """A part of the chain walked on its own (walk_span): the rows after `after` up to `upto`
    (to the end when None). A part after row 0 takes its first row's link as found and keeps it
    in `first_prev`: the part before it must end with that hash."""

    after: int = 0
    upto: int | None = None
    first_prev: str | None = None


class WalkStopped(Exception):
    """The walk was asked to stop (`stop` set) before it ended."""


def walk(
    db: Database,
    witnessed: Witnessed | None = None,
    keyed: Keyed | None = None,
    lost_holds: bool = False,
    chained: Walk | None = None,
    stop: threading.Event | None = None,
) -> Walk:
    """Walk the chain from row 1 (see the module's docstring). With `lost_holds`, a void row
    that records the loss of a witnessed row (`journal accept-loss`) holds it. `chained`: this
    copy's chain walked earlier without witnesses or keys (`walk(db)`). `stop`, once set, ends
    the walk with WalkStopped."""
    found = _still(db, chained, witnessed) if chained is not None else None
    if found is None:
        found = _walk(db, witnessed, None, lost_holds, stop)
    secret = keyed.secret if keyed is not None else None
    if secret is None or keyed is None or found.rows < keyed.first:
        return found
    if found.contradicted is None and _keyed_right(db, keyed, found.rows, found.last_hash):
        found.agreed_to, found.unkeyed = found.rows, None
        return found
    return _walk(db, witnessed, keyed, lost_holds, stop)  # where it parts, row by row


def walk_span(db: Database, span: Span, stop: threading.Event | None = None) -> Walk:
    """The plain walk (no witnesses, no keys) of the rows of `span` only; its first row's link
    is left in `span.first_prev` (split_walk.py joins the parts). A clean part after row 0
    proves its rows chained to that link, not yet to row 1."""
    return _walk(db, None, None, False, stop, span)


def _still(db: Database, chained: Walk, witnessed: Witnessed | None) -> Walk | None:
    """What a walk with `witnessed` would find, from `chained` (a clean chain walked before)
    and a look-up of each witnessed row; None unless the copy still ends at the row `chained`
    ended at, with its hash, and every witness it reaches agrees (the rest is walked)."""
    if chained.bad_id is not None or _newest(db) != (chained.rows, chained.last_hash or None):
        return None
    read = row_reader(db)
    found = Walk(rows=chained.rows, last_hash=chained.last_hash)
    for row, said in sorted((witnessed or {}).items()):
        if row > chained.rows:
            found.beyond[row] = said
            continue
        held = read(row)
        if held is None or not isinstance(held[0], str):
            return None
        if not all(held[0].startswith(digits) for digits, _ in said):
            return None
        found.agreed_to = row
    return found


def _newest(db: Database) -> tuple[int, str | None]:
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT id, row_hash FROM adjudications ORDER BY id DESC LIMIT 1"
        ).tuples()
    return (rows[0][0], rows[0][1]) if rows else (0, None)


def _keyed_right(db: Database, keyed: Keyed, row: int, row_hash: str) -> bool:
    """Whether row `row`, whose hash the chain verified, holds its valid keyed hash."""
    held = row_reader(db)(row)
    return (
        keyed.secret is not None
        and held is not None
        and held[1] == keyed.secret.mac(f"{keyed.journal} {row} {row_hash}".encode())
    )


def row_reader(db: Database) -> Callable[[int], tuple | None]:
    """Reads one row's (hash, keyed hash, kind, consequence), None when the copy has no such
    row: an indexed look-up (the keyed hash NULL in a copy from before keyed rows existed)."""
    keyed = KEYED_HASH if has_keyed_hash(db) else "NULL"
    sql = f"SELECT row_hash, {keyed}, kind, consequence FROM adjudications WHERE id = ?"

    def read(row_id: int) -> tuple | None:
        with db.transaction() as cur:
            found = cur.execute(sql, (row_id,)).tuples()
        return found[0] if found else None

    return read


def _walk(
    db: Database,
    witnessed: Witnessed | None,
    keyed: Keyed | None,
    lost_holds: bool,
    stop: threading.Event | None,
    span: Span | None = None,
) -> Walk:
    """The walk itself: every row read and checked, with its keyed hash when `keyed`; only
    the rows of `span` when given (see walk_span)."""
    wanted = dict(witnessed or {})
    secret = keyed.secret if keyed is not None else None
    first_keyed = keyed.first if secret is not None else 0
    mac = secret.mac if secret is not None else None  # row_keys.keyed_hash, inlined: every row
    journal_id = keyed.journal if keyed is not None else ""
    found = Walk()
    expected_prev, expected_id = GENESIS, 1
    if span is not None and span.after:
        expected_prev, expected_id = None, span.after + 1  # the first row's link: taken
    for rows in _batches(db, secret is not None, span):
        if stop is not None and stop.is_set():
            raise WalkStopped
        for row in rows:
            entry_id, prev_hash, row_hash = row[0], row[PREV_HASH], row[ROW_HASH]
            if expected_prev is None:
                expected_prev = span.first_prev = prev_hash  # type: ignore[union-attr]
            problem = _chain_problem(row, entry_id, expected_id, prev_hash, expected_prev)
            if problem:
                found.bad_id, found.problem = entry_id, problem
                found.beyond = wanted
                return found
            if mac is not None and entry_id >= first_keyed:
                if row[-1] == mac(f"{journal_id} {entry_id} {row_hash}".encode()):  # keyed_hash
                    found.agreed_to, found.unkeyed = entry_id, None
                elif found.unkeyed is None:
                    found.unkeyed = entry_id
            if wanted and entry_id in wanted:
                for digits, source in wanted.pop(entry_id):
                    if row_hash.startswith(digits):
                        found.agreed_to, found.unkeyed = entry_id, None
                    elif not (lost_holds and _lost(row)):
                        found.contradicted = (entry_id, source)
                        found.beyond = wanted
                        return found
            expected_prev, expected_id = row_hash, entry_id + 1
            found.rows = entry_id
    found.last_hash = expected_prev if found.rows else ""
    found.beyond = wanted
    return found


def _chain_problem(
    row: tuple, entry_id: int, expected_id: int, prev_hash: str, expected_prev: str
) -> str:
    """Why this row breaks the chain ('' when it does not)."""
    words = canonical_words(row)
    if words is None:
        return f"row {entry_id} holds a value not in its canonical form"
    if entry_id != expected_id:
        if entry_id < expected_id:
            return f"row {entry_id} lies outside the chain (its ids run 1, 2, 3, ...)"
        return f"row {expected_id} is missing before row {entry_id}"
    if prev_hash != expected_prev:
        return f"row {entry_id} does not link to row {entry_id - 1}"
    values = list(row)  # the hashed fields come first (a keyed hash last is not read)
    values[WORDS] = words
    if hash_values(values) != row[ROW_HASH]:
        return f"row {entry_id} was altered after it was recorded"
    return ""


chain_problem = _chain_problem  # one row checked as the walk checks it (copies/written_after)


def _lost(row: tuple) -> bool:
    return row[_KIND] == "void" and row[_CONSEQUENCE] == LOST_TEXT


def _batches(db: Database, keyed: bool, span: Span | None = None) -> Iterator[list[tuple]]:
    """Every row as stored, in id order (ids below 1 too: a verify hides nothing), with its
    keyed hash last when `keyed` (NULL in a copy from before keyed rows existed); only the
    rows of `span` when given."""
    select = SELECT_KEYED if keyed and has_keyed_hash(db) else SELECT
    if keyed and select == SELECT:
        select = SELECT.replace(" FROM ", ", NULL FROM ", 1)
    conditions: list[str] = []
    params: list[int] = []
    if span is not None and span.after:
        conditions.append("id > ?")
        params.append(span.after)
    if span is not None and span.upto is not None:
        conditions.append("id <= ?")
        params.append(span.upto)
    return read_batches(db, select, conditions, params)


def read_batches(
    db: Database,
    select: str,
    conditions: list[str] | None = None,
    params: list | None = None,
    batch: int = 5000,
) -> Iterator[list[tuple]]:
    """The rows of `select` meeting `conditions` (`?` placeholders, values in `params`), in id
    order, `batch` at a time: one short read transaction per batch (constant memory)."""
    conditions, params = conditions or [], params or []
    tail = f"ORDER BY id LIMIT {int(batch)}"
    first = f"{select} WHERE {' AND '.join(conditions) or '1 = 1'} {tail}"
    sql = f"{select} WHERE {' AND '.join(['id > ?', *conditions])} {tail}"
    with db.transaction() as cur:
        rows = cur.execute(first, params).tuples()
    while rows:
        yield rows
        with db.transaction() as cur:
            rows = cur.execute(sql, (rows[-1][0], *params)).tuples()


def has_keyed_hash(db: Database) -> bool:
    """Whether the journal has the keyed_hash column (schema 16 on)."""
    try:
        with db.transaction() as cur:
            cur.execute(f"{SELECT_KEYED} WHERE 1 = 0")
    except Exception:  # noqa: BLE001 - an older schema: no row of it is keyed
        return False
    return True


def first_unkeyed(
    get: Any, journal_id: str, secret: row_keys.RowSecret, low: int, high: int
) -> int | None:
    """The first row in low+1..high whose keyed hash fails, by bisection (a rewritten chain
    fails from the row it parts on: every later hash changed with it); `get(row)` gives the
    row's (hash, keyed hash). None when row `high` is keyed right."""

    def good(row_id: int) -> bool:
        found = get(row_id)
        return found is not None and found[1] == row_keys.keyed_hash(
            secret, journal_id, row_id, found[0]
        )

    if good(high):
        return None
    while low + 1 < high:
        middle = (low + high) // 2
        if good(middle):
            low = middle
        else:
            high = middle
    return high
