"""A ruling: the verdict on a challenge together with what it means under the rule in force."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adjudicator.lexicon import CompiledLexicon
from adjudicator.rules import Consequence, Rule, consequence
from adjudicator.verdict import Verdict, judge


@dataclass(frozen=True)
class Ruling:
    verdict: Verdict
    words: tuple[str, ...]
    lexicon: CompiledLexicon
    rule: Rule
    consequence: Consequence

    @property
    def word_count(self) -> int:
        return len(self.words)


def rule_on(lexicon: CompiledLexicon, rule: Rule, words: Sequence[str]) -> Ruling:
    """Judge normalised `words` (canonical spellings) against `lexicon` and apply `rule`."""
    words = tuple(words)
    keys = lexicon.alphabet.keys_of(words)  # one character per tile: lengths count tiles
    verdict = judge(lexicon.trie, keys, lexicon.manifest.refer_longer_than)
    return Ruling(verdict, words, lexicon, rule, consequence(rule, verdict, len(words)))
