"""Fixtures the lexicon tests of this folder share."""

from __future__ import annotations

import pytest

from adjudicator.words.lexicon import CompiledLexicon
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

MAIN_WORDS = ["AA", "QI", "ZA", "CAT", "ZEBRA", "ABDOMINOPLASTY"]
OTHER_WORDS = ["AA", "QI", "ZA", "CAT", "ZEBRA", "UNSEEN"]  # as many, one of them not MAIN's


@pytest.fixture
def two(store: LexiconStore) -> LexiconStore:
    """MAIN and OTHER: as many words each, one of them not the other's (a forgery's makings)."""
    store.save("MAIN", WordSet.of(MAIN_WORDS))
    store.save("OTHER", WordSet.of(OTHER_WORDS))
    return store


@pytest.fixture
def fingerprinted(monkeypatch) -> list[str]:
    """The names of the lexicons whose words were read back and fingerprinted, in order."""
    seen: list[str] = []
    original = CompiledLexicon.check_fingerprint

    def spy(self):
        seen.append(self.manifest.name)
        return original(self)

    monkeypatch.setattr(CompiledLexicon, "check_fingerprint", spy)
    return seen
