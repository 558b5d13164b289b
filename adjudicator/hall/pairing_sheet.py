"""A printed pairing sheet: a kiosk per table, each with a one-time code that expires.

`tables("1-20")` reads the table numbers; `enrol_tables` enrols kiosk "SLUG table N" for each
(or gives the table's existing kiosk a new code, which replaces its old one) and returns what
the sheet prints (adjudicator/hall/sheet_page.py). A sheet's codes expire `valid_hours` after
printing (DEFAULT_HOURS, at most MAX_HOURS): a card lost or kept is dead by then. Printing a
sheet again replaces every code on the sheet before: that is how a lost sheet is revoked (or
revoke or move the kiosk).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import kiosks, tournaments
from adjudicator.record.database.db import Database

MAX_TABLE = kiosks.MAX_TABLE
MAX_TABLES = 200
DEFAULT_HOURS = 72  # printed on Friday, still good on Sunday
MAX_HOURS = 24 * 30  # a month: longer, and a card is as good as a code that never expires
_RANGE = re.compile(r"\s*(\d{1,4})\s*(?:-\s*(\d{1,4})\s*)?")


class SheetError(AdjudicatorError):
    """A pairing sheet cannot be made as asked (bad table numbers, a revoked table's kiosk)."""


@dataclass(frozen=True)
class SheetTable:
    number: int
    kiosk: str
    pairing_code: str
    link: str
    new: bool  # enrolled for this sheet, rather than the table's kiosk given a new code
    expires_at: str  # ISO time, UTC; the card prints it in the hall's local time


def valid_hours(value: int | str | None) -> int:
    """How long a sheet's codes last, in whole hours from 1 to MAX_HOURS (a form's text
    too; empty means DEFAULT_HOURS); SheetError otherwise."""
    text = str(value).strip() if value is not None else ""
    if not text:
        return DEFAULT_HOURS
    if not re.fullmatch(r"[+-]?\d{1,12}", text) or not 1 <= int(text) <= MAX_HOURS:
        raise SheetError(
            f"Invalid hours {text!r}: a sheet's codes last from 1 to {MAX_HOURS} whole hours "
            f"({MAX_HOURS // 24} days), such as {DEFAULT_HOURS}."
        )
    return int(text)


def tables(text: str) -> list[int]:
    """Table numbers from '1-20', '1-6,8,10-12': sorted, each once, 1 to MAX_TABLE."""
    numbers: set[int] = set()
    for part in (text or "").split(","):
        match = _RANGE.fullmatch(part)
        if not match:
            raise SheetError(
                f"Invalid tables {text!r}: give numbers and ranges such as 1-20 or 1-6,8,10-12."
            )
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if not 1 <= first <= last <= MAX_TABLE:
            raise SheetError(
                f"Invalid table range {part.strip()!r}: tables run from 1 to {MAX_TABLE}, "
                "the smaller number first."
            )
        numbers.update(range(first, last + 1))
        if len(numbers) > MAX_TABLES:
            raise SheetError(f"Too many tables: at most {MAX_TABLES} on one sheet.")
    return sorted(numbers)


def kiosk_name(tournament: str, number: int) -> str:
    """The kiosk of table `number` (a kiosk name has at most 40 characters)."""
    return f"{tournament[:28]} table {number}"


def enrol_tables(
    db: Database,
    tournament: str,
    numbers: list[int],
    base_url: str,
    hours: int = DEFAULT_HOURS,
    now: datetime | None = None,
) -> list[SheetTable]:
    """A kiosk per table, seated at it, each with a fresh code that expires `hours` after
    `now`."""
    hours = valid_hours(hours)
    now = now or datetime.now(UTC)  # one time for the whole sheet
    tournaments.get(db, tournament)
    existing = {k.name: k for k in kiosks.list_all(db)}
    for number in numbers:  # every refusal before any change: never half a sheet
        found = existing.get(kiosk_name(tournament, number))
        if found is None:
            continue
        if not found.active:
            raise SheetError(
                f"Table {number}'s kiosk {found.name!r} was revoked: leave table {number} out "
                "of --tables (such as 1-6,8-20) and pair a new kiosk for it by hand."
            )
        if found.tournament != tournament:
            raise SheetError(
                f"Table {number}'s kiosk {found.name!r} now judges for {found.tournament}: "
                f"move it back with `adjudicator kiosk move` or leave table {number} out."
            )
    sheet = []
    language = tournaments.get(db, tournament).language  # each link's page speaks it
    for number in numbers:
        name = kiosk_name(tournament, number)
        if name in existing:
            enrolment = kiosks.new_pairing(db, name, hours, now)
            if existing[name].table_no != number:  # enrolled before kiosks had tables
                kiosks.set_table(db, name, number)
        else:
            enrolment = kiosks.add(db, name, tournament, hours, now, table=number)
        code = enrolment.pairing_code
        sheet.append(
            SheetTable(
                number,
                name,
                code,
                kiosks.pairing_link(base_url, code, language),
                name not in existing,
                enrolment.pairing_expires_at,
            )
        )
    return sheet
