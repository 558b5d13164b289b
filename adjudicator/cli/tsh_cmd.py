"""`adjudicator tsh ...`: link a tournament to its TSH event, and show the games linked."""

from __future__ import annotations

import json

import click

from adjudicator.cli.common import CliError, json_option, open_hall
from adjudicator.hall.tsh import games as linked_games
from adjudicator.hall.tsh import links


@click.group()
def tsh() -> None:
    """The tournament's own pairings, from TSH: link, show, unlink."""


@tsh.command("link")
@click.argument("slug")
@click.argument("source")
@click.option(
    "--division",
    "divisions",
    multiple=True,
    metavar="NAME",
    help="Link only this division (repeat for several; several need TSH's tables map).",
)
def link_cmd(slug: str, source: str, divisions: tuple[str, ...]) -> None:
    """Link tournament SLUG to a TSH event: SOURCE is TSH's tourney.js, the event's folder
    (config.tsh and the .t files), or the http(s) URL of its published tourney.js. The hall
    then follows it: a new round reaches the kiosks by itself."""
    hall = open_hall()
    summary = links.link(hall.db, slug, source, divisions)
    click.echo(f"Linked {slug} to {summary.event_name} ({summary.source}).")
    for division in summary.divisions:
        current = division.current_round or "none paired yet"
        click.echo(
            f"Division {division.name}: {division.players} players, "
            f"{division.rounds_paired} round(s) paired, current round {current}."
        )
    click.echo(f"{summary.games} game(s) linked.")


@tsh.command("show")
@click.argument("slug")
@click.option(
    "--round",
    "round_number",
    type=click.IntRange(1, 1000),
    default=None,
    help="This round (default: each division's current round).",
)
@click.option("--all", "every_round", is_flag=True, help="Every round TSH has paired.")
@json_option
def show_cmd(slug: str, round_number: int | None, every_round: bool, as_json: bool) -> None:
    """The linked games of tournament SLUG in the current round (or --round R, or --all):
    division, round, table and the two players, the first player first."""
    hall = open_hall()
    if links.get(hall.db, slug) is None:
        raise CliError(f"Tournament {slug} is not linked to TSH: run `adjudicator tsh link`.")
    if round_number is not None and every_round:
        raise CliError("Give --round R or --all, not both.")
    current: dict[str, int] = {}
    if round_number is not None or every_round:
        games = linked_games.show(hall.db, slug, round_number)
    else:
        current, games = linked_games.show_current(hall.db, slug)
    if as_json:
        click.echo(json.dumps([game.to_api() for game in games], indent=2, ensure_ascii=False))
        return
    if current:
        click.echo(_current_line(current))
    if not games:
        click.echo("No games" + (f" in round {round_number}." if round_number else "."))
    for game in games:
        first, second = game.seats
        table = game.table or "-"
        mark = " (first unknown)" if not first.first else ""
        click.echo(
            f"{game.division}  round {game.round}  table {table}:  "
            f"#{first.number} {first.name}  v  #{second.number} {second.name}{mark}"
            + ("" if game.scored else "  [not scored]")
        )


def _current_line(current: dict[str, int]) -> str:
    """Which round is shown: one for the event, or each division's."""
    rounds = set(current.values())
    if len(rounds) == 1:
        shown = f"Round {rounds.pop()}, the current round"
    else:
        shown = "The current rounds: " + ", ".join(
            f"division {name} round {number}" for name, number in sorted(current.items())
        )
    return f"{shown} (--round R for another, --all for every round)."


@tsh.command("unlink")
@click.argument("slug")
def unlink_cmd(slug: str) -> None:
    """Take tournament SLUG's TSH link away: challenges name their game as typed again."""
    hall = open_hall()
    if not links.unlink(hall.db, slug):
        raise CliError(f"Tournament {slug} is not linked to TSH.")
    click.echo(f"Unlinked {slug} from TSH.")
