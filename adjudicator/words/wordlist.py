"""A word set in canonical form: canonical spellings, sorted by code point, no duplicates.

The fingerprint of a lexicon is the SHA-256 of its canonical text: every word (upper case, NFC,
multi-letter tiles in brackets) followed by a newline, in code point order. Two lists with the
same words have the same fingerprint; for A-Z lists it is the SHA-256 of the sorted words.

Lists of millions of words are sorted in place and hashed in slices: no second copy of the
words and no Python call per word where a C loop can do it.
"""

from __future__ import annotations

import hashlib
import operator
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice

from adjudicator.words.alphabet import ENGLISH, Alphabet

MAX_BOARD_WORD = 15
_SLICE = 65536


@dataclass(frozen=True)
class WordSet:
    """Sorted unique canonical words with the figures a manifest records."""

    words: tuple[str, ...]
    fingerprint: str
    alphabet: Alphabet = field(default=ENGLISH)

    @classmethod
    def of(cls, words: Iterable[str], alphabet: Alphabet = ENGLISH) -> WordSet:
        """Sort and fingerprint `words`: canonical spellings in `alphabet`, any order."""
        return cls.take(list(words), alphabet)

    @classmethod
    def take(cls, words: list[str], alphabet: Alphabet = ENGLISH) -> WordSet:
        """Like `of`, but sorts the list `words` in place instead of copying it first."""
        words.sort()
        if any(map(operator.eq, words, islice(words, 1, None))):
            ordered = tuple(dict.fromkeys(words))  # keeps the order, drops the repeats
        else:
            ordered = tuple(words)
        return cls(ordered, fingerprint(ordered), alphabet)

    def __len__(self) -> int:
        return len(self.words)

    @cached_property
    def keys(self) -> Sequence[str]:
        """The words as the compiled trie stores them: one character per tile."""
        return self.alphabet.keys_of(self.words)

    @cached_property
    def _lengths(self) -> Counter[int]:
        return Counter(map(len, self.keys))  # tiles: a key has one character per tile

    @property
    def longest(self) -> int:
        """The most tiles (letters, for A-Z) in one word."""
        return max(self._lengths, default=0)

    @property
    def over_board_length(self) -> int:
        """How many words are longer than a 15 x 15 board allows (kept, never playable)."""
        return sum(count for length, count in self._lengths.items() if length > MAX_BOARD_WORD)


def fingerprint(sorted_unique_words: Iterable[str]) -> str:
    """SHA-256 hex of the canonical form of words that are already sorted and unique."""
    digest = hashlib.sha256()
    words = iter(sorted_unique_words)
    while chunk := list(islice(words, _SLICE)):
        digest.update(("\n".join(chunk) + "\n").encode("utf-8"))
    return digest.hexdigest()


def short_fingerprint(full: str) -> str:
    """The first 12 hex digits, as shown on screens and in summaries."""
    return full[:12]
