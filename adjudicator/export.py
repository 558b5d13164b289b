"""The journal as files a director keeps: CSV and JSON, written as streams (constant memory).

The CLI's `journal export` and the director's CSV download both use these functions, so the
two never disagree on columns or on how a value is written. A CSV cell that a spreadsheet would
run as a formula (a kiosk may send `challenger: =HYPERLINK(...)`) is written with a leading
apostrophe, as OWASP's CSV injection guidance says; the journal and the JSON keep the text as
recorded.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from adjudicator import journal

CSV_FIELDS = journal.FIELDS
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


def export_json(entry: journal.Entry) -> dict[str, Any]:
    """One row as `journal export --format json` gives it: the API's fields and the chain's."""
    return {
        **entry.to_api(),
        "actor": entry.actor,
        "note": entry.note,
        "prev_hash": entry.prev_hash,
        "row_hash": entry.row_hash,
    }


def export_csv(entry: journal.Entry) -> dict[str, Any]:
    """One row as a CSV record keyed by CSV_FIELDS (words joined by spaces)."""
    row = {name: getattr(entry, name) for name in CSV_FIELDS}
    row["words"] = " ".join(entry.words)
    return {name: neutralise_formula(value) for name, value in row.items()}


def neutralise_formula(value: Any) -> Any:
    """Text a spreadsheet would run as a formula, with a leading apostrophe (shown as text)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_chunks(entries: Iterable[journal.Entry], rows_per_chunk: int = 1000) -> Iterator[str]:
    """The CSV text (header first) in chunks of rows, for a streamed download or a file."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    pending = 0
    for entry in entries:
        writer.writerow(export_csv(entry))
        pending += 1
        if pending >= rows_per_chunk:
            yield _drain(buffer)
            pending = 0
    yield _drain(buffer)


def json_chunks(entries: Iterable[journal.Entry], rows_per_chunk: int = 1000) -> Iterator[str]:
    """A JSON array of export_json rows, one row a line, written in chunks."""
    parts: list[str] = ["["]
    first = True
    for entry in entries:
        parts.append(("\n" if first else ",\n") + json.dumps(export_json(entry)))
        first = False
        if len(parts) >= rows_per_chunk:
            yield "".join(parts)
            parts = []
    parts.append("]\n" if first else "\n]\n")
    yield "".join(parts)


def write(entries: Iterable[journal.Entry], out: TextIO, fmt: str = "csv") -> None:
    """Write `entries` to `out` as CSV or JSON, chunk by chunk."""
    chunks = csv_chunks(entries) if fmt == "csv" else json_chunks(entries)
    for chunk in chunks:
        out.write(chunk)


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text
