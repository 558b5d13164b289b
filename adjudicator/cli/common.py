"""What every CLI verb shares: error translation (exit 2) and reusable options."""

from __future__ import annotations

import click

from adjudicator.cli.judging import NO_VERDICT_EXIT, error_message
from adjudicator.errors import AdjudicatorError
from adjudicator.words.store import LexiconStore

WORKERS_OPTION = click.option(
    "--workers",
    "-w",
    type=click.IntRange(1, 64),
    default=None,
    help="Worker processes (default ADJUDICATOR_WORKERS, 2).",
)
"""The `--workers` option that `serve` and `hall` share (a reusable decorator)."""


class CliError(click.ClickException):
    """An error shown as `Error: message` on stderr; exit 2, never a verdict code."""

    exit_code = NO_VERDICT_EXIT


class ReaderGone(BrokenPipeError):
    """The reader of a command's output closed it early (`adjudicator kiosk list | head`): not
    an error to report but an end, which `adjudicator.cli.main` makes quiet. Without an errno,
    so that click's own handling of a broken pipe (exit 1) lets it through to main."""


class AdjudicatorGroup(click.Group):
    """A group that turns the library's errors into clean messages instead of tracebacks, and
    an output whose reader closed early into a quiet end (adjudicator.cli.main)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:  # the group's own --help is printed here, before invoke
            return super().parse_args(ctx, args)
        except BrokenPipeError:
            raise ReaderGone() from None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # the reader closed the output early: main() ends quietly
            raise ReaderGone() from None
        except (AdjudicatorError, OSError) as exc:
            raise CliError(error_message(exc)) from None


def open_store() -> LexiconStore:
    """The lexicon store under the configured data home."""
    return LexiconStore()


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def read_secret(from_stdin: bool, prompt: str, twice: bool = True) -> str:
    """A password or passphrase: the first line of stdin, or typed without echo (twice, to
    catch a typing slip, when it is being chosen)."""
    import sys

    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return click.prompt(prompt, hide_input=True, confirmation_prompt=twice)


def open_hall():
    """The hall on the configured database, its schema brought up to date; judging held if
    the USB stick it was mirrored to is gone (one_hall)."""
    from adjudicator.hall.hall import Hall
    from adjudicator.record.copies import one_hall

    hall = Hall()
    hall.upgrade()
    one_hall.at_open(hall.db)  # held if the mirror set is not the stick this journal is on
    return hall


def cli_actor() -> str:
    """Who acts from the command line: `cli:<login name>` (never a kiosk's name)."""
    import getpass

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"cli:{user}"


def public_url(recorded: bool = True) -> str:
    """The address kiosks use to reach the server, for pairing links: ADJUDICATOR_PUBLIC_URL,
    else where `adjudicator hall` last served (unless `recorded` is False, as for quickstart,
    which serves where it binds), else the address `serve` binds."""
    from adjudicator import settings
    from adjudicator.hall.network import hall_url

    host, _, port = settings.get("bind").rpartition(":")
    if host in ("0.0.0.0", "::", "[::]", ""):  # every interface: no tablet can open that address
        host = lan_address()
    fallback = f"http://{host}:{port}"
    if not recorded:
        return (settings.get("public_url") or fallback).rstrip("/")
    return hall_url.public_url(fallback)


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), else its host name."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
    except OSError:
        return socket.gethostname()
