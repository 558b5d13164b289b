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
from adjudicator.wording import N_, NP_, Phrase
from adjudicator.words.alphabet import ENGLISH, MAX_FOLD_CHARS, Alphabet, SpellingError

MIN_LETTERS = 2  # tiles, for alphabets with tiles of several letters
MAX_LETTERS = 15  # the board is 15 x 15
MAX_WORDS = 8  # a main word and up to 7 cross words
MAX_TYPED = MAX_LETTERS * (MAX_FOLD_CHARS + 2)  # a tile is at most "[" + fold text + "]"
MAX_SHOWN = 60  # characters of a word a message repeats: any board word, typed any way, fits

_SEPARATORS = re.compile(r"[ \t\r\n,]+")

# The messages as a kiosk says them in its language (the English above stays the API's `error`).
NO_WORDS = N_("No words to judge: type the challenged words, 1 to 8 of them.")
TOO_MANY = N_("Too many words: {count} given, a play forms at most {most}. Remove the extra words.")
TOO_LONG = N_(
    "Word {position} ({word}) has {count} characters: no word on a 15 x 15 board has more "
    "than {most} tiles."
)
UNREADABLE = N_(
    "Word {position} ({word}) does not read as the {name} alphabet's tiles: check each letter, "
    "and write a tile of several letters in brackets, such as [{example}]."
)
UNREAD_CHARACTER = N_(
    "Word {position} ({word}) has “{char}” at position {index}, which the {name} alphabet's "
    "tiles do not spell: type a blank as the letter it stands for, and a tile of several "
    "letters in brackets, such as [{example}]."
)
UNREAD_LETTER_BY_LETTER = N_(
    "Word {position} ({word}) has “{char}” at position {index}, which the {name} alphabet's "
    "tiles do not spell: type a blank as the letter it stands for."
)
PART_OF_TILE = N_(
    "Word {position} ({word}) has “{char}” at position {index}, which is only part of the tile "
    "{tiles}: type the whole tile, or the tile in brackets, such as [{example}]."
)
UNCLOSED = N_(
    "Word {position} ({word}) has an opening bracket '[' at position {index} with no closing "
    "bracket ']': a tile in brackets is written whole, such as [{example}]."
)
UNOPENED = N_(
    "Word {position} ({word}) has a closing bracket ']' at position {index} with no opening "
    "bracket '[': a tile in brackets is written whole, such as [{example}]."
)
NOT_A_TILE = N_(
    "Word {position} ({word}) has [{char}] at position {index}, but brackets hold exactly one "
    "tile of the {name} alphabet, such as [{example}]."
)
UNREADABLE_AZ = N_(
    "Word {position} ({word}) has a character other than the letters A to Z: type a blank as "
    "the letter it stands for."
)
TOO_FEW_TILES = NP_(
    "Word {position} ({word}) has {n} tile: a word has at least {least} tiles.",
    "Word {position} ({word}) has {n} tiles: a word has at least {least} tiles.",
)
TOO_MANY_TILES = NP_(
    "Word {position} ({word}) has {n} tile: no word on a 15 x 15 board has more than {most}.",
    "Word {position} ({word}) has {n} tiles: no word on a 15 x 15 board has more than {most}.",
)


def split_words(text: str) -> list[str]:
    """Split typed text on spaces, commas and newlines; empty pieces are dropped."""
    return [piece for piece in _SEPARATORS.split(text) if piece]


def normalize_challenge(
    words: str | Iterable[str], alphabet: Alphabet = ENGLISH
) -> tuple[str, ...]:
    """Check and spell a challenge in `alphabet`; raises ChallengeInputError naming the problem."""
    pieces = split_words(words) if isinstance(words, str) else _split_each(words)
    if not pieces:
        raise ChallengeInputError(NO_WORDS, Phrase(NO_WORDS))
    if len(pieces) > MAX_WORDS:
        raise too_many_words(len(pieces))
    return tuple(_check_word(piece, position, alphabet) for position, piece in enumerate(pieces, 1))


def too_many_words(count: int) -> ChallengeInputError:
    """More than a play can form."""
    return ChallengeInputError(
        f"Too many words: {count} given, a play forms at most {MAX_WORDS}. Remove the extra words.",
        Phrase.of(TOO_MANY, count=count, most=MAX_WORDS),
    )


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
            f"board has more than {MAX_LETTERS} tiles.",
            Phrase.of(
                TOO_LONG, position=position, word=shown(word), count=len(word), most=MAX_LETTERS
            ),
        )
    else:
        try:
            tiles = alphabet.spell(word)
        except SpellingError as exc:
            raise ChallengeInputError(
                f"Word {position} ({shown(word)}) has {exc.problem}: {exc.allowed}",
                _unreadable(position, word, alphabet, exc),
            ) from None
        count, canonical = len(tiles), alphabet.canonical(tiles)
    unit = "letter" if alphabet.is_english else "tile"
    if count < MIN_LETTERS:
        raise ChallengeInputError(
            f"Word {position} ({shown(word)}) has {count} {unit}: "
            f"a word has at least {MIN_LETTERS} {unit}s.",
            Phrase.counted(
                TOO_FEW_TILES, count, position=position, word=shown(word), least=MIN_LETTERS
            ),
        )
    if count > MAX_LETTERS:
        raise ChallengeInputError(
            f"Word {position} ({shown(word)}) has {count} {unit}s: "
            "no word on a 15 x 15 board has more "
            f"than {MAX_LETTERS}.",
            Phrase.counted(
                TOO_MANY_TILES, count, position=position, word=shown(word), most=MAX_LETTERS
            ),
        )
    return canonical


def _unreadable(position: int, word: str, alphabet: Alphabet, exc: SpellingError) -> Phrase:
    if alphabet.is_english:
        return Phrase.of(UNREADABLE_AZ, position=position, word=shown(word))
    example = exc.example or alphabet.default_example  # the tile the typing reached for
    fields = {"position": position, "word": shown(word), "name": Phrase(alphabet.shown_name)}
    if not exc.char:
        return Phrase.of(UNREADABLE, **fields, example=example)
    fields.update(char=exc.char, index=exc.position, example=example)
    if exc.kind == "character" and exc.within:
        return Phrase.of(PART_OF_TILE, **fields, tiles=exc.within)
    if exc.kind == "character" and not alphabet.multi_tiles:  # no tile to write in brackets
        return Phrase.of(UNREAD_LETTER_BY_LETTER, **fields)
    wording = {"unclosed": UNCLOSED, "unopened": UNOPENED, "not_a_tile": NOT_A_TILE}
    return Phrase.of(wording.get(exc.kind, UNREAD_CHARACTER), **fields)
