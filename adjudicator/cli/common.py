"""What every CLI verb shares: error translation (exit 2) and reusable options."""

from __future__ import annotations

import click

from adjudicator.errors import AdjudicatorError
from adjudicator.store import LexiconStore

NO_VERDICT_EXIT = 2


class CliError(click.ClickException):
    """An error shown as `Error: message` on stderr; exit 2, never a verdict code."""

    exit_code = NO_VERDICT_EXIT


class AdjudicatorGroup(click.Group):
    """A group that turns the library's errors into clean messages instead of tracebacks."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except AdjudicatorError as exc:
            raise CliError(str(exc)) from None
        except OSError as exc:
            raise CliError(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")) from None


def open_store() -> LexiconStore:
    """The lexicon store under the configured data home."""
    return LexiconStore()


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
