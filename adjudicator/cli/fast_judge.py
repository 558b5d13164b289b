"""`adjudicator judge` without loading click: the common forms, parsed by hand.

A look-up at the table's side should start as fast as Python can open the lexicon. Click
alone costs more to import than the whole judgement, so the plain look-up forms of `judge`
(`--lexicon/-l NAME`, `--rule/-r RULE`, `--json`, words or `-`) run here and print exactly
what the click command prints, through the same functions (cli/judging.py). Anything else
(help, `--tournament` and the game's options, which record a challenge; an unknown or
repeated option) returns None, and the click command handles it as always.
"""

from __future__ import annotations

import io
import sys

from adjudicator.errors import AdjudicatorError

_VALUE_OPTIONS = {"--lexicon": "lexicon", "-l": "lexicon", "--rule": "rule", "-r": "rule"}


def parse(args: list[str]) -> dict | None:
    """The options and words of `judge ARGS`, or None if this is not a plain form."""
    found: dict = {"lexicon": None, "rule": None, "json": False, "words": []}
    given: set[str] = set()
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "-" or not arg.startswith("-"):
            found["words"].append(arg)
            continue
        name, has_value, value = arg.partition("=")
        if name == "--json" and not has_value:
            key, value = "json", True
        elif name in _VALUE_OPTIONS and (has_value or index < len(args)):
            if not has_value:
                value, index = args[index], index + 1
                if value.startswith("-") and value != "-":
                    return None
            key = _VALUE_OPTIONS[name]
        else:
            return None  # --help, -lNAME, --, an unknown option: click's to handle
        if key in given:
            return None
        given.add(key)
        found[key] = value
    return found


def run(
    args: list[str],
    stdin: io.TextIOBase = sys.stdin,
    out: io.TextIOBase = sys.stdout,
    err: io.TextIOBase = sys.stderr,
) -> int | None:
    """Judge as `adjudicator judge ARGS` would; the exit code, or None to leave it to click."""
    options = parse(args)
    if options is None:
        return None
    from adjudicator.cli.judging import NO_VERDICT_EXIT, NOT_RECORDED, error_message, look_up

    try:
        shown, exit_code = look_up(
            options["lexicon"], options["rule"], options["words"], options["json"], stdin
        )
    except (AdjudicatorError, OSError) as exc:
        print(f"Error: {error_message(exc)}", file=err)  # as click's CliError shows it
        return NO_VERDICT_EXIT
    print(NOT_RECORDED, file=err)
    print(shown, file=out)
    return exit_code
