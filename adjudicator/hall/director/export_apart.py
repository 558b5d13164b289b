"""The director's CSV download of the journal, written by a child process.

A season's export is tens of seconds of pure Python (each row read, its effective outcome
worked out, written as CSV): on a serving worker's thread it held that worker's verdicts' tail
near 20-30 ms all the while (benchmarks/live_check.py --export). Here a child process (`python
-P -m adjudicator.hall.director.export_apart FILTERS SOURCE`, adjudicator/children.py) reads
the journal and writes the same CSV (export.csv_chunks) to its standard output; the worker only
passes the bytes on, as they come, at the pace the director's browser reads. SOURCE is the
SQLite file the worker serves from (a mirrored journal's serving copy), opened as it is and
never made; for PostgreSQL it is empty, and the child connects as the settings say (only for a
journal the worker opened from the settings too).

A child that cannot start, or fails before its first byte without saying why, gives None: the
worker exports the rows itself, as before. A journal the child could not read is
DatabaseUnavailable, with its words (a 503, as before). A child that fails part-way ends the
download with an error, never a file that looks whole; a download given up ends the child.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict
from typing import IO

from adjudicator import children
from adjudicator.errors import AdjudicatorError
from adjudicator.hall.director import export, journal_review
from adjudicator.record.copies import backup
from adjudicator.record.database.db import Database, DatabaseUnavailable

BLOCK = 1 << 16  # bytes passed on at a time
UNREADABLE = 3  # the child's exit status when the journal could not be read (its words on stderr)


class ExportCut(Exception):
    """The child ended before the export was whole: the download must not look whole."""


def csv_apart(
    db: Database, filters: journal_review.Filters, from_settings: bool
) -> Iterator[bytes] | None:
    """The CSV of the rows of `db` that `filters` select, written by a child; its first block
    is read here, so that a journal the child cannot read is DatabaseUnavailable now, not a cut
    download. None where no child can say (or a PostgreSQL journal not `from_settings`): export
    here."""
    if db.backend == "sqlite":
        source = backup.source_path(db)  # a mirrored journal: the copy it serves from
    elif from_settings:
        source = ""
    else:
        return None
    errors = tempfile.TemporaryFile()  # never a pipe: nothing reads it while the CSV streams
    child = children.start(
        __name__, json.dumps(asdict(filters)), source, errors=errors, lowest=True
    )
    passing = None
    try:
        if child is not None and child.stdout is not None:
            first = child.stdout.read1(BLOCK)
            if first:
                passing = _passed_on(child, first, errors)
            else:
                _refuse_or_none(child, errors)
    finally:
        if passing is None:
            children.end(child)
            errors.close()
    return passing


def _refuse_or_none(child: subprocess.Popen, errors: IO[bytes]) -> None:
    """Nothing written: DatabaseUnavailable with the child's words when it said the journal
    could not be read; else nothing (the caller ends the child, and exports itself)."""
    try:
        child.wait(timeout=60)
    except subprocess.TimeoutExpired:
        return
    if child.returncode == UNREADABLE:
        errors.seek(0)
        lines = errors.read().strip().splitlines()
        said = children.answer(lines[-1] if lines else b"")
        if isinstance(said, dict) and isinstance(said.get("unavailable"), str):
            raise DatabaseUnavailable(said["unavailable"])


def _passed_on(child: subprocess.Popen, first: bytes, errors: IO[bytes]) -> Iterator[bytes]:
    try:
        yield first
        while block := child.stdout.read1(BLOCK):  # type: ignore[union-attr]
            yield block
        if child.wait() != 0:
            raise ExportCut(f"the export's process ended with status {child.returncode}")
    finally:
        children.end(child)
        errors.close()


def main(argv: list[str]) -> int:
    """The child: `python -m adjudicator.hall.director.export_apart FILTERS SOURCE` writes the
    CSV of the rows FILTERS (journal_review.Filters as JSON) select, of the SQLite file SOURCE
    (the settings' PostgreSQL journal when empty), to its standard output."""
    if len(argv) != 2:
        return 2
    filters = journal_review.Filters(**json.loads(argv[0]))
    out = sys.stdout.buffer
    try:
        db = _opened(argv[1])
        try:
            rows = export.csv_records(db, journal_review.select_batches(db, filters))
            for chunk in export.csv_chunks(rows):
                out.write(chunk.encode("utf-8"))
            out.flush()
        finally:
            db.close()
    except (DatabaseUnavailable, AdjudicatorError) as exc:
        print(json.dumps({"unavailable": str(exc)}), file=sys.stderr)
        return UNREADABLE
    except BrokenPipeError:  # the download was given up: the worker has gone on
        return 0
    return 0


def _opened(source: str) -> Database:
    if not source:
        from adjudicator.record.backends import connect

        return connect()
    from adjudicator.record.database.sqlite import SqliteDatabase

    return SqliteDatabase(source, create_folder=False, create_file=False)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
