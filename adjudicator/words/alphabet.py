"""Alphabets: the tiles a lexicon's words are spelled in, and how typed text becomes tiles.

The contract is ARCHITECTURE.md, "Alphabets": a tile is one letter or several (Spanish CH,
Catalan L·L); a multi-letter tile may be written in brackets, and plain letters are matched to
the longest tile; text is read as Unicode NFC in upper case, and no letter is ever folded to
another unless the alphabet's own definition says so (its `fold` table).

A word has two spellings here:
- canonical: NFC upper case with multi-letter tiles in brackets ("[CH]ICO"); the journal, the
  API and the fingerprint use it;
- key: one character per tile, as the compiled trie stores it (a single-character tile is
  itself, a multi-letter tile is one private-use character), so `len(key)` counts tiles.
For alphabets without multi-letter tiles (English, Polish) the two are the same string.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from adjudicator.wording import N_

TYPE_CHECKING = False  # the typing module costs `adjudicator judge` several ms to import
if TYPE_CHECKING:
    from typing import Any

KEY_BASE = 0xE000  # private-use characters stand for multi-letter tiles in trie keys
MAX_TILES = 128
MAX_TILE_CHARS = 4
MAX_FOLD_CHARS = 8  # the longest text a fold table reads as tiles
ENGLISH_TILES = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

# Case pairs that Unicode's default upper case gets wrong for a language (SpecialCasing.txt).
LANGUAGE_CASE = {
    "tr": (("i", "İ"), ("ı", "I")),
    "az": (("i", "İ"), ("ı", "I")),
    "el": (("ς", "Σ"),),  # final sigma is the lower case of Σ too
}


class SpellingError(ValueError):
    """Text that does not spell in an alphabet's tiles; `problem` names what and where."""

    def __init__(
        self,
        problem: str,
        allowed: str,
        char: str = "",
        position: int = 0,
        kind: str = "character",
        within: str = "",
        example: str = "",
    ):
        super().__init__(f"{problem}: {allowed}")
        self.problem = problem
        self.allowed = allowed
        self.char = char  # the character (or bracketed text) not read
        self.position = position
        self.kind = kind  # character, unclosed, unopened, not_a_tile: for a kiosk's wording
        self.within = within  # the tile(s) the character is only part of
        self.example = example  # the tile the refusal shows, the one the typing reached for


