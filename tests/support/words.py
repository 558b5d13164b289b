"""Word helpers the tests share: the tiny lexicon's words, a .dwg encoder, masking words."""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable

# A tiny lexicon: a few real two- and three-letter words and some longer ones.
TINY_WORDS = (
    "AA",
    "AB",
    "QI",
    "ZA",
    "JO",
    "XI",
    "OK",
    "EW",
    "CAT",
    "DOG",
    "FOX",
    "ZEBRA",
    "QUIXOTIC",
    "RETAINERS",
    "ANTIDISESTABLISHMENTARIANISM",  # 28 letters: kept, never playable
)


def encode_dwg(words: Iterable[str]) -> bytes:
    """Encode words as a Zyzzyva word graph (a plain tree; sibling lists breadth first)."""
    root: dict = {}
    for word in words:
        node = root
        for letter in word:
            node = node.setdefault(letter, {})
        node[""] = {}
    nodes: list[list[int]] = []
    pending = [(0, root)]
    while pending:
        parent, subtree = pending.pop(0)
        letters = sorted(key for key in subtree if key)
        if not letters:
            continue
        start = len(nodes) + 1
        if parent:
            nodes[parent - 1][3] = start
        for offset, letter in enumerate(letters):
            child = subtree[letter]
            nodes.append([ord(letter), int("" in child), int(offset == len(letters) - 1), 0])
            pending.append((start + offset, child))
    packed = [letter << 24 | end << 23 | last << 22 | child for letter, end, last, child in nodes]
    return struct.pack(f"<I{len(packed)}I", len(packed), *packed)


def mask(text: str, words: Iterable[str]) -> str:
    """Replace each of `words` (as whole words, any case) with a placeholder."""
    alternatives = "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))
    return re.sub(rf"\b(?:{alternatives})\b", "<WORD>", text, flags=re.IGNORECASE)


class CountingLexicon:
    """A lexicon that records every lookup, to prove the verdict has no early exit."""

    def __init__(self, words):
        self.words = frozenset(words)
        self.looked_up: list[str] = []

    def __contains__(self, word):
        self.looked_up.append(word)
        return word in self.words


# The .txt lists of ../shared/lexicons that the catalogue was built from.
CATALOGUE_LISTS = (
    "NWL2023",
    "NWL2020",
    "NWL2018",
    "TWL2014",
    "TWL06",
    "CSW24",
    "CSW21",
    "CSW19",
    "CSW15",
    "CSW12",
    "ENABLE1",
)
