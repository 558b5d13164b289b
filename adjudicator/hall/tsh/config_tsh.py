"""TSH's event configuration, `config.tsh`, read for what the hall needs (TSH::Config::Read,
lib/perl/TSH/Config.pm).

Line by line: a UTF-8 byte-order mark on the first line; `#begin_file name=F` ... `#end_file
name=F` holds file F's text (an archive carries its `.t` files so); `#` starts a comment;
blank lines are skipped; `encoding X` sets how the rest is read; `division NAME FILE` adds a
division; `config KEY = VALUE` and `config KEY{SUB} = VALUE` set an option, VALUE being a Perl
expression (TSH evaluates it; the sub-key is upper-cased); `perl`, `begin`, `classes`,
`autopair` and `prize` lines are TSH's own; any other line makes TSH stop, and is refused here.

Of the options, the hall reads `event_name`, `tables` (the hall's table for each division's
boards), `table_method` (`consecutive`: numbered across divisions, TSH::Config::AssignTables),
`tfile_encoding` and `realm` (the Polish realm reads `.t` files as UTF-8). Their values are read
as the Perl literals TSH's documentation uses: strings, numbers, `undef`, lists with ranges
(`[1..10]`), `qw(...)` and hashes (`{'A' => [...]}`); a value beyond that is refused with the
line, for these options only.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import Any

from adjudicator.hall.tsh.event import TshError, canonical_division

WANTED = ("event_name", "tables", "table_method", "tfile_encoding", "realm")
# TSH::Config's realm defaults for how `.t` files are read.
REALM_ENCODINGS = {"pol": "utf-8", "thai": "cp874"}
_PERL_ENCODINGS = {"isolatin1": "iso-8859-1", "utf8": "utf-8", "windows874": "cp874"}
_OWN_LINES = re.compile(r"^(?:perl|begin|classes|autopair|prize)\b", re.I)
_CONFIG = re.compile(r"^config\s+(\w+)\s*((?:(?:\[[^]]+\])|(?:\{[^}]+\}))*)\s*=\s*(.*)$", re.I)
_MAX_RANGE = 10_000
_MAX_DEPTH = 32  # lists in hashes in lists...: TSH's options nest two deep


@dataclass
class Config:
    """What the hall takes from config.tsh."""

    divisions: list[tuple[str, str]] = field(default_factory=list)  # (name, .t file)
    options: dict[str, Any] = field(default_factory=dict)
    attachments: dict[str, str] = field(default_factory=dict)  # file name (lower case) -> text

    def tfile_encoding(self) -> str:
        """How TSH reads this event's `.t` files."""
        given = self.options.get("tfile_encoding")
        if not given:
            return REALM_ENCODINGS.get(str(self.options.get("realm") or "").lower(), "iso-8859-1")
        key = re.sub(r"[-_\s]", "", str(given)).lower()
        encoding = _PERL_ENCODINGS.get(key, str(given))
        try:
            codecs.lookup(encoding)
        except (LookupError, ValueError):
            raise TshError(
                f"config tfile_encoding names {str(given)[:40]!r}, an encoding the hall does "
                "not know: write the one TSH reads the .t files in (utf8, isolatin1, ...)."
            ) from None
        return encoding


def read(data: bytes, file_name: str = "config.tsh") -> Config:
    """The divisions and options of a config.tsh, or TshError naming the line TSH would stop at."""
    config = Config()
    lines = _decode(data).split("\n")
    index = 0
    while index < len(lines):
        number, line = index + 1, lines[index].rstrip("\r")
        index += 1
        attached = re.match(r"^#begin_file\s+(.+)", line)
        if attached:
            name = _attachment_name(attached.group(1), f"{file_name}, line {number}")
            end, text = line.replace("begin", "end", 1), []
            while index < len(lines) and lines[index].rstrip("\r") != end:
                text.append(lines[index].rstrip("\r"))
                index += 1
            index += 1
            config.attachments[name.lower()] = "\n".join(text) + "\n"
            continue
        _line(config, line, f"{file_name}, line {number}")
    if not config.divisions:
        raise TshError(
            f"{file_name} names no division (`division A a.t`): it is not TSH's configuration."
        )
    return config


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso-8859-1")  # Perl reads the bytes as they are


def _attachment_name(options: str, where: str) -> str:
    found = re.search(r"\bname=(?:'([^']*)'|\"([^\"]*)\"|(\S+))", options)
    if not found:
        raise TshError(f"{where}: #begin_file without name=: not TSH's configuration.")
    return next(group for group in found.groups() if group is not None)


def _line(config: Config, raw: str, where: str) -> None:
    line = re.sub(r"^\s*#.*", "", raw).strip()
    if not line or re.match(r"^encoding\s", line, re.I) or _OWN_LINES.match(line):
        return
    division = re.match(r"^division\s+(\S+)\s+(.*)$", line, re.I)
    if division:
        config.divisions.append((canonical_division(division.group(1)), division.group(2).strip()))
        return
    option = _CONFIG.match(line)
    if option is None:
        raise TshError(f"{where} is not a line TSH reads ({line[:60]!r}): not TSH's configuration.")
    key, subkey, value = option.group(1).lower(), option.group(2), option.group(3)
    if key not in WANTED:
        return
    value = re.sub(r"\s*;\s*$", "", value)
    try:
        parsed = PerlLiteral(value).value()
    except TshError as exc:
        raise TshError(
            f"{where}: config {key} {exc}. The hall cannot read {value[:40]!r}: it reads plain "
            "values (strings, numbers, lists such as [1..10], hashes such as {'A' => [1..10]}). "
            "Write it so, or link the tourney.js TSH publishes."
        ) from None
    if subkey:
        sub = PerlLiteral(subkey.strip()[1:-1]).key()
        target = config.options.setdefault(key, {})
        if not isinstance(target, dict):
            target = config.options[key] = {}
        target[sub.upper()] = parsed
    else:
        config.options[key] = parsed


