"""The director's review of the journal: filters by tournament, kiosk and time, and bursts.

A kiosk is for challenges, not word study: many challenges from one kiosk in a few minutes
are shown to the director as a burst to look into.

Every read here is bounded, whatever the journal's size: a page is one index range read
newest first from an id (keyset pagination), a time filter becomes an id range through the
hourly tallies (the journal's clock never runs backwards), and bursts are looked for only
among the challenges around the rows shown, read walking the index out from them, in one
linear pass.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from adjudicator import journal, settings, tallies
from adjudicator.db import Database
from adjudicator.errors import AdjudicatorError

PAGE_ROWS = 100
MAX_BURST_ROWS = 5_000  # challenges read at most to find the bursts around one page
BURST_CHUNK = 500  # challenges read at a time while walking out from the page


class FilterError(AdjudicatorError):
    """A journal filter (such as a time) cannot be understood."""


@dataclass(frozen=True)
class Burst:
    kiosk: str
    ids: tuple[int, ...]
    first_at: str
    last_at: str

    @property
    def count(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class Filters:
    """What the director filters the journal by (times as from parse_time)."""

    tournament: str | None = None
    kiosk: str | None = None
    kind: str | None = None
    since: str | None = None
    until: str | None = None


@dataclass(frozen=True)
class Page:
    """One screenful, newest first, with the ids that lead to the neighbouring pages."""

    rows: list[journal.Entry]
    newer_after: int | None = None  # ?after=<id> shows the newer rows, if there are any
    older_before: int | None = None  # ?before=<id> shows the older rows, if there are any
    bursts: list[Burst] = field(default_factory=list)
    bursts_capped: bool = False


class Stamp(NamedTuple):
    """What burst detection needs of a row."""

    id: int
    kiosk: str
    recorded_at: str
    kind: str = "challenge"


def parse_time(text: str | None) -> str | None:
    """'2024-05-01T14:00' (UTC, as a datetime-local field sends it) -> a comparable ISO time."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise FilterError(f"{text!r} is not a time: use 2024-05-01T14:00 (UTC).") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def select(
    db: Database,
    *,
    tournament: str | None = None,
    kiosk: str | None = None,
    kind: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> Iterator[journal.Entry]:
    """Journal rows in id order matching every filter given, streamed in batches."""
    yield from map(
        journal.from_values, select_rows(db, Filters(tournament, kiosk, kind, since, until))
    )


def select_rows(db: Database, filters: Filters) -> Iterator[tuple]:
    """The rows of `select` as stored (journal.FIELDS order), for a streamed CSV."""
    where = _where(db, filters)
    if where is None:
        return
    for rows in journal.batches(db, where=tuple(where[0]), params=tuple(where[1])):
        yield from rows


def page(
    db: Database,
    filters: Filters,
    *,
    before: int | None = None,
    after: int | None = None,
    size: int | None = None,
    more_than: int | None = None,
    minutes: int | None = None,
) -> Page:
    """The `size` (default PAGE_ROWS) newest rows matching `filters` (older than `before`, or
    the oldest newer than `after`), and the bursts among the challenges around them."""
    size = size or PAGE_ROWS
    where = _where(db, filters)
    if where is None:
        return Page([])
    conditions, params = where
    sql_where = " AND ".join(conditions) or "1 = 1"
    if after is not None:
        rows = journal.select(
            db, f"{sql_where} AND id > ?", (*params, after), f"ORDER BY id LIMIT {size + 1}"
        )
        has_newer = len(rows) > size
        rows = rows[:size][::-1]
        has_older = bool(rows) and _exists(db, sql_where, params, "id < ?", rows[-1].id)
    else:
        bound = (" AND id < ?", (before,)) if before is not None else ("", ())
        rows = journal.select(
            db,
            sql_where + bound[0],
            (*params, *bound[1]),
            f"ORDER BY id DESC LIMIT {size + 1}",
        )
        has_older = len(rows) > size
        rows = rows[:size]
        has_newer = (
            bool(rows)
            and before is not None
            and _exists(db, sql_where, params, "id > ?", rows[0].id)
        )
    found, capped = bursts_around(db, filters, rows, more_than, minutes)
    return Page(
        rows,
        newer_after=rows[0].id if has_newer else None,
        older_before=rows[-1].id if has_older else None,
        bursts=found,
        bursts_capped=capped,
    )


def bursts_around(
    db: Database,
    filters: Filters,
    rows: list[journal.Entry],
    more_than: int | None = None,
    minutes: int | None = None,
) -> tuple[list[Burst], bool]:
    """Bursts touching the time span of `rows`: the challenges from one window before the
    oldest to one window after the newest (at most MAX_BURST_ROWS), read walking the index
    out from the rows shown, then one pass. Returns the bursts and whether the read was cut."""
    if not rows:
        return [], False
    minutes = settings.get_int("burst_minutes", 1) if minutes is None else minutes
    window = timedelta(minutes=minutes)
    first_at = min(rows[0].recorded_at, rows[-1].recorded_at)
    last_at = max(rows[0].recorded_at, rows[-1].recorded_at)
    newest = max(rows[0].id, rows[-1].id)
    conditions, params = ["kind = 'challenge'"], []
    for column in ("tournament", "kiosk"):
        if getattr(filters, column):
            conditions.append(f"{column} = ?")
            params.append(getattr(filters, column))
    newer, cut_newer = _walk(
        db, conditions, params, newest, ">", _shift(last_at, window), MAX_BURST_ROWS // 2
    )
    older, cut_older = _walk(
        db,
        conditions,
        params,
        newest + 1,
        "<",
        _shift(first_at, -window),
        MAX_BURST_ROWS - len(newer),
    )
    found = find_bursts([*reversed(older), *newer], more_than, minutes)
    capped = cut_newer or cut_older
    return [b for b in found if b.last_at >= first_at and b.first_at <= last_at], capped


