"""Challenge input: typed text or a list of words -> the normalised words to judge.

The checks look only at the shape of the input (tiles, lengths, counts) in the alphabet of the
tournament's lexicon, never at its words, so an input error can never depend on whether a word
is valid. A normalised word is the canonical spelling (alphabet.py): upper case, NFC, with
multi-letter tiles in brackets.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from adjudicator.errors import ChallengeInputError
from adjudicator.words.alphabet import ENGLISH, MAX_FOLD_CHARS, Alphabet, SpellingError

MIN_LETTERS = 2  # tiles, for alphabets with tiles of several letters
MAX_LETTERS = 15  # the board is 15 x 15
MAX_WORDS = 8  # a main word and up to 7 cross words
MAX_TYPED = MAX_LETTERS * (MAX_FOLD_CHARS + 2)  # a tile is at most "[" + fold text + "]"
MAX_SHOWN = 60  # characters of a word a message repeats: any board word, typed any way, fits

_SEPARATORS = re.compile(r"[ \t\r\n,]+")


def split_words(text: str) -> list[str]:
    """Split typed text on spaces, commas and newlines; empty pieces are dropped."""
    return [piece for piece in _SEPARATORS.split(text) if piece]


def normalize_challenge(
    words: str | Iterable[str], alphabet: Alphabet = ENGLISH
) -> tuple[str, ...]:
    """Check and spell a challenge in `alphabet`; raises ChallengeInputError naming the problem."""
    pieces = split_words(words) if isinstance(words, str) else _split_each(words)
    if not pieces:
        raise ChallengeInputError("No words to judge: type the challenged words, 1 to 8 of them.")
    if len(pieces) > MAX_WORDS:
        raise ChallengeInputError(
            f"Too many words: {len(pieces)} given, a play forms at most {MAX_WORDS}. "
            "Remove the extra words."
        )
    return tuple(_check_word(piece, position, alphabet) for position, piece in enumerate(pieces, 1))


def _split_each(words: Iterable[str]) -> list[str]:
    pieces: list[str] = []
    for item in words:
        if not isinstance(item, str):
            raise ChallengeInputError('Each word must be text, such as "QI".')
        pieces.extend(split_words(item))
    return pieces


def normalize_word(word: str, position: int, alphabet: Alphabet = ENGLISH) -> str:
    """Check and spell word number `position` of a challenge; its canonical spelling."""
    return _check_word(word, position, alphabet)


def shown(word: str) -> str:
    """A word as a message repeats it: quoted, and cut short past MAX_SHOWN characters."""
    return repr(word if len(word) <= MAX_SHOWN else word[:MAX_SHOWN] + "…")


def _check_word(word: str, position: int, alphabet: Alphabet) -> str:
    if alphabet.is_english and word.isascii() and word.isalpha():
        count, canonical = len(word), word.upper()  # the fast path: plain A-Z
    elif len(word) > MAX_TYPED:  # more than 15 tiles however written: not worth spelling out
        raise ChallengeInputError(
            f"Word {position} ({shown(word)}) has {len(word)} characters: no word on a 15 x 15 "
            f"board has more than {MAX_LETTERS} tiles."
        )
    else:
        try:
            tiles = alphabet.spell(word)
        except SpellingError as exc:
            raise ChallengeInputError(
                f"Word {position} ({shown(word)}) has {exc.problem}: {exc.allowed}"
            ) from None
        count, canonical = len(tiles), alphabet.canonical(tiles)
    unit = "letter" if alphabet.is_english else "tile"
    if count < MIN_LETTERS:
        raise ChallengeInputError(
            f"Word {position} ({shown(word)}) has {count} {unit}: "
            f"a word has at least {MIN_LETTERS} {unit}s."
        )
    if count > MAX_LETTERS:
        raise ChallengeInputError(
            f"Word {position} ({shown(word)}) has {count} {unit}s: "
            "no word on a 15 x 15 board has more "
            f"than {MAX_LETTERS}."
        )
    return canonical
