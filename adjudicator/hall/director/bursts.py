"""Bursts: many challenges from one kiosk in a few minutes, shown to the director to look into
(a kiosk is for challenges, not word study).

Looked for only around the rows a page shows: the challenges from one window before the
oldest to one window after the newest, read walking the index out from them (the journal's
clock never runs backwards), at most MAX_BURST_ROWS of them; then one linear pass per kiosk.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from adjudicator import settings
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal

MAX_BURST_ROWS = 5_000  # challenges read at most to find the bursts around one page
BURST_CHUNK = 500  # challenges read at a time while walking out from the page


@dataclass(frozen=True)
class Burst:
    kiosk: str
    ids: tuple[int, ...]
    first_at: str
    last_at: str

    @property
    def count(self) -> int:
        return len(self.ids)


class Stamp(NamedTuple):
    """What burst detection needs of a row."""

    id: int
    kiosk: str
    recorded_at: str
    kind: str = "challenge"


def around(
    db: Database,
    rows: list[journal.Entry],
    more_than: int | None = None,
    minutes: int | None = None,
    **filters: str | None,
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
        if filters.get(column):
            conditions.append(f"{column} = ?")
            params.append(filters[column])
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
