"""The report and the season as files: JSON, CSV (one row per player), and where they go.

`publish` writes a report where it may be published: only once the event is closed (before, the
report is the director's alone), into the folder given, else into TSH's own html folder where the
event is linked to TSH (beside tourney.js; for an event folder, its `html` folder), so it goes
out with TSH's pages. A CSV cell a spreadsheet would run as a formula is written as text
(export.neutralise_formula), since a player's name comes from a kiosk or TSH.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path

from adjudicator.errors import AdjudicatorError
from adjudicator.hall.director.export import neutralise_formula
from adjudicator.hall.director.report import Report
from adjudicator.hall.director.season import COLUMNS, Season
from adjudicator.hall.tsh import links
from adjudicator.record.journal.player_tallies import FIGURES

FORMATS = ("html", "csv", "json")
REPORT_COLUMNS = ("name", "division", *FIGURES)


class PublishRefused(AdjudicatorError):
    """The report cannot be written where it was asked to go."""


def report_json(report: Report) -> str:
    return json.dumps(report.to_api(), indent=1, ensure_ascii=False) + "\n"


def season_json(season: Season) -> str:
    return json.dumps(season.to_api(), indent=1, ensure_ascii=False) + "\n"


def report_csv(report: Report) -> str:
    """One row per player (and division): name, division, then each figure."""
    return _csv(REPORT_COLUMNS, [p.to_api() for p in report.players])


def season_csv(season: Season) -> str:
    """One row per player over the season: name, the tournaments played, then each figure."""
    return _csv(COLUMNS, season.rows())


def _csv(columns: tuple[str, ...], rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([neutralise_formula(row[column]) for column in columns])
    return buffer.getvalue()


def file_name(slug: str, fmt: str) -> str:
    """The report's file name: beside TSH's own pages it must not take one of theirs."""
    return f"{slug}-challenges.{fmt}"


def refuse_before_close(report: Report) -> None:
    """PublishRefused unless the event is closed: before, the report is the director's alone."""
    if report.closing is None:
        slug = report.tournament.slug
        raise PublishRefused(
            f"Tournament {slug} is not closed: until it is, its challenge report is the "
            f"director's alone and is not written out for publishing. Close it once the games "
            f"are over (`adjudicator tournament close {slug}`), then publish it."
        )


def destination(db, slug: str, folder: str | None) -> Path:
    """The folder to write into: `folder`, else TSH's html folder of the linked event."""
    if folder:
        return Path(folder).expanduser()
    link = links.get(db, slug)
    if link is None:
        raise PublishRefused(
            f"Tournament {slug} is not linked to TSH: give the folder to write the report into "
            "(--out DIR)."
        )
    if link.kind == "url":
        raise PublishRefused(
            f"Tournament {slug} reads TSH's pages from {link.source}, which cannot be written "
            "here: give the folder to write the report into (--out DIR)."
        )
    source = Path(link.source)
    html = source.parent if link.kind == "file" else source / "html"
    if not html.is_dir():
        raise PublishRefused(
            f"TSH's html folder {html} is not there (TSH has not published the event's pages "
            "yet): give the folder to write the report into (--out DIR)."
        )
    return html


def publish(db, report: Report, text: str, fmt: str, folder: str | None = None) -> Path:
    """Write the report (as `text`, in format `fmt`) for publishing; refused before the close.
    The file is replaced whole, readable by all (a web server serves TSH's folder)."""
    refuse_before_close(report)
    target = destination(db, report.tournament.slug, folder) / file_name(
        report.tournament.slug, fmt
    )
    return write_readable(target, text)


def write_readable(target: Path, text: str) -> Path:
    """`text` written to `target` whole (a reader sees the old file or the new), mode 644."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(partial, 0o644)
            os.replace(partial, target)
        finally:
            Path(partial).unlink(missing_ok=True)
    except OSError as exc:
        raise PublishRefused(f"{target} cannot be written: {exc.strerror or exc}.") from None
    return target
