"""A TSH division's `.t` file, read as TSH reads it (TFile.pm, lib/perl/TFile.pm).

One player a line, numbered from 1 in file order:
    `Last, First    1500 3 0 7; 412 350 00; board 2 1 5; p12 1 0 2`
- the lines are split at any run of CR and LF; a UTF-8 byte-order mark is dropped; a line that
  starts with `#` is a comment; surrounding space is trimmed and an empty line skipped (none
  of them is a player); a line without `;` gets one at its end; `; # N` at the end is dropped;
- the line pattern: name (up to the last non-space before the rating), rating (digits, maybe
  with `.` or `+` parts), the opponents by number (0: a bye), `;`, the scores (digits and
  `-`), then `;`-separated extra fields, each a tag and its words (`board`, `p12`, `id`, ...;
  a backslash escapes `\\` and `;`);
- `00` stands for undefined in every list (a round not paired or not scored yet).
TSH reads `.t` files as ISO-8859-1 unless `config tfile_encoding` says otherwise (the Polish
realm says utf8).
"""

from __future__ import annotations

import re

from adjudicator.hall.tsh.event import (
    MAX_PLAYERS,
    Division,
    Player,
    TshError,
    cross_tables_id,
    player_name,
    whole,
)

# TFile.pm's 'scrabble' line pattern,
#   ^(.+?\S)\s+(\d+(?:[.+]\d+)*)\s*([\d\s]*);\s*([-\d\s]*)((?:;[^;]*)*)$
# matched by `_fields` in one pass (the pattern tries every end of the lazy name, each time
# scanning on: quadratic on a long line that does not match).
_RATING = re.compile(r"\d+(?:[.+]\d+)*")
_HEAD_CHAR = re.compile(r"[\s\d.+]")
_WORD = re.compile(r"\S+")
_SCORES = re.compile(r"[-\d\s]*")
_SEQUENCE_NUMBER = re.compile(r"; # \d+\s*$")


def read(
    data: bytes,
    division: str,
    file_name: str,
    encoding: str = "iso-8859-1",
) -> Division:
    """Division `division` from its `.t` file's bytes, or TshError naming the line."""
    text = _decode(data, encoding, file_name)
    players = []
    for line_number, line in enumerate(re.split(r"[\r\n]+", text), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        number = len(players) + 1
        if number > MAX_PLAYERS:
            raise TshError(f"{file_name} has more than {MAX_PLAYERS} players: more than TSH runs.")
        players.append(_player(stripped, number, division, f"{file_name}, line {line_number}"))
    return Division(division, tuple(players))


def _decode(data: bytes, encoding: str, file_name: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data, encoding = data[3:], "utf-8"
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        raise TshError(
            f"{file_name} is not {encoding} text: set `config tfile_encoding` as TSH reads it."
        ) from None
    return text.lstrip("\ufeff")


def _player(line: str, number: int, division: str, where: str) -> Player:
    if ";" not in line:
        line += ";"
    line = _SEQUENCE_NUMBER.sub(";", line)
    found = _fields(line)
    if found is None:
        raise TshError(
            f"{where} is not a TSH player line (name, rating, opponents; scores): {line[:60]!r}."
        )
    raw_name, pairings, scores, extras = found
    who = f"Player {number} of division {division} ({where})"
    name, xtid = player_name(raw_name, who)
    fields = _extras(extras)
    xtid = xtid or cross_tables_id((fields.get("xtid") or [None])[0])
    return Player(
        number,
        name,
        xtid,
        _words_as_numbers(pairings.split(), f"{who}'s opponents"),
        tuple(word != "00" for word in scores.split()),
        _words_as_numbers(fields.get("board", []), f"{who}'s boards"),
        _words_as_numbers(fields.get("p12", []), f"{who}'s firsts (p12)"),
    )


def _fields(line: str) -> tuple[str, str, str, str] | None:
    """The name, opponents, scores and extra fields of a player line, as TFile.pm's pattern
    splits it, or None if it does not match. The name is the shortest that lets the rest
    match: before each `;` in turn, the name ends where the rating starts, the rating being
    the word before only opponents' numbers; after that `;`, the scores run to the next `;`
    (or the end). Each stretch of the line is looked at once."""
    start = 0
    while True:
        semicolon = line.find(";", start)
        if semicolon < 0:
            return None
        head = _head(line, start, semicolon)
        after = line.find(";", semicolon + 1)
        end = len(line) if after < 0 else after
        if head is not None and _SCORES.fullmatch(line, semicolon + 1, end):
            name_end, rating_end = head
            return (
                line[:name_end],
                line[rating_end:semicolon],
                line[semicolon + 1 : end],
                line[end:],
            )
        start = semicolon + 1


def _head(line: str, start: int, semicolon: int) -> tuple[int, int] | None:
    """Where the name ends and where the rating ends, before `semicolon`: the name (two
    characters or more, ending in a non-space), space, the rating, then only digits and space.
    The rating is the first word that can be one at or after the last word that is not plain
    digits, in the stretch of digits, spaces, points and pluses ending at the `;`."""
    stretch = semicolon
    while stretch > start and _HEAD_CHAR.match(line, stretch - 1):
        stretch -= 1
    words = list(_WORD.finditer(line, stretch, semicolon))
    last_odd = max((i for i, word in enumerate(words) if not word.group().isdecimal()), default=0)
    for index in range(last_odd, len(words)):
        word = words[index]
        name_end = words[index - 1].end() if index else stretch
        if word.start() == name_end or name_end < 2 or not _RATING.fullmatch(word.group()):
            continue  # glued to the name (no space between), a name too short, not a rating
        return name_end, word.end()
    return None


def _words_as_numbers(words: list[str | None], where: str) -> tuple[int | None, ...]:
    return tuple(
        None if word is None or word == "00" else whole(word, f"{where}, round {index + 1}")
        for index, word in enumerate(words)
    )


def _extras(text: str) -> dict[str, list[str | None]]:
    """The `;tag word word` fields after the scores (TFile::ParseLine: `\\` escapes `\\` and
    `;`; a field of spaces only is skipped; `00` is undefined)."""
    fields: dict[str, list[str | None]] = {}
    for field in _split_unescaped(text):
        words = field.split()
        if words:
            fields[words[0]] = [None if word == "00" else word for word in words[1:]]
    return fields


def _split_unescaped(text: str) -> list[str]:
    parts, current, index = [], [], 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] in "\\;":
            current.append(text[index + 1])
            index += 2
            continue
        if char == ";":
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return parts