@dataclass(frozen=True)
class Alphabet:
    """A named, ordered set of tiles, with the alphabet's own folds and case pairs."""

    name: str
    tiles: tuple[str, ...]
    fold: tuple[tuple[str, str], ...] = ()  # (text, replacement), upper case, applied before tiling
    case: tuple[tuple[str, str], ...] = ()  # (lower, upper) pairs beyond Unicode's default
    language: str = ""
    description: str = ""
    word_graph: tuple[tuple[str, str], ...] = ()  # (graph character, tile), for Zyzzyva graphs
    # The name a person reads ("Catalan"; a built-in's is translated in the catalogues); it
    # changes nothing the alphabet reads, so two alphabets differing only in it are equal.
    title: str = field(default="", compare=False)

    @property
    def shown_name(self) -> str:
        """The name a person reads: the title, else the name ("swedish-club")."""
        return self.title or self.name

    # --- what other modules ask -------------------------------------------------------------

    @cached_property
    def is_english(self) -> bool:
        """A-Z with no folds: challenge input takes the ASCII fast path."""
        return self.tiles == ENGLISH_TILES and not self.fold and not self.case

    @cached_property
    def multi_tiles(self) -> tuple[str, ...]:
        """Tiles of more than one character, in alphabet order."""
        return tuple(tile for tile in self.tiles if len(tile) > 1)

    @property
    def keys_are_canonical(self) -> bool:
        """True when a word's trie key is its canonical spelling (no multi-letter tiles)."""
        return not self.multi_tiles

    @cached_property
    def special_tiles(self) -> tuple[str, ...]:
        """Tiles a plain A-Z keyboard cannot type as they are (Ą, Ñ, CH, L·L...)."""
        return tuple(tile for tile in self.tiles if tile not in ENGLISH_TILES)

    def to_dict(self) -> dict[str, Any]:
        """The definition as JSON data (stored in every manifest)."""
        data: dict[str, Any] = {"name": self.name, "tiles": list(self.tiles)}
        if self.fold:
            data["fold"] = dict(self.fold)
        if self.case:
            data["case"] = dict(self.case)
        if self.language:
            data["language"] = self.language
        if self.description:
            data["description"] = self.description
        if self.word_graph:
            data["word_graph"] = dict(self.word_graph)
        if self.title:
            data["title"] = self.title
        return data

    def summary(self) -> dict[str, Any]:
        """What a kiosk needs to show and type the tiles: name and title, tiles, special tiles,
        folds, and the characters it reads (each to its upper case)."""
        return {
            "name": self.name,
            "title": self.shown_name,  # in English (or the federation's words): translate it
            "tiles": list(self.tiles),
            "special_tiles": list(self.special_tiles),
            "fold": dict(self.fold),
            "language": self.language,
            "reads": dict(sorted(self.upper_map.items())),
            "letter_by_letter": self.letter_by_letter,
        }

    @property
    def letter_by_letter(self) -> bool:
        """True when each character read is one tile: no multi-letter tiles and no folds."""
        return not self.multi_tiles and not self.fold

    # --- spelling ----------------------------------------------------------------------------

    def spell(self, text: str) -> tuple[str, ...]:
        """The tiles of one word as typed or listed; raises SpellingError naming the problem."""
        text = unicodedata.normalize("NFC", text)
        upper = self._case_map(text)
        chars, positions = self._apply_folds(upper)
        return self._tiles_of(chars, positions)

    def canonical(self, tiles: Sequence[str]) -> str:
        """NFC upper case with multi-letter tiles in brackets: "[CH]ICO"."""
        return "".join(tile if len(tile) == 1 else f"[{tile}]" for tile in tiles)

    def key_of(self, canonical: str) -> str:
        """The trie key of a canonical spelling (the same string without multi-letter tiles)."""
        for bracketed, key in self._tables["bracketed_keys"]:
            canonical = canonical.replace(bracketed, key)
        return canonical

    def keys_of(self, canonical_words: Sequence[str]) -> Sequence[str]:
        """Trie keys of canonical words (the same sequence when keys are canonical)."""
        if not self.multi_tiles:
            return canonical_words
        return self.key_of("\n".join(canonical_words)).split("\n")

    def canonical_of_key(self, key: str) -> str:
        """The canonical spelling of a trie key."""
        if not self.multi_tiles:
            return key
        return key.translate(self._tables["decode_table"])

    def tile_count(self, canonical: str) -> int:
        """How many tiles a canonical spelling has."""
        return len(self.key_of(canonical))

    def allowed_text(self, example: str = "") -> str:
        """What the alphabet allows, for the end of every refusal (a tile in brackets shown
        with `example`, else the first tile of several letters)."""
        if self.is_english:
            return "use the letters A to Z only (type a blank as the letter it stands for)."
        text = f"the {self.name} alphabet's tiles are {' '.join(self.tiles)}"
        if self.multi_tiles:
            example = example or self.multi_tiles[0]
            text += f"; a tile of several letters may be written in brackets, such as [{example}]"
        if self.fold:
            shown = ", ".join(f"{source} as {target}" for source, target in self.fold[:8])
            more = ", ..." if len(self.fold) > 8 else ""
            text += f"; it reads {shown}{more}"
        return text + " (type a blank as the letter it stands for)."

    def example_tile(self, text: str, kind: str = "character", index: int = 0) -> str:
        """The tile a refusal of `text` (upper case) shows as its example: the one the typing
        at `index` (0-based) reached for, such as NY for Catalan XYZ, or L·L for [LL].

        `kind` is the SpellingError's: a character only part of a tile (that tile), an
        unclosed bracket (the tile that follows it), an unopened one (the tile before it), a
        bracket holding no tile (the tile most like what it holds), a character read by no
        tile (a tile of several letters in the word); else the first tile of several letters."""
        if kind == "unclosed":
            found = self._longest_tile(text[index + 1 :], at_start=True)
        elif kind == "unopened":
            found = self._longest_tile(text[:index], at_start=False)
        elif kind == "not_a_tile":
            found = self._tile_like(text[index + 1 : text.find("]", index + 1)])
        elif kind == "part_of_tile":
            found = self._tile_reached_for(text, index)
        else:
            found = next((tile for tile in self.multi_tiles if tile in text), "")
        return found or self.default_example

    @property
    def default_example(self) -> str:
        """The tile a refusal shows when the typing reached for none: a tile of several letters,
        else one a plain keyboard lacks, else the first."""
        return (self.multi_tiles or self.special_tiles or self.tiles)[0]

    def _longest_tile(self, text: str, *, at_start: bool) -> str:
        """The longest tile `text` starts with (or ends with)."""
        fits = [t for t in self.tiles if (text.startswith(t) if at_start else text.endswith(t))]
        return max(fits, key=len, default="")

    def _tile_like(self, inside: str) -> str:
        """The tile most like text typed in brackets that is no tile: the same letters without
        the marks between them ([LL] for L·L), else a tile of several letters that starts the
        same, else the tile of its first character."""
        letters = "".join(char for char in inside if char.isalpha())
        for tile in self.multi_tiles:
            if letters and "".join(char for char in tile if char.isalpha()) == letters:
                return tile
        for tile in self.multi_tiles:
            if inside and tile[0] == inside[0]:
                return tile
        return self._longest_tile(inside, at_start=True)

    def _tile_reached_for(self, text: str, index: int) -> str:
        """Of the tiles holding the character at `index`, the one whose letters the text
        around it shares most (QU for a Q before U), else the first."""
        char = text[index]
        holding = [tile for tile in self.multi_tiles if char in tile]

        def shared(tile: str) -> int:
            start = index - tile.index(char)  # where the tile would begin in the text
            return sum(
                1
                for offset, letter in enumerate(tile)
                if 0 <= start + offset < len(text) and text[start + offset] == letter
            )

        return max(holding, key=shared, default="")

    # --- internals ---------------------------------------------------------------------------

    @cached_property
    def _tables(self) -> dict[str, Any]:
        return _derive(self)

    @property
    def upper_map(self) -> dict[str, str]:
        """Every character the alphabet reads, to its upper case (itself when upper already)."""
        return self._tables["upper"]

    @property
    def key_of_tile(self) -> dict[str, str]:
        """The private-use character that stands for each multi-letter tile in trie keys."""
        return self._tables["key_of_tile"]

    def _case_map(self, text: str) -> str:
        upper = self.upper_map
        out = []
        for index, char in enumerate(text, 1):
            mapped = upper.get(char)
            if mapped is None:
                if char not in "[]":
                    example = self.example_tile(self._upper_known(text))
                    raise SpellingError(
                        f"{describe(char)} at position {index}",
                        self.allowed_text(example),
                        char,
                        index,
                        example=example,
                    )
                mapped = char
            out.append(mapped)
        return "".join(out)

    def _upper_known(self, text: str) -> str:
        """`text` in upper case where the alphabet reads it (the rest as typed)."""
        upper = self.upper_map
        return "".join(upper.get(char, char) for char in text)

    def _apply_folds(self, text: str) -> tuple[str, list[int]]:
        """Apply the fold table left to right (longest first); positions map back to `text`.

        At most one look-up per fold length at each position, however long the table."""
        if not self.fold:
            return text, list(range(1, len(text) + 1))
        folds = self._tables["fold_map"]
        lengths = self._tables["fold_lengths"]
        starts = self._tables["fold_starts"]
        out: list[str] = []
        positions: list[int] = []
        index = 0
        while index < len(text):
            for length in lengths if text[index] in starts else ():
                target = folds.get(text[index : index + length])
                if target is not None and index + length <= len(text):
                    out.append(target)
                    positions.extend([index + 1] * len(target))
                    index += length
                    break
            else:
                out.append(text[index])
                positions.append(index + 1)
                index += 1
        return "".join(out), positions

    def _bracket_error(
        self, text: str, index: int, positions: list[int], kind: str, what: str, said: str
    ) -> SpellingError:
        """The error for a bracket at `index` that does not hold one tile (`kind`: unclosed,
        not_a_tile, unopened), with an example of the right way to type one."""
        example = self.example_tile(text, kind, index)
        return SpellingError(
            said, self.allowed_text(example), what, positions[index], kind, example=example
        )

    def _tiles_of(self, text: str, positions: list[int]) -> tuple[str, ...]:
        tiles: list[str] = []
        by_first = self._tables["tiles_by_first"]
        tile_set = self._tables["tile_set"]
        index = 0
        while index < len(text):
            char = text[index]
            if char == "[":
                end = text.find("]", index + 1)
                if end < 0:
                    raise self._bracket_error(
                        text, index, positions, "unclosed", "[",
                        f"an opening bracket '[' at position {positions[index]} with no "
                        "closing bracket ']'",
                    )  # fmt: skip
                inside = text[index + 1 : end]
                if inside not in tile_set:
                    raise self._bracket_error(
                        text, index, positions, "not_a_tile", inside,
                        f"[{inside}] at position {positions[index]}, but brackets hold "
                        "exactly one tile",
                    )  # fmt: skip
                tiles.append(inside)
                index = end + 1
                continue
            if char == "]":
                raise self._bracket_error(
                    text, index, positions, "unopened", "]",
                    f"a closing bracket ']' at position {positions[index]} with no opening "
                    "bracket '['",
                )  # fmt: skip
            for tile in by_first.get(char, ()):
                if text.startswith(tile, index):
                    tiles.append(tile)
                    index += len(tile)
                    break
            else:
                within = [tile for tile in self.multi_tiles if char in tile]
                part = f", which is only part of the tile {' or '.join(within)}" if within else ""
                example = self.example_tile(text, "part_of_tile" if within else "", index)
                raise SpellingError(
                    f"{describe(char)} at position {positions[index]}{part}",
                    self.allowed_text(example),
                    char,
                    positions[index],
                    within=" ".join(within),
                    example=example,
                )
        return tuple(tiles)