class PerlLiteral:
    """The Perl literals TSH's documentation writes as option values (and nothing else)."""

    _TOKEN = re.compile(
        r"\s*(?:(=>|\.\.|[\[\]{}(),])|'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\""
        r"|(-?\d+(?:\.\d+)?)|qw\s*\(([^)]*)\)|(undef)\b|([A-Za-z_]\w*))",
        re.S,
    )

    def __init__(self, text: str):
        self.tokens = self._tokens(text)
        self.at = 0
        self.depth = 0

    def _tokens(self, text: str) -> list[tuple[str, Any]]:
        tokens, index = [], 0
        while index < len(text):
            if text[index:].strip() == "":
                break
            found = self._TOKEN.match(text, index)
            if found is None:
                raise TshError(f"has a value the hall cannot read ({text[index : index + 30]!r})")
            punct, single, double, number, words, undef, bare = found.groups()
            if punct:
                tokens.append(("p", punct))
            elif single is not None:
                tokens.append(("s", re.sub(r"\\([\\'])", r"\1", single)))
            elif double is not None:
                tokens.append(("s", re.sub(r"\\(.)", r"\1", double)))
            elif number is not None:
                tokens.append(("n", float(number) if "." in number else int(number)))
            elif words is not None:
                tokens.append(("w", words.split()))
            elif undef:
                tokens.append(("u", None))
            else:
                tokens.append(("b", bare))
            index = found.end()
        return tokens

    def value(self) -> Any:
        """The whole text as one value."""
        result = self._value()
        if self.at != len(self.tokens):
            raise TshError("has more than one value: the hall reads plain Perl literals")
        return result

    def key(self) -> str:
        """A hash key: a quoted string, a bareword or a number."""
        kind, token = self._next()
        if kind not in ("s", "b", "n") or self.at != len(self.tokens):
            raise TshError("has a key the hall cannot read")
        return str(token)

    def _next(self) -> tuple[str, Any]:
        if self.at >= len(self.tokens):
            raise TshError("ends early")
        token = self.tokens[self.at]
        self.at += 1
        return token

    def _peek(self, *punct: str) -> bool:
        return self.at < len(self.tokens) and self.tokens[self.at] in [("p", p) for p in punct]

    def _value(self) -> Any:
        kind, token = self._next()
        if kind in ("s", "n", "u"):
            return token
        if kind == "w":
            return list(token)
        if (kind, token) == ("p", "["):
            return self._items("]")
        if (kind, token) == ("p", "("):
            return self._items(")")
        if (kind, token) == ("p", "{"):
            items = self._items("}", pairs=True)
            return {str(items[i]): items[i + 1] for i in range(0, len(items) - 1, 2)}
        raise TshError(f"has {token!r} where a value should be")

    def _items(self, close: str, pairs: bool = False) -> list[Any]:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise TshError("nests lists or hashes too deeply")
        items: list[Any] = []
        while not self._peek(close):
            if pairs and self.at < len(self.tokens) and self.tokens[self.at][0] == "b":
                items.append(self._next()[1])  # a bareword key
            else:
                item = self._value()
                if self._peek(".."):
                    self.at += 1
                    last = self._value()
                    items.extend(_range(item, last))
                else:
                    items.append(item)
            if not (self._peek(",") or self._peek("=>")):
                break
            self.at += 1
        kind, token = self._next()
        if (kind, token) != ("p", close):
            raise TshError(f"has {token!r} where {close!r} should be")
        if pairs and len(items) % 2:
            raise TshError("has a hash with a key but no value")
        self.depth -= 1
        return items


def _range(first: Any, last: Any) -> list[int]:
    if not isinstance(first, int) or not isinstance(last, int):
        raise TshError("has a range of non-numbers")
    if last - first > _MAX_RANGE:
        raise TshError("has a range too long to be tables")
    return list(range(first, last + 1))


def division_tables(config: Config, players_per_division: dict[str, int]) -> dict[str, Any]:
    """Each division's tables map as TSH sets it (TSH::Config::AssignTables): `tables` as
    given (a list is the only division's), or numbered consecutively across the divisions in
    name order when `table_method` is `consecutive` (each gets int(players/2)+1 tables from
    where the last left off, and the next starts int(players/2) on)."""
    tables = config.options.get("tables")
    mapped: dict[str, Any] = {}
    if isinstance(tables, list):
        if len(config.divisions) == 1:
            mapped[config.divisions[0][0]] = tables
    elif isinstance(tables, dict):
        mapped = {canonical_division(name): boards for name, boards in tables.items()}
    elif tables is not None:
        raise TshError("config tables is neither a list nor a hash: fix it in config.tsh.")
    method = config.options.get("table_method")
    if method is None and str(config.options.get("realm") or "").lower() == "absp":
        method = "consecutive"  # TSH::Config::RealmDefaults
    if str(method or "").lower() == "consecutive":
        base = 1
        for name in sorted(players_per_division):
            boards = players_per_division[name] // 2
            mapped[name] = list(range(base, base + boards + 1))
            base += boards
    return mapped
