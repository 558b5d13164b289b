"""Counts and times as people read them: right plurals, and one time form for every locale.

Times are shown and typed as `2024-05-01 14:03` (UTC, 24-hour, year first): no browser's or
country's date format, so a director in any hall reads and types the same thing.
"""

from __future__ import annotations

from datetime import datetime

TIME_FORM = "YYYY-MM-DD HH:MM"
TIME_EXAMPLE = "2024-05-01 14:00"


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """'1 kiosk', '2 kiosks', '1,204 rows' ('second opinion' -> 'second opinions')."""
    word = noun if count == 1 else (plural_noun or noun + "s")
    return f"{count:,} {word}"


def utc_time(iso: str | None, seconds: bool = True) -> str:
    """An ISO time from the journal as '2024-05-01 14:03:22' (UTC); '' for none."""
    if not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    return moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