def _derive(alphabet: Alphabet) -> dict[str, Any]:
    """Lookup tables built once per alphabet: case map, folds, tiles by first character."""
    known: set[str] = set()
    for text in (*alphabet.tiles, *(source for source, _ in alphabet.fold)):
        known.update(text)
    upper = {char: char for char in known}
    for char in known:
        lower = char.lower()
        if len(lower) == 1 and lower != char and lower.upper() == char:
            upper.setdefault(lower, char)
    for lower, capital in (*LANGUAGE_CASE.get(alphabet.language, ()), *alphabet.case):
        if capital in known:
            upper[lower] = capital
    tiles_by_first: dict[str, list[str]] = {}
    for tile in sorted(alphabet.tiles, key=len, reverse=True):
        tiles_by_first.setdefault(tile[0], []).append(tile)
    multi = [tile for tile in alphabet.tiles if len(tile) > 1]
    key_of_tile = {tile: chr(KEY_BASE + index) for index, tile in enumerate(multi)}
    return {
        "upper": upper,
        "fold_map": dict(reversed(alphabet.fold)),  # the first of two equal sources wins
        "fold_lengths": sorted({len(source) for source, _ in alphabet.fold}, reverse=True),
        "fold_starts": frozenset(source[0] for source, _ in alphabet.fold),
        "tiles_by_first": tiles_by_first,
        "tile_set": frozenset(alphabet.tiles),
        "key_of_tile": key_of_tile,
        "bracketed_keys": tuple((f"[{tile}]", key) for tile, key in key_of_tile.items()),
        "decode_table": {ord(key): f"[{tile}]" for tile, key in key_of_tile.items()},
    }


def describe(char: str) -> str:
    """Name a character so a person can find it, without echoing anything else."""
    if char.isdigit():
        return f"the digit {char!r}"
    name = unicodedata.name(char, None)
    code = f"U+{ord(char):04X}"
    if name:
        return f"the character {char!r} ({name.lower()}, {code})"
    return f"an invisible or control character ({code})"


ENGLISH = Alphabet("english", ENGLISH_TILES, description="A to Z", title=N_("English"))
