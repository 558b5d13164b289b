"""The director's review of the journal: filters by tournament, kiosk and time, and bursts.

A kiosk is for challenges, not word study: many challenges from one kiosk in a few minutes
are shown to the director as a burst to look into.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from adjudicator import journal, settings, wording
from adjudicator.db import Database
from adjudicator.errors import AdjudicatorError

# A date, a date and time to the minute, or to the second: the forms the journal page takes.
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:(?:(?P<minute>\d{2})|\d{2}:(?P<second>\d{2})))?")


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


def select(
    db: Database,
    *,
    tournament: str | None = None,
    kiosk: str | None = None,
    kind: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> Iterator[journal.Entry]:
    """Journal rows in id order matching every filter given (times as from parse_time)."""
    for entry in journal.entries(db, tournament or None, kiosk=kiosk or None, kind=kind or None):
        if since and entry.recorded_at < since:
            continue
        if until and entry.recorded_at > until:
            continue
        yield entry


def find_bursts(
    entries: Iterable[journal.Entry], more_than: int | None = None, minutes: int | None = None
) -> list[Burst]:
    """Runs of more than `more_than` challenges from one kiosk within `minutes` minutes."""
    more_than = settings.get_int("burst_challenges", 1) if more_than is None else more_than
    minutes = settings.get_int("burst_minutes", 1) if minutes is None else minutes
    window = timedelta(minutes=minutes)
    by_kiosk: dict[str, list[journal.Entry]] = defaultdict(list)
    for entry in entries:
        if entry.kind == "challenge":
            by_kiosk[entry.kiosk].append(entry)
    bursts = []
    for kiosk, rows in by_kiosk.items():
        rows.sort(key=lambda e: e.recorded_at)
        times = [datetime.fromisoformat(e.recorded_at) for e in rows]
        marked = [False] * len(rows)
        start = 0
        for end in range(len(rows)):
            while times[end] - times[start] > window:
                start += 1
            if end - start + 1 > more_than:
                for index in range(start, end + 1):
                    marked[index] = True
        bursts.extend(_runs(kiosk, rows, marked))
    return sorted(bursts, key=lambda b: b.first_at)


def _runs(kiosk: str, rows: list[journal.Entry], marked: list[bool]) -> list[Burst]:
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
