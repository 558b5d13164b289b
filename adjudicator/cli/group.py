"""The click group of the `adjudicator` command line, its commands imported on first use."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping

import click

from adjudicator import __version__
from adjudicator.cli.common import AdjudicatorGroup

# command name -> "module:attribute" of its click command; add new commands here.
COMMANDS = {
    "lexicon": "adjudicator.cli.lexicon_cmd:lexicon",
    "judge": "adjudicator.cli.judge_cmd:judge",
    "tournament": "adjudicator.cli.tournament_cmd:tournament",
    "kiosk": "adjudicator.cli.kiosk_cmd:kiosk",
    "serve": "adjudicator.cli.serve_cmd:serve",
    "hall": "adjudicator.cli.hall_cmd:hall",
    "quickstart": "adjudicator.cli.quickstart_cmd:quickstart",
    "journal": "adjudicator.cli.journal_cmd:journal_group",
    "db": "adjudicator.cli.journal_cmd:db_group",
    "director": "adjudicator.cli.staff_cmd:director",
    "judge-account": "adjudicator.cli.staff_cmd:judge_account",
    "second-opinion": "adjudicator.cli.staff_cmd:second_opinion_cmd",
    "flags": "adjudicator.cli.staff_cmd:flags_cmd",
    "ruling": "adjudicator.cli.staff_cmd:ruling_cmd",
    "void": "adjudicator.cli.void_cmd:void_cmd",
    "tsh": "adjudicator.cli.tsh_cmd:tsh",
    "free-challenge": "adjudicator.cli.director_cmd:free_challenge",
    "director-challenge": "adjudicator.cli.director_cmd:director_challenge",
    "kit": "adjudicator.cli.kit_cmd:kit",
    "report": "adjudicator.cli.report_cmd:report",
}


class LazyCommands(MutableMapping):
    """A group's commands by name, each imported on first use (a drop-in for click's dict)."""

    def __init__(self, specs: dict[str, str]):
        self._specs = dict(specs)
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            module, _, attribute = self._specs[name].partition(":")
            self._loaded[name] = getattr(importlib.import_module(module), attribute)
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._specs.setdefault(name, "")
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self._specs[name]
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)


@click.group(cls=AdjudicatorGroup)
@click.version_option(__version__, prog_name="adjudicator")
def cli() -> None:
    """Challenge adjudicator for tournament Scrabble: one verdict per challenge."""


cli.commands = LazyCommands(COMMANDS)
