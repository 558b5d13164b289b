"""How typed words read as tiles before JUDGE, for the kiosk to show and let players change.

For each word: the tiles the alphabet reads it as (the same reading the adjudication makes), the
other ways its letters split into tiles ("CHICO" is [CH]ICO, or [C][H]ICO), and for each way the
typing that reads as exactly those tiles. Nothing here looks at a lexicon: a spelling says
nothing about whether a word is valid, and a problem is about the shape of the input only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adjudicator.errors import ChallengeInputError
from adjudicator.wording import N_, Phrase
from adjudicator.words.alphabet import Alphabet, SpellingError
from adjudicator.words.normalize import (
    MAX_LETTERS,
    MAX_WORDS,
    MIN_LETTERS,
    normalize_word,
    shown,
    split_words,
    too_many_words,
)

NOT_ONE_WORD = N_("Word {position} ({word}) is not one word: give each word on its own.")
MAX_READINGS = 16  # real words have at most a few digraphs; more ways are not offered
NEVER = 10**6  # tiles needed where letters cannot be split into tiles at all


@dataclass(frozen=True)
class Reading:
    """One way a word's letters split into tiles."""

    tiles: tuple[str, ...]
    word: str  # the canonical spelling, as the adjudication returns it
    written: str  # typing that reads as exactly these tiles

    def to_api(self) -> dict[str, Any]:
        return {"tiles": list(self.tiles), "word": self.word, "written": self.written}


@dataclass(frozen=True)
class SpelledWord:
    """A typed word: its readings (the first way is not always the typed one) or its problem."""

    typed: str
    readings: tuple[Reading, ...] = ()
    current: int = 0  # the reading the typed text gives
    problem: str = ""
    problem_phrase: Any = None  # the problem as a kiosk says it (wording.Phrase)

    def to_api(self) -> dict[str, Any]:
        if self.problem:
            return {"typed": self.typed, "problem": self.problem}
        return {
            "typed": self.typed,
            "current": self.current,
            "readings": [reading.to_api() for reading in self.readings],
        }


def spell_challenge(words: Sequence[Any], alphabet: Alphabet) -> list[SpelledWord]:
    """Read each of `words` (one word each) as tiles; a word that cannot be read gets a problem.

    Raises ChallengeInputError when the list itself is unusable (too many words, not text).
    """
    if len(words) > MAX_WORDS:
        raise too_many_words(len(words))
    if not all(isinstance(word, str) for word in words):
        raise ChallengeInputError('Each word must be text, such as "QI".')
    return [_spell_one(word, position, alphabet) for position, word in enumerate(words, 1)]


def _spell_one(typed: str, position: int, alphabet: Alphabet) -> SpelledWord:
    pieces = split_words(typed)
    if len(pieces) != 1:
        return SpelledWord(
            typed,
            problem=f"Word {position} ({shown(typed)}) is not one word: give each word on its own.",
            problem_phrase=Phrase.of(NOT_ONE_WORD, position=position, word=shown(typed)),
        )
    try:
        canonical = normalize_word(pieces[0], position, alphabet)
    except ChallengeInputError as exc:
        return SpelledWord(typed, problem=str(exc), problem_phrase=exc.phrase)
    tiles = canonical_tiles(canonical)
    ways = tilings(alphabet, tiles)
    readings = tuple(Reading(way, alphabet.canonical(way), written(alphabet, way)) for way in ways)
    return SpelledWord(typed, readings, current=ways.index(tiles))


def canonical_tiles(canonical: str) -> tuple[str, ...]:
    """The tiles of a canonical spelling: a bracketed tile, else one character a tile."""
    tiles: list[str] = []
    index = 0
    while index < len(canonical):
        if canonical[index] == "[":
            end = canonical.index("]", index)
            tiles.append(canonical[index + 1 : end])
            index = end + 1
        else:
            tiles.append(canonical[index])
            index += 1
    return tuple(tiles)


def tilings(alphabet: Alphabet, tiles: Sequence[str]) -> list[tuple[str, ...]]:
    """The ways the letters of `tiles` split into 2 to 15 tiles, longest tiles first.

    At most MAX_READINGS ways; `tiles` itself is always one of them.
    """
    text = "".join(tiles)
    tile_set = set(alphabet.tiles)
    longest = max(len(tile) for tile in alphabet.tiles)
    # fewest[i]: the fewest tiles the letters from i on split into (NEVER when they cannot), so
    # the search only follows ways that can still finish within 15 tiles and never dead-ends
    fewest = [NEVER] * len(text) + [0]
    for start in range(len(text) - 1, -1, -1):
        fewest[start] = min(
            (
                1 + fewest[end]
                for end in range(start + 1, min(len(text), start + longest) + 1)
                if text[start:end] in tile_set
            ),
            default=NEVER,
        )
    found: list[tuple[str, ...]] = []

    def walk(start: int, so_far: list[str]) -> None:
        if len(found) >= MAX_READINGS:
            return
        if start == len(text):
            if len(so_far) >= MIN_LETTERS:
                found.append(tuple(so_far))
            return
        for end in range(min(len(text), start + longest), start, -1):
            if text[start:end] in tile_set and len(so_far) + 1 + fewest[end] <= MAX_LETTERS:
                walk(end, [*so_far, text[start:end]])

    walk(0, [])
    current = tuple(tiles)
    if current not in found:
        found.insert(0, current)
        del found[MAX_READINGS:]
    return found


def written(alphabet: Alphabet, tiles: Sequence[str]) -> str:
    """Typing that the alphabet reads as exactly `tiles`: the canonical spelling, with brackets
    also on single letters that would otherwise be read together ([C][H]ICO, PE[R][R]O)."""
    together = set(alphabet.multi_tiles) | {source for source, _ in alphabet.fold}
    longest = max((len(text) for text in together), default=0)
    single = [len(tile) == 1 for tile in tiles]
    bracket = [not one for one in single]
    for start in range(len(tiles)):
        for end in range(start + 2, min(len(tiles), start + longest) + 1):
            if all(single[start:end]) and "".join(tiles[start:end]) in together:
                bracket[start:end] = [True] * (end - start)
    text = "".join(f"[{tile}]" if mark else tile for tile, mark in zip(tiles, bracket, strict=True))
    if not _reads_as(alphabet, text, tiles):
        # letters that compose in NFC across tiles: every tile in brackets always reads back,
        # since an alphabet's folds and case pairs leave each tile as it is (alphabet_files.py)
        text = "".join(f"[{tile}]" for tile in tiles)
    return text


def _reads_as(alphabet: Alphabet, text: str, tiles: Sequence[str]) -> bool:
    try:
        return alphabet.spell(text) == tuple(tiles)
    except SpellingError:
        return False
