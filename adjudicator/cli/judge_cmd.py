"""`adjudicator judge`: one verdict for the challenged words, first line of stdout.

With `--tournament SLUG` the challenge is judged with that tournament's lexicon and rule and
recorded in the journal (its id is printed), like a kiosk's. With `--lexicon NAME` it is a
look-up: nothing is recorded (stderr says so), and a consequence is printed only for a
`--rule` given.
"""

from __future__ import annotations

import json
import sys

import click

from adjudicator.cli.common import CliError, cli_actor, json_option, open_hall
from adjudicator.cli.judging import HEADLINES, NOT_RECORDED, format_ruling, look_up, ruling_json
from adjudicator.hall.hall import clean_details
from adjudicator.hall.tsh import seating
from adjudicator.judging.rules import get_rule
from adjudicator.judging.verdict import Verdict
from adjudicator.record.journal.journal import Entry

__all__ = ["HEADLINES", "format_ruling", "judge", "ruling_json"]
GAME_OPTIONS = ("round", "table", "challenger", "player")


def _game_option(name: str, text: str):
    return click.option(f"--{name}", f"{name}_", metavar="TEXT", default=None, help=text)


@click.command()
@click.option(
    "--tournament",
    "-t",
    "tournament_slug",
    metavar="SLUG",
    help="Judge with this tournament's lexicon and rule, and record the verdict in the journal.",
)
@click.option(
    "--lexicon",
    "-l",
    "lexicon_name",
    metavar="NAME",
    help="A look-up against this lexicon, not recorded (default: ADJUDICATOR_DEFAULT_LEXICON).",
)
@click.option(
    "--rule",
    "-r",
    "rule_name",
    metavar="RULE",
    default=None,
    help="With --lexicon: the rule for the consequence (single, double, N-per-word, "
    "N-per-turn; default ADJUDICATOR_DEFAULT_RULE). Without one, no consequence is printed.",
)
@_game_option("round", "With --tournament: the round (needed by dingle, 5-then-10, escalating).")
@_game_option("table", "With --tournament: the table (needed by dingle, 5-then-10, escalating).")
@_game_option("challenger", "With --tournament: who challenges (needed by the counting rules).")
@_game_option("player", "With --tournament: the player whose play is challenged.")
@click.option(
    "--replaces",
    type=int,
    default=None,
    metavar="ID",
    help="With --tournament: the challenge this one reissues (a slip that did not match the "
    "board); that one then counts for nothing. Only where the rulebook has reissues (WESPA "
    "3.10.12, MSA 13, or no rulebook named); elsewhere refused, citing the rulebook.",
)
@click.option(
    "--final-play",
    is_flag=True,
    help="With --tournament: the challenged play went out (school rule 12: no penalty for "
    "challenging it under the school-2011 rulebook; no turn is kept or lost).",
)
@json_option
@click.argument("words", nargs=-1)
def judge(
    tournament_slug: str | None,
    lexicon_name: str | None,
    rule_name: str | None,
    round_: str | None,
    table_: str | None,
    challenger_: str | None,
    player_: str | None,
    replaces: int | None,
    final_play: bool,
    as_json: bool,
    words: tuple[str, ...],
):
    """Judge a challenge: WORD... (or - to read the words from stdin).

    Exit 0 ACCEPTABLE, 1 UNACCEPTABLE, 3 REFER, 2 when no verdict is given.
    """
    game = {"round": round_, "table": table_, "challenger": challenger_, "player": player_}
    if tournament_slug:
        text = sys.stdin.read() if words == ("-",) else " ".join(words)
        if lexicon_name or rule_name:
            raise CliError(
                "--tournament judges with the tournament's own lexicon and rule: leave out "
                "--lexicon and --rule (or judge a look-up with --lexicon and no --tournament)."
            )
        entry = _record(tournament_slug, text, game, replaces, final_play)
        click.echo(json.dumps({**entry.to_api(), "recorded": True}) if as_json else _entry(entry))
        sys.exit(Verdict(entry.verdict).exit_code)
    given = [f"--{name}" for name, value in game.items() if value]
    given += ["--final-play"] if final_play else []
    if given or replaces is not None:
        raise CliError(
            f"{', '.join(given) or '--replaces'} belong(s) to a recorded challenge: "
            "add --tournament SLUG."
        )
    shown, exit_code = look_up(lexicon_name, rule_name, words, as_json, sys.stdin)
    click.echo(NOT_RECORDED, err=True)
    click.echo(shown)
    sys.exit(exit_code)


def _record(slug: str, text: str, game: dict, replaces: int | None, final_play: bool) -> Entry:
    hall = open_hall()
    # typed by hand: a table with no game in a linked tournament is refused, not recorded
    seating.check_table_has_game(hall.db, slug, clean_details(game))
    actor = cli_actor()
    return hall.record_challenge(
        slug, actor, text, actor=actor, replaces=replaces, final_play=final_play, **game
    )


def _entry(entry: Entry) -> str:
    """A recorded challenge: the verdict first, then its journal id and what it means."""
    return "\n".join(
        (
            HEADLINES[entry.verdict],
            f"Recorded: adjudication #{entry.id} at {entry.recorded_at} "
            f"(tournament {entry.tournament})",
            f"Lexicon: {entry.lexicon_name} ({entry.lexicon_words:,} words, "
            f"fingerprint {entry.lexicon_fingerprint[:12]})",
            f"Rule: {entry.rule} ({get_rule(entry.rule).title})",
            f"Consequence: {entry.consequence}",
            f"Words judged ({entry.word_count}): {' '.join(entry.words)}",
        )
    )
