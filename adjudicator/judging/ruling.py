"""A ruling: the verdict on a challenge together with what it means under the rule in force."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adjudicator.judging.rules import Consequence, Rule, consequence
from adjudicator.judging.verdict import Verdict, judge
from adjudicator.words.lexicon import CompiledLexicon


@dataclass(frozen=True)
class Ruling:
    verdict: Verdict
    words: tuple[str, ...]
    lexicon: CompiledLexicon
    rule: Rule | None  # None for a look-up without a rule: no consequence
    consequence: Consequence | None

    @property
    def word_count(self) -> int:
        return len(self.words)


def rule_on(
    lexicon: CompiledLexicon,
    rule: Rule | None,
    words: Sequence[str],
    earlier_unsuccessful: int = 0,
) -> Ruling:
    """Judge normalised `words` (canonical spellings) against `lexicon` and apply `rule` (if
    one is given).

    `earlier_unsuccessful`: the challenger's unsuccessful challenges earlier in the game, for
    the rules that count them (it changes the consequence, never the verdict).
    """
    words = tuple(words)
    keys = lexicon.alphabet.keys_of(words)  # one character per tile: lengths count tiles
    manifest = lexicon.manifest
    verdict = judge(lexicon.trie, keys, manifest.refer_longer_than, manifest.refer_even_if_listed)
    result = None if rule is None else consequence(rule, verdict, len(words), earlier_unsuccessful)
    return Ruling(verdict, words, lexicon, rule, result)
