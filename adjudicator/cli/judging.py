"""What `adjudicator judge` does and prints for a look-up (`--lexicon`, not recorded), without
click: shared by the click command and the fast path (fast_judge), so the two cannot drift
apart. A recorded challenge (`--tournament`) goes through the hall (judge_cmd)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from adjudicator import settings
from adjudicator.errors import AdjudicatorError
from adjudicator.judging.rules import get_rule
from adjudicator.judging.ruling import Ruling, rule_on
from adjudicator.words.normalize import normalize_challenge

TYPE_CHECKING = False  # the typing module costs `adjudicator judge` several ms to import
if TYPE_CHECKING:
    from typing import TextIO

NO_VERDICT_EXIT = 2  # any error a user can cause: a message on stderr, nothing on stdout
HEADLINES = {
    "ACCEPTABLE": "ACCEPTABLE: the play stands",
    "UNACCEPTABLE": "UNACCEPTABLE: the play comes off and scores zero",
    "REFER": "REFER: call a word judge; a dictionary check is needed",
}
NO_LEXICON = (
    "Name the tournament (--tournament SLUG: judged and recorded) or the lexicon "
    "(--lexicon NAME: a look-up, not recorded); see `adjudicator lexicon list`."
)
NOT_RECORDED = (
    "Not recorded: a look-up with --lexicon is not journaled. "
    "Use --tournament SLUG to judge a challenge and record it."
)


class NoLexicon(AdjudicatorError):
    """`judge` was given no lexicon and no default is set."""


class LookUpRefused(AdjudicatorError):
    """A look-up cannot be judged as asked (a rule that counts the game's earlier challenges)."""


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
    `store`, else the data home's), under `rule_name` (default: the setting; none: no
    consequence). A rule that counts the game's earlier challenges needs a recorded game."""
    if store is None:
        from adjudicator.words.store import LexiconStore

        store = LexiconStore()
    lexicon = store.open(lexicon_name)
    normalised = normalize_challenge(text, lexicon.alphabet)  # input in the lexicon's tiles
    rule_name = rule_name or settings.get("default_rule")
    rule = get_rule(rule_name) if rule_name else None
    if rule is not None and rule.counts_earlier_challenges:
        raise LookUpRefused(
            f"Rule {rule.name} depends on the challenger's earlier challenges in the game: "
            "judge with --tournament SLUG --round R --table T --challenger NAME to record it."
        )
    return rule_on(lexicon, rule, normalised)


def look_up(
    lexicon_name: str | None,
    rule_name: str | None,
    words: Sequence[str],
    as_json: bool,
    stdin: TextIO,
) -> tuple[str, int]:
    """What a look-up prints on stdout for WORDS (or `-`: stdin's), and its exit code; the
    caller also says NOT_RECORDED on stderr. Errors a user can cause raise (`error_message`)."""
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
    lines = [
        HEADLINES[ruling.verdict.value],
        f"Lexicon: {manifest.name} ({manifest.words:,} words, "
        f"fingerprint {manifest.short_fingerprint})",
    ]
    if ruling.rule is None:
        lines.append("Rule: none given (no consequence; add --rule RULE for one)")
    else:
        lines.append(f"Rule: {ruling.rule.name} ({ruling.rule.title})")
        lines.append(f"Consequence: {ruling.consequence.text}")
    lines.append(f"Words judged ({ruling.word_count}): {' '.join(ruling.words)}")
    return "\n".join(lines)


def ruling_json(ruling: Ruling) -> dict:
    """The look-up as JSON, with the field names the HTTP API uses (nothing recorded)."""
    manifest = ruling.lexicon.manifest
    consequence = ruling.consequence
    return {
        "verdict": ruling.verdict.value,
        "words": list(ruling.words),
        "word_count": ruling.word_count,
        "lexicon": {
            "name": manifest.name,
            "fingerprint": manifest.fingerprint,
            "words": manifest.words,
        },
        "rule": ruling.rule.name if ruling.rule else None,
        "consequence": consequence.text if consequence else None,
        "penalty": consequence.penalty() if consequence else None,
        "recorded": False,
    }


def describe_os_error(exc: OSError) -> str:
    """An OSError as the CLI shows it: the reason and the file, without a traceback."""
    return f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
