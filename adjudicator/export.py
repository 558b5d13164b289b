"""The journal as files a director keeps: CSV and JSON, written as streams (constant memory).

The CLI's `journal export` and the director's CSV download both use these functions, so the
two never disagree on columns or on how a value is written.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from adjudicator import journal
from adjudicator.db import Database

CSV_FIELDS = journal.FIELDS


def export_json(entry: journal.Entry) -> dict[str, Any]:
    """One row as `journal export --format json` gives it: the API's fields and the chain's."""
    return {
        **entry.to_api(),
        "actor": entry.actor,
        "note": entry.note,
        "prev_hash": entry.prev_hash,
        "row_hash": entry.row_hash,
    }


def export_csv(entry: journal.Entry) -> tuple:
    """One row as a CSV record in CSV_FIELDS order (words joined by spaces): the values exactly
    as the journal stores them, which is what `csv_chunks` writes."""
    return tuple(
        " ".join(entry.words) if name == "words" else getattr(entry, name) for name in CSV_FIELDS
    )


def csv_chunks(rows: Iterable[Sequence[Any]], rows_per_chunk: int = 1000) -> Iterator[str]:
    """The CSV text (header first) in chunks of rows, for a streamed download or a file.

    `rows` are stored rows in CSV_FIELDS order (journal.rows, or export_csv of an entry):
    written as read, with no object per row, so an export costs about what reading does.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    pending = 0
    for row in rows:
        writer.writerow(row)
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


def write(db: Database, out: TextIO, fmt: str = "csv", tournament: str | None = None) -> None:
    """Write the journal (or one tournament's rows) to `out` as CSV or JSON, chunk by chunk."""
    if fmt == "csv":
        chunks = csv_chunks(journal.rows(db, tournament))
    else:
        chunks = json_chunks(journal.entries(db, tournament))
    for chunk in chunks:
        out.write(chunk)


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text
