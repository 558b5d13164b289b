"""The `adjudicator` command line: a thin layer that parses, calls the library, and formats.

Verdicts keep exit codes 0 (acceptable), 1 (unacceptable) and 3 (refer); every error a user
can cause exits 2 with a message on stderr and nothing on stdout; a command whose reader
closed its output early (`| head`) exits 141 saying nothing (main).

Each command's module is imported only when that command runs (or when help lists them all),
so `adjudicator judge` loads the judging modules and not Flask, gunicorn, psycopg or argon2;
its plain forms do not even load click (see fast_judge). `cli`, the click group, is built on
first access (`from adjudicator.cli import cli`).

May import: the library (hall, judging, record, words, shared leaves); the web app only from
`serve_cmd`, which starts it.
"""

from __future__ import annotations

import sys


def __getattr__(name: str):
    if name == "cli":
        from adjudicator.cli.group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


READER_GONE_EXIT = 141  # 128 + SIGPIPE: what the shell reports for `cat` when `head` has read


def main() -> None:
    """Entry point of the `adjudicator` console script. A command whose reader closes its
    output early exits quietly (READER_GONE_EXIT): no message, no traceback."""
    try:
        try:
            _run(sys.argv[1:])
        finally:  # what is still buffered is written here, not at exit, where nothing can catch
            sys.stdout.flush()
    except BrokenPipeError:  # met at the last flush, or raised by a command (common.ReaderGone)
        _quiet_exit()


def _run(args: list[str]) -> None:
    if args[:1] == ["judge"]:
        from adjudicator.cli import fast_judge

        code = fast_judge.run(args[1:])
        if code is not None:
            sys.exit(code)
    from adjudicator.cli import log_lines
    from adjudicator.cli.group import cli

    log_lines.install()  # the library's lines: said once, never beside the command's own
    try:
        cli(prog_name="adjudicator")
    except SystemExit as exc:
        log_lines.finish(exc.code)
        raise


def _quiet_exit() -> None:
    """End now, saying nothing: stdout points at /dev/null, so the interpreter's last flush of
    what the closed pipe never took cannot complain."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    sys.exit(READER_GONE_EXIT)
