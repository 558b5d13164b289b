"""What `adjudicator judge` does and prints, without click: shared by the click command and the
fast path (fast_judge), so the two cannot drift apart."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from adjudicator import settings
from adjudicator.errors import AdjudicatorError
from adjudicator.normalize import normalize_challenge
from adjudicator.rules import get_rule
from adjudicator.ruling import Ruling, rule_on

TYPE_CHECKING = False  # the typing module costs `adjudicator judge` several ms to import
if TYPE_CHECKING:
    from typing import TextIO

NO_VERDICT_EXIT = 2  # any error a user can cause: a message on stderr, nothing on stdout
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


def judge_text(
    lexicon_name: str, rule_name: str | None, text: str | Iterable[str], store=None
) -> Ruling:
    """The ruling on the words in `text`, read in the tiles of `lexicon_name` (opened from
    `store`, else the data home's), under `rule_name` (default: the setting)."""
    if store is None:
        from adjudicator.store import LexiconStore

        store = LexiconStore()
    lexicon = store.open(lexicon_name)
    normalised = normalize_challenge(text, lexicon.alphabet)  # input in the lexicon's tiles
    rule = get_rule(rule_name or settings.get("default_rule"))
    return rule_on(lexicon, rule, normalised)


def look_up(
    lexicon_name: str | None,
    rule_name: str | None,
    words: Sequence[str],
    as_json: bool,
    stdin: TextIO,
) -> tuple[str, int]:
    """What `judge` prints on stdout for WORDS (or `-`: stdin's), and its exit code.

    Errors a user can cause raise (see `error_message`).
    """
    lexicon_name = chosen_lexicon(lexicon_name)
    text = stdin.read() if list(words) == ["-"] else " ".join(words)
    ruling = judge_text(lexicon_name, rule_name, text)
    shown = json.dumps(ruling_json(ruling)) if as_json else format_ruling(ruling)
    return shown, ruling.verdict.exit_code


def error_message(exc: BaseException) -> str | None:
    """What the CLI says (exit 2) for an error a user can cause; None for any other error."""
    if isinstance(exc, AdjudicatorError):
        return str(exc)
    if isinstance(exc, OSError):
        return describe_os_error(exc)
    return None


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