def _walk(
    db: Database,
    conditions: list[str],
    params: list,
    start: int,
    direction: str,
    bound: str,
    budget: int,
) -> tuple[list[Stamp], bool]:
    """Challenges from id `start` on in `direction` ("<" older, ">" newer), read in chunks
    along the index until their time passes `bound` (the clock never runs backwards); at most
    `budget` of them. Returns them and whether the budget ran out first."""
    order = "DESC" if direction == "<" else "ASC"
    sql = (
        f"SELECT id, kiosk, recorded_at FROM adjudications WHERE {' AND '.join(conditions)} "
        f"AND id {direction} ? ORDER BY id {order} LIMIT ?"
    )
    found: list[Stamp] = []
    while len(found) < budget:
        chunk = min(BURST_CHUNK, budget - len(found))
        with db.transaction() as cur:
            rows = cur.execute(sql, (*params, start, chunk)).tuples()
        older = direction == "<"
        inside = [Stamp(*row) for row in rows if (row[2] >= bound if older else row[2] <= bound)]
        found += inside
        if len(inside) < len(rows) or len(rows) < chunk:
            return found, False
        start = rows[-1][0]
    return found, True


def find_bursts(
    entries: Iterable[journal.Entry | Stamp],
    more_than: int | None = None,
    minutes: int | None = None,
) -> list[Burst]:
    """Runs of more than `more_than` challenges from one kiosk within `minutes` minutes.

    One sliding window per kiosk, each row marked at most once: linear in the rows given.
    """
    more_than = settings.get_int("burst_challenges", 1) if more_than is None else more_than
    minutes = settings.get_int("burst_minutes", 1) if minutes is None else minutes
    window = timedelta(minutes=minutes)
    by_kiosk: dict[str, list[journal.Entry | Stamp]] = defaultdict(list)
    for entry in entries:
        if entry.kind == "challenge":
            by_kiosk[entry.kiosk].append(entry)
    bursts = []
    for kiosk, rows in by_kiosk.items():
        rows.sort(key=lambda e: e.recorded_at)  # already in order: a linear check
        times = [datetime.fromisoformat(e.recorded_at) for e in rows]
        marked = [False] * len(rows)
        start, marked_to = 0, 0  # rows before marked_to are decided
        for end in range(len(rows)):
            while times[end] - times[start] > window:
                start += 1
            if end - start + 1 > more_than:
                for index in range(max(start, marked_to), end + 1):
                    marked[index] = True
                marked_to = end + 1
        bursts.extend(_runs(kiosk, rows, marked))
    return sorted(bursts, key=lambda b: b.first_at)


def _where(db: Database, filters: Filters) -> tuple[list[str], list] | None:
    """SQL conditions for `filters`, each answered by an index; None when nothing can match."""
    conditions: list[str] = []
    params: list = []
    for column in ("tournament", "kiosk", "kind"):
        value = getattr(filters, column)
        if value:
            conditions.append(f"{column} = ?")
            params.append(value)
    if filters.kind and filters.kind != "challenge":
        conditions.append("kind <> 'challenge'")  # as the partial index says: it is then used
    if filters.since:
        first = _id_at(db, ">=", filters.since)
        if first is None:
            return None
        conditions += ["id >= ?", "recorded_at >= ?"]
        params += [first, filters.since]
    if filters.until:
        last = _id_at(db, "<=", filters.until)
        if last is None:
            return None
        conditions += ["id <= ?", "recorded_at <= ?"]
        params += [last, filters.until]
    return conditions, params


def _id_at(db: Database, comparison: str, moment: str) -> int | None:
    """An id bound for a time, from the hourly tallies: the first id of the first hour at or
    after `moment`'s hour (">="), or the last id of the last hour at or before it ("<=").
    The bound is at most an hour wide; the recorded_at condition beside it is exact."""
    hour = tallies.hour_of(moment)
    if comparison == ">=":
        sql = (
            "SELECT MIN(first_id) AS id FROM journal_tallies WHERE hour = "
            "(SELECT MIN(hour) FROM journal_tallies WHERE hour >= ?)"
        )
    else:
        sql = (
            "SELECT MAX(last_id) AS id FROM journal_tallies WHERE hour = "
            "(SELECT MAX(hour) FROM journal_tallies WHERE hour <= ?)"
        )
    row = db.query_one(sql, (hour,))
    return int(row["id"]) if row and row["id"] is not None else None


def _exists(db: Database, where: str, params: list, bound: str, value: int) -> bool:
    """Whether a matching row lies beyond `value` (`bound` is "id < ?" or "id > ?"): the
    nearest one, found walking the index from `value`, never a scan."""
    order = "DESC" if "<" in bound else "ASC"
    with db.transaction() as cur:
        row = cur.execute(
            f"SELECT id FROM adjudications WHERE {where} AND {bound} ORDER BY id {order} LIMIT 1",
            (*params, value),
        ).one()
    return row is not None


def _shift(moment: str, delta: timedelta) -> str:
    return (datetime.fromisoformat(moment) + delta).isoformat(timespec="microseconds")


def _runs(kiosk: str, rows: list, marked: list[bool]) -> list[Burst]:
    runs, current = [], []
    for entry, flag in zip(rows, marked, strict=True):
        if flag:
            current.append(entry)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return [
        Burst(kiosk, tuple(e.id for e in run), run[0].recorded_at, run[-1].recorded_at)
        for run in runs
    ]
