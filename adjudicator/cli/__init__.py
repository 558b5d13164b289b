"""The `adjudicator` command line: a thin layer that parses, calls the library, and formats.

Verdicts keep exit codes 0 (acceptable), 1 (unacceptable) and 3 (refer); every error a user
can cause exits 2 with a message on stderr and nothing on stdout.

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


def main() -> None:
    """Entry point of the `adjudicator` console script."""
    args = sys.argv[1:]
    if args[:1] == ["judge"]:
        from adjudicator.cli import fast_judge

        code = fast_judge.run(args[1:])
        if code is not None:
            sys.stdout.flush()
            sys.exit(code)
    from adjudicator.cli.group import cli

    cli(prog_name="adjudicator")
