"""What `adjudicator judge` prints, without click: shared by the click command and the fast path."""

from __future__ import annotations

from adjudicator import settings
from adjudicator.errors import AdjudicatorError
from adjudicator.normalize import normalize_challenge
from adjudicator.rules import get_rule
from adjudicator.ruling import Ruling, rule_on

HEADLINES = {
    "ACCEPTABLE": "ACCEPTABLE: the play stands",
    "UNACCEPTABLE": "UNACCEPTABLE: the play comes off and scores zero",
    "REFER": "REFER: call a word judge; a dictionary check is needed",
}
NO_LEXICON = "Name the lexicon to judge against: --lexicon NAME (see `adjudicator lexicon list`)."


class NoLexicon(AdjudicatorError):
    """`judge` was given no lexicon and no default is set."""


def chosen_lexicon(lexicon_name: str | None) -> str:
    """The lexicon named on the command line, else ADJUDICATOR_DEFAULT_LEXICON, else an error."""
    lexicon_name = lexicon_name or settings.get("default_lexicon")
    if not lexicon_name:
        raise NoLexicon(NO_LEXICON)
    return lexicon_name


def judge_text(lexicon_name: str, rule_name: str | None, text: str) -> Ruling:
    """The ruling on the words in `text` against `lexicon_name` (rule: default from settings)."""
    from adjudicator.store import LexiconStore

    normalised = normalize_challenge(text)
    rule = get_rule(rule_name or settings.get("default_rule"))
    return rule_on(LexiconStore().open(lexicon_name), rule, normalised)


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


def describe_os_error(exc: OSError) -> str:
    """An OSError as the CLI shows it: the reason and the file, without a traceback."""
    return f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
