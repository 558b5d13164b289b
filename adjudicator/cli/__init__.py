"""The `adjudicator` command line: a thin layer that parses, calls the library, and formats.

Verdicts keep exit codes 0 (acceptable), 1 (unacceptable) and 3 (refer); every error a user
can cause exits 2 with a message on stderr and nothing on stdout.
"""

from __future__ import annotations

import click

from adjudicator import __version__
from adjudicator.cli.common import AdjudicatorGroup
from adjudicator.cli.journal_cmd import db_group, journal_group
from adjudicator.cli.judge_cmd import judge
from adjudicator.cli.kiosk_cmd import kiosk
from adjudicator.cli.lexicon_cmd import lexicon
from adjudicator.cli.quickstart_cmd import quickstart
from adjudicator.cli.serve_cmd import serve
from adjudicator.cli.staff_cmd import (
    director,
    flags_cmd,
    judge_account,
    ruling_cmd,
    second_opinion_cmd,
)
from adjudicator.cli.tournament_cmd import tournament
from adjudicator.cli.void_cmd import void_cmd


@click.group(cls=AdjudicatorGroup)
@click.version_option(__version__, prog_name="adjudicator")
def cli() -> None:
    """Challenge adjudicator for tournament Scrabble: one verdict per challenge."""


for command in (
    lexicon,
    judge,
    tournament,
    kiosk,
    serve,
    quickstart,
    journal_group,
    db_group,
    director,
    judge_account,
    second_opinion_cmd,
    flags_cmd,
    ruling_cmd,
    void_cmd,
):
    cli.add_command(command)


def main() -> None:
    """Entry point of the `adjudicator` console script."""
    cli(prog_name="adjudicator")
