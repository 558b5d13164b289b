"""A word set in canonical form: upper-case A-Z, sorted by byte order, no duplicates.

The fingerprint of a lexicon is the SHA-256 of its canonical bytes: every word followed by
a newline. Two lists with the same words have the same fingerprint.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

MAX_BOARD_WORD = 15


@dataclass(frozen=True)
class WordSet:
    """Sorted unique words with the figures a manifest records."""

    words: tuple[str, ...]
    fingerprint: str

    @classmethod
    def of(cls, words: Iterable[str]) -> WordSet:
        """Canonicalise `words` (already upper-case A-Z) and fingerprint them."""
        ordered = tuple(sorted(set(words)))
        return cls(ordered, fingerprint(ordered))

    def __len__(self) -> int:
        return len(self.words)

    @property
    def longest(self) -> int:
        return max(map(len, self.words), default=0)

    @property
    def over_board_length(self) -> int:
        """How many words are longer than a 15 x 15 board allows (kept, never playable)."""
        return sum(1 for word in self.words if len(word) > MAX_BOARD_WORD)


def fingerprint(sorted_unique_words: Iterable[str]) -> str:
    """SHA-256 hex of the canonical form of words that are already sorted and unique."""
    digest = hashlib.sha256()
    chunk: list[str] = []
    for word in sorted_unique_words:
        chunk.append(word)
        if len(chunk) >= 8192:
            digest.update(("\n".join(chunk) + "\n").encode("ascii"))
            chunk.clear()
    if chunk:
        digest.update(("\n".join(chunk) + "\n").encode("ascii"))
    return digest.hexdigest()


def short_fingerprint(full: str) -> str:
    """The first 12 hex digits, as shown on screens and in summaries."""
    return full[:12]
