"""The lines of a word list, read in an alphabet a chunk of whole lines at a time.

A list of four million words must import in seconds, so the common line (a word in the
alphabet's letters and nothing else) is handled for a whole chunk at once by C-speed string
operations: upper case, folds, multi-letter tiles. Only the other lines (comments, spaces,
brackets, capitalised entries to drop, characters the alphabet lacks) are read one by one,
by the same rules as challenge input (`Alphabet.spell`). Both ways give the canonical spelling.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from adjudicator.words.alphabet import ENGLISH, Alphabet, SpellingError

MAX_SPELLED = 1000  # characters: a longer line that is not plain is a bad line at once
MAX_SHOWN = 200  # characters of a bad line kept to show


@dataclass(frozen=True)
class BadLine:
    number: int
    text: str

    def __str__(self) -> str:
        return f"line {self.number}: {self.text!r}"


class WordLines:
    """Words read so far (canonical, file order, repeats kept), bad lines, dropped entries."""

    def __init__(
        self,
        alphabet: Alphabet = ENGLISH,
        *,
        definitions: bool = False,
        drop_capitalised: bool = False,
    ):
        self.alphabet = alphabet
        self.words: list[str] = []
        self.bad_lines: list[BadLine] = []
        self.capitalised = 0  # entries with a capital letter, left out when asked
        self.lines = 0
        self._definitions = definitions  # Zyzzyva text: the word, then its definition
        self._drop = drop_capitalised
        self._fast = _fast_tables(alphabet, drop_capitalised)

    def feed(self, text: str) -> None:
        """Read `text`, whole lines (only a file's last line may lack its newline)."""
        if not text:
            return
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        if not unicodedata.is_normalized("NFC", text):
            text = unicodedata.normalize("NFC", text)
        first = self.lines + 1
        self.lines += text.count("\n") + (not text.endswith("\n"))
        bad_before = len(self.bad_lines)
        plain = self._set_aside(text, first)
        self._read_plain(plain, text, first)
        if len(self.bad_lines) > bad_before + 1:
            self.bad_lines[bad_before:] = sorted(self.bad_lines[bad_before:], key=_number)

    def _set_aside(self, text: str, first: int) -> str:
        """`text` with every line that is not a plain word read one by one and replaced."""
        pieces: list[str] = []
        done = 0
        counted, number = 0, first  # line numbers are counted only when a line is bad

        def number_of(start: int) -> int:
            nonlocal counted, number
            number += text.count("\n", counted, start)
            counted = start
            return number

        for match in self._fast["attention"].finditer(text):
            start = text.rfind("\n", 0, match.start()) + 1
            pieces.append(text[done:start])
            kept = self._one_line(text[start : match.end()])
            if kept is None:
                shown = text[start : match.end()].strip()
                if len(shown) > MAX_SHOWN:
                    shown = shown[:MAX_SHOWN] + "..."
                self.bad_lines.append(BadLine(number_of(start), shown))
                kept = ""
            pieces.append(kept)
            done = match.end()
        if not pieces:
            return text
        pieces.append(text[done:])
        return "".join(pieces)

    def _one_line(self, line: str) -> str | None:
        """Read one line that is not plain: what the chunk keeps in its place, None if bad."""
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            return ""
        word = stripped.split(None, 1)[0] if self._definitions else stripped
        if self._drop and word != word.lower():
            self.capitalised += 1
            return ""
        if not self._fast["attention"].search(word):
            return word  # plain after all (it had spaces or a definition): read with the chunk
        if len(word) > MAX_SPELLED:
            return None  # no word is that long: not worth spelling out character by character
        try:
            tiles = self.alphabet.spell(word)
        except SpellingError:
            return None
        self.words.append(self.alphabet.canonical(tiles))
        return ""

    def _read_plain(self, plain: str, original: str, first: int) -> None:
        """Spell a chunk of plain lines at once; a line left with a lone character is bad."""
        fast = self._fast
        plain = plain.upper() if fast["upper"] is None else plain.translate(fast["upper"])
        if fast["fold"] is not None:
            plain = fast["fold"].sub(fast["fold_repl"], plain)
        if fast["multi"] is not None:
            plain = fast["multi"].sub(fast["multi_repl"], plain)
        lines = None
        if fast["leftover"] is not None:
            counted, index = 0, 0
            for match in fast["leftover"].finditer(plain):
                index += plain.count("\n", counted, match.start())
                counted = match.start()
                if lines is None:
                    lines = plain.split("\n")
                    originals = original.split("\n")
                if lines[index]:
                    lines[index] = ""
                    self.bad_lines.append(BadLine(first + index, originals[index].strip()))
        if lines is not None:
            plain = "\n".join(lines)
        for key, bracketed in fast["decode"]:
            plain = plain.replace(key, bracketed)
        self.words.extend(filter(None, plain.split("\n")))


def _number(bad: BadLine) -> int:
    return bad.number


@lru_cache(maxsize=32)
def _fast_tables(alphabet: Alphabet, drop_capitalised: bool) -> dict[str, Any]:
    """Regular expressions and tables for reading a chunk of plain lines in `alphabet`."""
    upper_map = alphabet.upper_map
    plain = {c for c in upper_map if not (drop_capitalised and c != c.lower())}
    default_upper = all(upper_map[c] == c.upper() for c in plain)
    folds = sorted(alphabet.fold, key=lambda pair: -len(pair[0]))
    fold_to = dict(folds)
    multi = sorted(alphabet.multi_tiles, key=len, reverse=True)
    key_of_tile = alphabet.key_of_tile
    single = {tile for tile in alphabet.tiles if len(tile) == 1}
    reachable = set(upper_map.values()) | {c for _, target in folds for c in target}
    leftover = sorted(reachable - single)
    return {
        "attention": re.compile(f"[^{_char_class(plain)}\n][^\n]*"),
        "upper": None if default_upper else {ord(c): upper_map[c] for c in plain},
        "fold": _alternation(fold_to) if folds else None,
        "fold_repl": lambda match: fold_to[match.group()],
        "multi": _alternation(multi) if multi else None,
        "multi_repl": lambda match: key_of_tile[match.group()],
        "leftover": re.compile(f"[{_char_class(leftover)}]") if leftover else None,
        "decode": tuple((key, f"[{tile}]") for tile, key in key_of_tile.items()),
    }


def _char_class(chars) -> str:
    return "".join(re.escape(c) for c in sorted(chars))


def _alternation(texts) -> re.Pattern:
    """Longest first, so that the regex's first match at a position is the longest."""
    return re.compile("|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True)))
