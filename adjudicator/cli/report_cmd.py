"""`adjudicator report SLUG` and `adjudicator report --season FROM TO`: the players' record."""

from __future__ import annotations

import click

from adjudicator.cli.common import CliError, open_hall

TSH_FOLDER = "\0tsh"  # `--out` given with no folder: TSH's html folder of the linked event


@click.command("report")
@click.argument("slug", required=False)
@click.option(
    "--season",
    nargs=2,
    metavar="FROM TO",
    default=None,
    help="Instead of one event: every player over the tournaments whose first day is from FROM "
    "to TO (YYYY-MM-DD, both included), summed by name.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["html", "csv", "json"]),
    default="html",
    show_default=True,
    help="html: the printable report (A4); csv: one row per player; json: everything.",
)
@click.option(
    "--out",
    is_flag=False,
    flag_value=TSH_FOLDER,
    default=None,
    metavar="[DIR]",
    help="Write the report into DIR (as SLUG-challenges.html, .csv or .json) to publish it; "
    "with no DIR, into TSH's html folder of the linked event, beside TSH's own pages. Only "
    "once the event is closed (before, the report is the director's alone: exit 2).",
)
@click.option(
    "--words",
    is_flag=True,
    help="Give each challenge that came off its words not in the lexicon (`not_in_lexicon`: "
    "the players' study list). Only once the event is closed: while it runs, which word "
    "failed is told to no one (WESPA 3.10.7(b), NSA X.E, MSA 13(ii), else the hall's "
    "practice): exit 2.",
)
@click.option(
    "--sort",
    default="name",
    show_default=True,
    help="With --season: the column to sort by (name, tournaments, or a figure such as "
    "challenges_won).",
)
@click.option("--descending", is_flag=True, help="With --season: sort from the highest.")
def report(
    slug: str | None,
    season: tuple[str, str] | None,
    fmt: str,
    out: str | None,
    words: bool,
    sort: str,
    descending: bool,
):
    """Each player's challenges in event SLUG: challenges made (won: the play came off; lost:
    it stood; their penalties in points and turns), their plays challenged (came off, stood),
    free challenges granted and used, verdicts a second opinion or a ruling changed, and void
    challenges counted apart; then every challenge round by round (table, players,
    challenger, words, the verdict of the whole play, its consequence and corrections) and the
    event's totals. Every figure follows the voids, reissues, second opinions, rulings and
    waivers as the game does. The players are named as TSH names them (else as each challenge
    recorded them)."""
    if (slug is None) == (season is None):
        raise CliError("Give one event's SLUG, or --season FROM TO (not both).")
    hall = open_hall()
    if season is not None:
        _season(hall, season, fmt, out, words, sort, descending)
        return
    from adjudicator.hall.director import report as event_report
    from adjudicator.hall.director import report_files

    found = event_report.build(hall, slug, words=words)
    if out is not None:
        report_files.refuse_before_close(found)  # before rendering anything
    text = _event_text(found, fmt)
    if out is None:
        click.echo(text, nl=False)
        return
    folder = None if out == TSH_FOLDER else out
    written = report_files.publish(hall.db, found, text, fmt, folder)
    click.echo(f"Written: {written}")


def _event_text(found, fmt: str) -> str:
    from adjudicator.hall.director import report_files, report_page

    if fmt == "json":
        return report_files.report_json(found)
    if fmt == "csv":
        return report_files.report_csv(found)
    return report_page.page(report_page.body(found, number=_number), report_page.title(found))


def _season(hall, days, fmt: str, out: str | None, words: bool, sort: str, descending: bool):
    from adjudicator.hall.director import report_files, report_page, season_page
    from adjudicator.hall.director import season as seasons

    if words:
        raise CliError(
            "--words is for one closed event's report (adjudicator report SLUG --words), "
            "not a season."
        )
    found = seasons.build(hall, days[0], days[1], sort, descending)
    if out is not None:
        still_open = [t.slug for t in found.tournaments if t.slug not in found.closed]
        if out == TSH_FOLDER:
            raise CliError("A season is written into the folder you give: --out DIR.")
        if still_open:
            raise CliError(
                "Until every event of the season is closed, its record is the director's "
                f"alone and is not written out for publishing: {', '.join(still_open)} "
                "still open (`adjudicator tournament close SLUG`)."
            )
    if fmt == "json":
        text = report_files.season_json(found)
    elif fmt == "csv":
        text = report_files.season_csv(found)
    else:
        text = report_page.page(season_page.body(found, number=_number), season_page.title(found))
    if out is None:
        click.echo(text, nl=False)
        return
    name = f"season-{found.start}-to-{found.end}.{fmt}"
    from pathlib import Path

    written = report_files.write_readable(Path(out).expanduser() / name, text)
    click.echo(f"Written: {written}")


def _number(value: int) -> str:
    return f"{value:,}"
