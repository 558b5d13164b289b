"""The journal as files a director keeps: CSV and JSON, written as streams (constant memory).

The CLI's `journal export` and the director's CSV download both use these functions, so the
two never disagree on columns or on how a value is written. Each row comes with its effective
outcome (outcomes.py): for a challenge, what finally stands once voids, reissues and rulings
count; for other rows, nothing. A CSV cell that a spreadsheet would run as a formula (a kiosk
may send `challenger: =HYPERLINK(...)`) is written with a leading apostrophe, as OWASP's CSV
injection guidance says; the journal and the JSON keep the text as recorded.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from adjudicator.judging import outcomes
from adjudicator.judging.outcomes import Outcome
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal

EFFECTIVE_FIELDS = (
    "effective_verdict",
    "effective_consequence",
    "effective_decided_by",
    "effective_how",
    "effective_penalty",
)
CSV_FIELDS = (*journal.FIELDS, *EFFECTIVE_FIELDS)
Row = tuple[journal.Entry, Outcome | None]
# A cell starting with one of these is a formula to Excel, LibreOffice or Google Sheets
# (the full-width forms too, in some locales); tab, CR, LF and NUL can hide the sign.
FORMULA_STARTS = (
    "=",
    "+",
    "-",
    "@",
    "\t",
    "\r",
    "\n",
    "\0",
    "\uff1d",
    "\uff0b",
    "\uff0d",
    "\uff20",
)


def export_json(entry: journal.Entry, outcome: Outcome | None = None) -> dict[str, Any]:
    """One row as `journal export --format json` gives it: the API's fields, the chain's, and
    `effective` (a challenge's effective outcome; null for other rows)."""
    return {
        **entry.to_api(),
        "actor": entry.actor,
        "note": entry.note,
        "flag": entry.flag,
        "dictionary": entry.dictionary,  # a word judge's dictionary check (issue 20)
        "flag_reasons": json.loads(entry.flag_reasons) if entry.flag_reasons else None,
        "details": json.loads(entry.details) if entry.details else None,
        "effective": outcome.to_api() if outcome else None,
        "prev_hash": entry.prev_hash,
        "row_hash": entry.row_hash,
    }


def csv_records(db: Database, batches: Iterable[Sequence[tuple]]) -> Iterator[tuple]:
    """CSV records in CSV_FIELDS order from batches of stored rows (journal.batches): each row
    as the journal stores it, then its effective outcome (outcomes.effective_rows)."""
    games = outcomes.Games(db, whole_journal=True)  # each game recounted once, if corrected
    for batch in batches:
        yield from outcomes.effective_rows(db, batch, games)


def neutralise_formula(value: Any) -> Any:
    """Text a spreadsheet would run as a formula, with a leading apostrophe (shown as text)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_chunks(records: Iterable[Sequence[Any]], rows_per_chunk: int = 1000) -> Iterator[str]:
    """The CSV text (header first) in chunks of rows, for a streamed download or a file.

    `records` are in CSV_FIELDS order (csv_records): written as read, with no object per row,
    so an export costs about what reading does.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    pending = 0
    for record in records:
        writer.writerow(
            [  # every cell as neutralise_formula makes it, inline: this runs for every cell
                "'" + value
                if isinstance(value, str) and value.startswith(FORMULA_STARTS)
                else value
                for value in record
            ]
        )
        pending += 1
        if pending >= rows_per_chunk:
            yield _drain(buffer)
            pending = 0
    yield _drain(buffer)


def json_chunks(entries: Iterable[Row], rows_per_chunk: int = 1000) -> Iterator[str]:
    """A JSON array of export_json rows, one row a line, written in chunks."""
    parts: list[str] = ["["]
    first = True
    for entry, outcome in entries:
        parts.append(("\n" if first else ",\n") + json.dumps(export_json(entry, outcome)))
        first = False
        if len(parts) >= rows_per_chunk:
            yield "".join(parts)
            parts = []
    parts.append("]\n" if first else "\n]\n")
    yield "".join(parts)


def write(db: Database, out: TextIO, fmt: str = "csv", tournament: str | None = None) -> None:
    """Write the journal (or one tournament's rows) with each challenge's effective outcome to
    `out` as CSV or JSON, chunk by chunk."""
    if fmt == "csv":
        chunks = csv_chunks(csv_records(db, journal.batches(db, tournament)))
    else:
        games = outcomes.Games(db, whole_journal=True)
        chunks = json_chunks(
            outcomes.with_outcomes(db, journal.entries(db, tournament), games=games)
        )
    for chunk in chunks:
        out.write(chunk)


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text
