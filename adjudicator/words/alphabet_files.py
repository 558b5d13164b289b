"""Alphabet definitions: the built-in ones and a federation's own TOML file, checked.

Built-in alphabets live in lexicons/alphabets/NAME.toml (english, A-Z, is defined in code).
A federation's file has the same shape (ARCHITECTURE.md, "Alphabets"):

    name = "swedish-club"
    tiles = ["A", "B", ..., "Å", "Ä", "Ö"]
    fold = { "É" = "E" }      # optional: text read as other tiles (accents the tiles lack)
    case = { "ı" = "I" }      # optional: lower/upper pairs beyond Unicode's default
    language = "sv"           # optional: tr, az and el get their own upper case
    description = "..."       # optional
    title = "Swedish"         # optional: the name a person reads (else `name`)
    [word_graph]              # optional: a Zyzzyva graph's characters for tiles (word_graph.py)
    "1" = "CH"
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import replace
from functools import cache, lru_cache
from pathlib import Path

from adjudicator.errors import ImportRefused
from adjudicator.words import word_graph
from adjudicator.words.alphabet import (
    ENGLISH,
    MAX_FOLD_CHARS,
    MAX_TILE_CHARS,
    MAX_TILES,
    Alphabet,
    SpellingError,
)

TYPE_CHECKING = False  # typing, tomllib and importlib.resources cost `adjudicator judge` ms
if TYPE_CHECKING:
    from typing import Any

KEYS = ("name", "tiles", "fold", "case", "language", "description", "word_graph", "title")
TITLE_MAX = 60
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}")
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{1,8})*")
_RESERVED = frozenset("[],#")  # brackets mark tiles; commas separate words; # starts a comment
_REFUSED_CATEGORIES = ("Z", "C")  # separators, controls, format, private use, unassigned


class AlphabetError(ImportRefused):
    """An alphabet cannot be found or its definition is not usable."""


def builtin_names() -> list[str]:
    """The built-in alphabets: english first, then the shipped files, sorted."""
    return ["english", *sorted(_shipped())]


def builtin(name: str) -> Alphabet | None:
    """The built-in alphabet called `name`, if there is one."""
    if name == "english":
        return ENGLISH
    text = _shipped().get(name)
    if text is None:
        return None
    return _parse_shipped(name, text)


def resolve_alphabet(spec: str, folder: Path | None = None) -> Alphabet:
    """A built-in alphabet by name, else the alphabet TOML file at `spec` (relative to `folder`)."""
    spec = (spec or "").strip()
    found = builtin(spec)
    if found is not None:
        return found
    path = Path(spec)
    if folder is not None and not path.is_absolute():
        path = folder / path
    if spec and path.is_file():
        return load_alphabet_file(path)
    raise AlphabetError(
        f"No alphabet {spec!r}: name a built-in alphabet ({', '.join(builtin_names())}) "
        "or give the path of an alphabet TOML file (name and tiles)."
    )


def load_alphabet_file(path: Path) -> Alphabet:
    """Read and check a federation's alphabet file."""
    import tomllib

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AlphabetError(f"Cannot read alphabet file {path}: {exc}.") from None
    try:
        lines = word_graph.table_lines(text)
        data = tomllib.loads(text)
    except word_graph.TableError as exc:
        raise AlphabetError(f"Alphabet file {Path(path).name}, {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise AlphabetError(f"Alphabet file {Path(path).name} is not valid TOML: {exc}.") from None
    alphabet = parse_alphabet(data, Path(path).name, word_graph_lines=lines)
    if builtin(alphabet.name) is not None:
        raise AlphabetError(
            f"Alphabet file {Path(path).name}: the name {alphabet.name!r} belongs to a built-in "
            "alphabet; give your alphabet a name of its own, such as "
            f"{alphabet.name + '-club'!r}."
        )
    return alphabet


def from_manifest(data: dict[str, Any]) -> Alphabet:
    """The alphabet a manifest records (english when it records none); ValueError if unusable.
    A built-in alphabet recorded before titles has its title from the program (a federation's
    file cannot take a built-in's name)."""
    if not data:
        return ENGLISH
    if not isinstance(data, dict):
        raise ValueError("its alphabet is not an object")
    return _from_json(json.dumps(data, sort_keys=True, ensure_ascii=False))


def extract_titles(fileobj, keywords, comment_tags, options):
    """Babel's extractor for the built-in alphabet files (babel.cfg): each file's `title`, a
    message for the catalogues."""
    yield from toml_message(
        fileobj, "title", "An alphabet's name, as in “the tiles of the alphabet {name}”"
    )


def toml_message(fileobj, key: str, comment: str):
    """One shipped TOML file's text under `key`, as Babel's extractors yield a message (with a
    comment for the translators): alphabets' titles, recipes' descriptions."""
    import tomllib

    text = fileobj.read().decode("utf-8")
    value = tomllib.loads(text).get(key)
    if isinstance(value, str) and value:
        line = next((n for n, row in enumerate(text.splitlines(), 1) if row.startswith(key)), 1)
        yield line, None, value, [comment]


@lru_cache(maxsize=64)
def _from_json(text: str) -> Alphabet:
    try:
        alphabet = parse_alphabet(json.loads(text), "the manifest")
    except AlphabetError as exc:
        raise ValueError(str(exc)) from None
    program = None if alphabet.title else builtin(alphabet.name)
    return replace(alphabet, title=program.title) if program is not None else alphabet


@cache
def _shipped() -> dict[str, str]:
    from importlib import resources

    folder = resources.files("lexicons").joinpath("alphabets")
    if not folder.is_dir():
        return {}
    return {
        item.name[:-5]: item.read_text(encoding="utf-8")
        for item in folder.iterdir()
        if item.name.endswith(".toml")
    }


@cache
def _parse_shipped(name: str, text: str) -> Alphabet:
    import tomllib

    return parse_alphabet(
        tomllib.loads(text), f"{name}.toml", word_graph_lines=word_graph.table_lines(text)
    )


def parse_alphabet(
    data: dict[str, Any], source: str, *, word_graph_lines: dict[str, int] | None = None
) -> Alphabet:
    """Check an alphabet definition (parsed TOML or JSON) and build it; `word_graph_lines`
    gives the file's line of each `[word_graph]` key, to name it in a refusal."""
    if not isinstance(data, dict):
        raise AlphabetError(f"Alphabet {source}: the definition must be a table.")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise AlphabetError(
            f"Alphabet {source} has unknown key(s) {', '.join(unknown)}: "
            f"an alphabet may have {', '.join(KEYS)}."
        )
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise AlphabetError(
            f"Alphabet {source}: name must be 1-40 lower-case letters, digits, '.', '-' or '_', "
            f"such as 'swedish-club', not {name!r}."
        )
    tiles = _tiles(data.get("tiles"), source)
    fold = _fold(data.get("fold", {}), tiles, source)
    case = _case(data.get("case", {}), source)
    language = data.get("language", "")
    if not isinstance(language, str) or (language and not _LANGUAGE.fullmatch(language)):
        raise AlphabetError(
            f"Alphabet {source}: language must be a language code such as 'pl', not {language!r}."
        )
    description = data.get("description", "")
    if not isinstance(description, str) or len(description) > 200:
        raise AlphabetError(
            f"Alphabet {source}: description must be text of 200 characters or less."
        )
    title = _title(data.get("title", ""), source)
    try:
        graph = word_graph.check_table(
            data.get("word_graph", {}), tiles, word_graph_lines or {}, upper_text
        )
    except word_graph.TableError as exc:
        raise AlphabetError(f"Alphabet {source}, {exc}") from None
    alphabet = Alphabet(name, tiles, fold, case, language, description.strip(), graph, title)
    _check_folds_spell(alphabet, source)
    _check_case_targets(alphabet, source)
    _check_tiles_read_as_themselves(alphabet, source)
    return alphabet


def _title(value: Any, source: str) -> str:
    if not isinstance(value, str) or len(value.strip()) > TITLE_MAX:
        raise AlphabetError(
            f"Alphabet {source}: title must be text of {TITLE_MAX} characters or less, such "
            "as 'Swedish'."
        )
    if any(unicodedata.category(char)[0] == "C" for char in value):
        raise AlphabetError(f"Alphabet {source}: title holds an invisible or control character.")
    return value.strip()


def upper_text(text: str) -> str:
    """NFC upper case, letter by letter; a letter whose upper case is not one letter stays."""
    text = unicodedata.normalize("NFC", text)
    return unicodedata.normalize(
        "NFC", "".join(c.upper() if len(c.upper()) == 1 else c for c in text)
    )


def _tiles(value: Any, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(tile, str) for tile in value):
        raise AlphabetError(
            f'Alphabet {source}: tiles must be a list of letters, such as ["A", "B", "CH"].'
        )
    if not 2 <= len(value) <= MAX_TILES:
        raise AlphabetError(f"Alphabet {source}: give 2 to {MAX_TILES} tiles, not {len(value)}.")
    tiles = tuple(upper_text(tile.strip()) for tile in value)
    seen: set[str] = set()
    for given, tile in zip(value, tiles, strict=True):
        if not 1 <= len(tile) <= MAX_TILE_CHARS:
            raise AlphabetError(
                f"Alphabet {source}: tile {given!r} must be 1 to {MAX_TILE_CHARS} characters."
            )
        _check_characters(tile, f"tile {given!r}", source)
        if not any(unicodedata.category(char).startswith("L") for char in tile):
            raise AlphabetError(f"Alphabet {source}: tile {given!r} has no letter.")
        if tile in seen:
            raise AlphabetError(f"Alphabet {source}: tile {tile!r} is listed twice.")
        seen.add(tile)
    return tiles


def _fold(value: Any, tiles: tuple[str, ...], source: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise AlphabetError(
            f'Alphabet {source}: fold must be a table of text to tiles, such as {{ "É" = "E" }}.'
        )
    pairs = []
    for given, target in value.items():
        text = upper_text(given.strip())
        if not 1 <= len(text) <= MAX_FOLD_CHARS:
            raise AlphabetError(
                f"Alphabet {source}: fold {given!r} must be 1 to {MAX_FOLD_CHARS} characters."
            )
        _check_characters(text, f"fold {given!r}", source)
        if text in tiles:
            raise AlphabetError(
                f"Alphabet {source}: fold {given!r} is a tile; a tile is never read as another."
            )
        target = upper_text(target.strip())
        if not 1 <= len(target) <= MAX_FOLD_CHARS:
            raise AlphabetError(
                f"Alphabet {source}: fold {given!r} reads as {target!r}; a fold reads as 1 to "
                f"{MAX_FOLD_CHARS} characters of tiles."
            )
        pairs.append((text, target))
    return tuple(pairs)


def _case(value: Any, source: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and len(k) == 1 and len(v) == 1
        for k, v in value.items()
    ):
        raise AlphabetError(
            f"Alphabet {source}: case must pair one lower-case letter with one upper-case "
            'letter, such as { "ı" = "I" }.'
        )
    for lower, upper in value.items():
        _check_characters(lower + upper, f"case {lower!r}", source)
    return tuple(value.items())


def _check_characters(text: str, what: str, source: str) -> None:
    for char in text:
        if char in _RESERVED or unicodedata.category(char)[0] in _REFUSED_CATEGORIES:
            raise AlphabetError(
                f"Alphabet {source}: {what} holds {char!r} (U+{ord(char):04X}), which cannot be "
                "part of a tile: no spaces, brackets, commas, '#' or invisible characters."
            )


def _check_folds_spell(alphabet: Alphabet, source: str) -> None:
    plain = Alphabet(alphabet.name, alphabet.tiles)
    for given, target in alphabet.fold:
        try:
            plain.spell(target)
        except SpellingError:
            raise AlphabetError(
                f"Alphabet {source}: fold {given!r} reads as {target!r}, which is not spelled "
                "in the alphabet's tiles."
            ) from None


def _check_case_targets(alphabet: Alphabet, source: str) -> None:
    letters = {char for text in (*alphabet.tiles, *dict(alphabet.fold)) for char in text}
    for lower, upper in alphabet.case:
        if upper not in letters:
            raise AlphabetError(
                f"Alphabet {source}: case {lower!r} = {upper!r}, but {upper!r} is in no tile."
            )


def _check_tiles_read_as_themselves(alphabet: Alphabet, source: str) -> None:
    """Every tile typed in brackets must read as that tile, or it could never be typed."""
    for tile in alphabet.tiles:
        try:
            read = alphabet.spell(f"[{tile}]")
        except SpellingError:
            read = ()
        if read == (tile,):
            continue
        culprits = [f"fold {given!r}" for given, _ in alphabet.fold if given in tile]
        culprits += [f"case {lower!r}" for lower, _ in alphabet.case if lower in tile]
        cause = " and ".join(culprits) or "its folds and case pairs"
        raise AlphabetError(
            f"Alphabet {source}: the tile {tile!r} could never be typed: {cause} reads part of "
            "it as other letters. A fold or case pair must leave every tile as it is: remove it, "
            "or fold longer text that no tile holds."
        )
