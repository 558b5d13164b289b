"""An alphabet's `[word_graph]` table: checked when the alphabet is read, applied to a graph.

A Zyzzyva word graph holds one byte per letter, so a federation's graph writes each
multi-letter tile as a character of its own (Zyzzyva's Spanish graphs write CH, LL, RR and Ñ as
1, 2, 3 and 4). The table maps those characters to the tiles (ARCHITECTURE.md, "Languages"):

    [word_graph]
    "1" = "CH"
    "4" = "Ñ"

A graph's letters A-Z are read as themselves; any other character must be in the table, or the
import is refused before anything is built, naming the character and a word that uses it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from adjudicator.errors import ImportRefused
from adjudicator.words.alphabet import Alphabet

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_KEY = re.compile(r"""\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=""")
_HEADER = re.compile(r"\s*\[")


class TableError(ValueError):
    """A `[word_graph]` table that cannot be used; the caller words it for its source."""


def graph_character(char: str) -> bool:
    """Whether `char` can be a letter of a word graph: one printable byte (ASCII or Latin-1)."""
    return len(char) == 1 and (0x21 <= ord(char) <= 0x7E or 0xA1 <= ord(char) <= 0xFF)


def check_table(
    value: Any, tiles: tuple[str, ...], line_of: dict[str, int], upper: Callable[[str], str]
) -> tuple[tuple[str, str], ...]:
    """The (character, tile) pairs of a parsed `[word_graph]` table, or TableError.

    `line_of` gives the line of each key in the file, when there is a file, to name it;
    `upper` is the alphabet files' upper case, which the tiles are written in."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise TableError(
            'word_graph must be a table of graph characters to tiles, such as { "1" = "CH" }.'
        )
    pairs = []
    for char, target in value.items():
        where = f"line {line_of[char]}: " if char in line_of else ""
        if not graph_character(char):
            raise TableError(
                f"{where}word_graph key {char!r} must be one character a word graph can hold "
                '(a printable ASCII or Latin-1 character, such as "1").'
            )
        tile = upper(target.strip())
        if tile not in tiles:
            raise TableError(
                f"{where}word_graph maps {char!r} to {target!r}, which is not one of the "
                f"alphabet's tiles ({' '.join(tiles)}): map it to a tile the alphabet lists."
            )
        pairs.append((char, tile))
    return tuple(pairs)


def table_lines(text: str) -> dict[str, int]:
    """The line of each key of the file's `[word_graph]` table; TableError when a character
    is mapped twice (TOML would refuse it too, with a message that names no table)."""
    found: dict[str, int] = {}
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if _HEADER.match(line):
            inside = stripped.replace(" ", "") == "[word_graph]"
            continue
        if not inside:
            continue
        match = _KEY.match(line)
        if match is None:
            continue
        key = next(group for group in match.groups() if group is not None)
        if '"' in match.group(0) and "\\" in key:
            key = key.encode("utf-8").decode("unicode_escape")
        if key in found:
            raise TableError(
                f"line {number}: word_graph maps {key!r} a second time (first on line "
                f"{found[key]}): map each character once."
            )
        found[key] = number
    return found


def graph_text(words: Iterable[str], alphabet: Alphabet) -> str:
    """A graph's words one a line, each character read as the alphabet's tile (brackets mark
    tiles where plain letters could be read as another tile); ImportRefused for a character
    the alphabet does not map, naming it and a word that uses it."""
    text = "\n".join(words)
    table = dict(alphabet.word_graph)
    letters = {chr(code) for code in range(ord("A"), ord("Z") + 1)}
    unknown = set(text) - letters - set(table) - {"\n"}
    if unknown:
        char = min(unknown, key=text.index)
        raise _unmapped(char, _word_at(text, text.index(char)), alphabet)
    if not table and not alphabet.multi_tiles:
        return text
    starts = {tile[0] for tile in alphabet.multi_tiles}
    tiles = set(alphabet.tiles)
    out: dict[int, str] = {}
    for char in letters | set(table):
        tile = table.get(char, char)
        if tile in tiles and (len(tile) > 1 or tile in starts or char != tile):
            out[ord(char)] = f"[{tile}]"
    return text.translate(out)


def _word_at(text: str, index: int) -> str:
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    return text[start : end if end >= 0 else len(text)]


def _unmapped(char: str, word: str, alphabet: Alphabet) -> ImportRefused:
    mapped = ", ".join(f"{k} as {v}" for k, v in alphabet.word_graph)
    reads = f"it maps {mapped}" if mapped else "it has no [word_graph] table"
    hint = " (for Zyzzyva's Spanish graphs, --alphabet spanish-fise)" if char in "1234" else ""
    return ImportRefused(
        f"The word graph uses the character {char!r} (U+{ord(char):04X}), as in {word!r}, "
        f"which the {alphabet.name} alphabet does not map to a tile ({reads}): import it with "
        f"an alphabet whose [word_graph] table maps {char!r}{hint}. Nothing was imported."
    )
