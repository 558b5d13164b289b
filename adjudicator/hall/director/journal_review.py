"""The director's review of the journal: pages, newest first, filtered by tournament, kiosk,
kind, time, TSH player, round and table, with the bursts around the rows shown.

Every read here is bounded, whatever the journal's size: a page is one index range read
newest first from an id (keyset pagination), a time filter becomes an id range through the
hourly tallies (the journal's clock never runs backwards), a player becomes the few linked games
they sat at (one index seek each; a round and a table then narrow them: what a tile of the hall
map opens), and bursts (bursts.py) are looked for only among the
challenges around the rows shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from adjudicator import wording
from adjudicator.errors import AdjudicatorError
from adjudicator.hall.director import bursts
from adjudicator.hall.director.bursts import Burst
from adjudicator.hall.tsh import games as tsh_games
from adjudicator.judging.game import canonical
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal, tallies

PAGE_ROWS = 100
# A date, a date and time to the minute, or to the second: the forms the journal page takes.
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:(?:(?P<minute>\d{2})|\d{2}:(?P<second>\d{2})))?")


class FilterError(AdjudicatorError):
    """A journal filter (such as a time) cannot be understood."""


@dataclass(frozen=True)
class Filters:
    """What the director filters the journal by (times as from parse_time)."""

    tournament: str | None = None
    kiosk: str | None = None
    kind: str | None = None
    since: str | None = None
    until: str | None = None
    player: str | None = None  # a TSH player's name: the rows of the linked games they sat at
    round: str | None = None  # as a challenge records it: '07' is round 7
    table: str | None = None


@dataclass(frozen=True)
class Page:
    """One screenful, newest first, with the ids that lead to the neighbouring pages."""

    rows: list[journal.Entry]
    newer_after: int | None = None  # ?after=<id> shows the newer rows, if there are any
    older_before: int | None = None  # ?before=<id> shows the older rows, if there are any
    bursts: list[Burst] = field(default_factory=list)
    bursts_capped: bool = False


def parse_time(text: str | None, end: bool = False) -> str | None:
    """'2024-05-01 14:00' or '2024-05-01' (UTC) -> a comparable ISO time, or None if empty.

    With `end`, the time is the last moment of what was typed: '2024-05-01' is the whole day
    and '14:00' the whole minute, so a range "from 14:00 to 14:00" is that minute.
    """
    text = (text or "").strip()
    if not text:
        return None
    match = _TIME.fullmatch(text)
    try:
        if match:
            moment = datetime.fromisoformat(text.replace(" ", "T"))
        else:  # a full ISO time, with its offset, as a link may carry
            moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is None:
        raise FilterError(
            f"{text!r} is not a time: type it as {wording.TIME_FORM} (UTC, 24-hour), "
            f"such as {wording.TIME_EXAMPLE}, or a date alone."
        )
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if end and match:
        step = {None: timedelta(days=1), "minute": timedelta(minutes=1)}.get(
            match.lastgroup, timedelta(seconds=1)
        )
        moment += step - timedelta(microseconds=1)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def select(db: Database, **filters: str | None) -> Iterator[journal.Entry]:
    """Journal rows in id order matching every filter given (the fields of Filters, by name),
    streamed in batches."""
    for rows in select_batches(db, Filters(**filters)):
        yield from map(journal.from_values, rows)


def select_batches(db: Database, filters: Filters) -> Iterator[list[tuple]]:
    """The rows of `select` as stored (journal.FIELDS order), a batch at a time (a CSV)."""
    where = _where(db, filters)
    if where is None:
        return
    yield from journal.batches(db, where=tuple(where[0]), params=tuple(where[1]))


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
    found, capped = bursts.around(
        db, rows, more_than, minutes, tournament=filters.tournament, kiosk=filters.kiosk
    )
    return Page(
        rows,
        newer_after=rows[0].id if has_newer else None,
        older_before=rows[-1].id if has_older else None,
        bursts=found,
        bursts_capped=capped,
    )


def _where(db: Database, filters: Filters) -> tuple[list[str], list] | None:
    """SQL conditions for `filters`, each answered by an index; None when nothing can match."""
    conditions: list[str] = []
    params: list = []
    for column in ("tournament", "kiosk", "kind"):
        value = getattr(filters, column)
        if value:
            conditions.append(f"{column} = ?")
            params.append(value)
    for column, value in (("round_no", filters.round), ("table_no", filters.table)):
        if value and value.strip():
            conditions.append(f"{column} = ?")
            params.append(canonical(value))
    if filters.player:
        games = tsh_games.games_of_player(db, filters.player, filters.tournament)
        if not games:
            return None
        conditions.append(f"players IN ({', '.join('?' for _ in games)})")
        params += games
    if filters.kind and filters.kind != "challenge":
        conditions.append("kind <> 'challenge'")  # as the partial index says: it is then used
    for moment, comparison in ((filters.since, ">="), (filters.until, "<=")):
        if moment:
            bound = _id_at(db, comparison, moment)
            if bound is None:
                return None
            conditions += [f"id {comparison} ?", f"recorded_at {comparison} ?"]
            params += [bound, moment]
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
