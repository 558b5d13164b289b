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

# TFile.pm's 'scrabble' line pattern.
LINE = re.compile(r"^(.+?\S)\s+(\d+(?:[.+]\d+)*)\s*([\d\s]*);\s*([-\d\s]*)((?:;[^;]*)*)$")
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
    found = LINE.match(line)
    if found is None:
        raise TshError(
            f"{where} is not a TSH player line (name, rating, opponents; scores): {line[:60]!r}."
        )
    raw_name, _rating, pairings, scores, extras = found.groups()
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
