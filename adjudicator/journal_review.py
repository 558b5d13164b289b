"""The director's review of the journal: filters by tournament, kiosk and time, and bursts.

A kiosk is for challenges, not word study: many challenges from one kiosk in a few minutes
are shown to the director as a burst to look into.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from adjudicator import journal, settings
from adjudicator.db import Database
from adjudicator.errors import AdjudicatorError


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
