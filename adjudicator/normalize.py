"""Challenge input: typed text or a list of words -> the normalised words to judge.

The checks look only at the shape of the input (letters, lengths, counts), never at a
lexicon, so an input error can never depend on whether a word is valid.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from adjudicator.errors import ChallengeInputError

MIN_LETTERS = 2
MAX_LETTERS = 15  # the board is 15 x 15
MAX_WORDS = 8  # a main word and up to 7 cross words

_SEPARATORS = re.compile(r"[ \t\r\n,]+")
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def split_words(text: str) -> list[str]:
    """Split typed text on spaces, commas and newlines; empty pieces are dropped."""
    return [piece for piece in _SEPARATORS.split(text) if piece]


def normalize_challenge(words: str | Iterable[str]) -> tuple[str, ...]:
    """Check and upper-case a challenge; raises ChallengeInputError naming the problem."""
    pieces = split_words(words) if isinstance(words, str) else _split_each(words)
    if not pieces:
        raise ChallengeInputError("No words to judge: type the challenged words, 1 to 8 of them.")
    if len(pieces) > MAX_WORDS:
        raise ChallengeInputError(
            f"Too many words: {len(pieces)} given, a play forms at most {MAX_WORDS}. "
            "Remove the extra words."
        )
    return tuple(_check_word(piece, position) for position, piece in enumerate(pieces, 1))


def _split_each(words: Iterable[str]) -> list[str]:
    pieces: list[str] = []
    for item in words:
        if not isinstance(item, str):
            raise ChallengeInputError('Each word must be text, such as "QI".')
        pieces.extend(split_words(item))
    return pieces


def _check_word(word: str, position: int) -> str:
    for index, char in enumerate(word, 1):
        if char not in _ASCII_LETTERS:
            raise ChallengeInputError(
                f"Word {position} ({word!r}) has {_describe(char)} at position {index}: "
                "use the letters A to Z only (type a blank as the letter it stands for)."
            )
    if len(word) < MIN_LETTERS:
        raise ChallengeInputError(
            f"Word {position} ({word!r}) has 1 letter: a word has at least {MIN_LETTERS} letters."
        )
    if len(word) > MAX_LETTERS:
        raise ChallengeInputError(
            f"Word {position} ({word!r}) has {len(word)} letters: "
            "no word on a 15 x 15 board has more "
            f"than {MAX_LETTERS}."
        )
    return word.upper()


def _describe(char: str) -> str:
    """Name a refused character so a person can find it, without echoing the word."""
    if char.isdigit():
        return f"the digit {char!r}"
    name = unicodedata.name(char, None)
    code = f"U+{ord(char):04X}"
    if name:
        return f"the character {char!r} ({name.lower()}, {code})"
    return f"an invisible or control character ({code})"
