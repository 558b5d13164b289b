"""`adjudicator judge`: one verdict for the challenged words, first line of stdout."""

from __future__ import annotations

import sys

import click

from adjudicator.cli.common import json_option
from adjudicator.cli.judging import HEADLINES, format_ruling, look_up, ruling_json
from adjudicator.rules import RULES

__all__ = ["HEADLINES", "format_ruling", "judge", "ruling_json"]


@click.command()
@click.option(
    "--lexicon",
    "-l",
    "lexicon_name",
    metavar="NAME",
    help="Lexicon edition to judge against (default: ADJUDICATOR_DEFAULT_LEXICON).",
)
@click.option(
    "--rule",
    "-r",
    "rule_name",
    type=click.Choice(list(RULES)),
    default=None,
    help="Challenge rule (default: ADJUDICATOR_DEFAULT_RULE, else double).",
)
@json_option
@click.argument("words", nargs=-1)
def judge(lexicon_name: str | None, rule_name: str | None, as_json: bool, words: tuple[str, ...]):
    """Judge a challenge: WORD... (or - to read the words from stdin).

    Exit 0 ACCEPTABLE, 1 UNACCEPTABLE, 3 REFER, 2 when no verdict is given.
    """
    shown, exit_code = look_up(lexicon_name, rule_name, words, as_json, sys.stdin)
    click.echo(shown)
    sys.exit(exit_code)
