"""`adjudicator judge`: one verdict for the challenged words, first line of stdout."""

from __future__ import annotations

import json
import sys

import click

from adjudicator import settings
from adjudicator.cli.common import CliError, json_option, open_store
from adjudicator.normalize import normalize_challenge
from adjudicator.rules import RULES, get_rule
from adjudicator.ruling import Ruling, rule_on

HEADLINES = {
    "ACCEPTABLE": "ACCEPTABLE: the play stands",
    "UNACCEPTABLE": "UNACCEPTABLE: the play comes off and scores zero",
    "REFER": "REFER: call a word judge; a dictionary check is needed",
}


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
    lexicon_name = lexicon_name or settings.get("default_lexicon")
    if not lexicon_name:
        raise CliError(
            "Name the lexicon to judge against: --lexicon NAME (see `adjudicator lexicon list`)."
        )
    text = sys.stdin.read() if words == ("-",) else " ".join(words)
    lexicon = open_store().open(lexicon_name)
    normalised = normalize_challenge(text, lexicon.alphabet)  # input in the lexicon's tiles
    rule = get_rule(rule_name or settings.get("default_rule"))
    ruling = rule_on(lexicon, rule, normalised)
    click.echo(json.dumps(ruling_json(ruling)) if as_json else format_ruling(ruling))
    sys.exit(ruling.verdict.exit_code)


def format_ruling(ruling: Ruling) -> str:
    """The verdict first, then lexicon, rule, consequence and the words as judged."""
    manifest = ruling.lexicon.manifest
    return "\n".join(
        (
            HEADLINES[ruling.verdict.value],
            f"Lexicon: {manifest.name} ({manifest.words:,} words, "
            f"fingerprint {manifest.short_fingerprint})",
            f"Rule: {ruling.rule.name} ({ruling.rule.title})",
            f"Consequence: {ruling.consequence.text}",
            f"Words judged ({ruling.word_count}): {' '.join(ruling.words)}",
        )
    )


def ruling_json(ruling: Ruling) -> dict:
    """The ruling as JSON, with the field names the HTTP API uses."""
    manifest = ruling.lexicon.manifest
    return {
        "verdict": ruling.verdict.value,
        "words": list(ruling.words),
        "word_count": ruling.word_count,
        "lexicon": {
            "name": manifest.name,
            "fingerprint": manifest.fingerprint,
            "words": manifest.words,
        },
        "rule": ruling.rule.name,
        "consequence": ruling.consequence.text,
    }
