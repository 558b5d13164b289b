"""The recipe file: a TOML file that says how to build one lexicon from others (ARCHITECTURE.md).

Read and checked here, every problem named with the key and what it may be; built by
adjudicator.words.recipe. A recipe names its sources (word-list files beside it, or compiled
lexicons in the store), lists of words to add and to remove, optionally a referral rule
(`refer_longer_than = N`, and `refer_even_if_listed = true`), the alphabet, and how to treat a
source's capitalised or unspellable lines.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from adjudicator.errors import ImportRefused, LexiconError
from adjudicator.textcheck import DESCRIPTION_MAX, TextError, check_text
from adjudicator.words.alphabet import ENGLISH, Alphabet
from adjudicator.words.alphabet_files import resolve_alphabet, toml_message
from adjudicator.words.store import check_name

KEYS = (
    "name",
    "description",
    "sources",
    "add",
    "remove",
    "refer_longer_than",
    "alphabet",
    "drop_capitalised",
    "skip_invalid",
    "tournament_list",
    "refer_even_if_listed",
)
REQUIRED = ("name", "sources")
REFER_MIN, REFER_MAX = 2, 15


class RecipeError(ImportRefused):
    """A recipe cannot be read or built: bad TOML, unknown keys, missing lists, bad words."""


@dataclass(frozen=True)
class Recipe:
    """A parsed, validated recipe; list entries are still unresolved names or paths."""

    path: Path
    text: str
    name: str
    sources: tuple[str, ...]
    description: str = ""
    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()
    refer_longer_than: int = 0
    alphabet: Alphabet = ENGLISH
    drop_capitalised: bool = False  # leave out source entries with a capital letter
    skip_invalid: bool = False  # leave out source lines that do not spell in the alphabet
    tournament_list: bool = True
    refer_even_if_listed: bool = False

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def find_recipe(spec: str | Path) -> Path:
    """The recipe file `spec`, or the shipped recipe of that name in lexicons/recipes/."""
    path = Path(spec)
    if path.is_file():
        return path
    if path.name == str(spec):
        shipped = resources.files("lexicons").joinpath("recipes", path.with_suffix(".toml").name)
        if shipped.is_file():
            return Path(str(shipped))
    raise RecipeError(
        f"No recipe file {spec}: give the path of a .toml recipe, or the name of a shipped recipe "
        f"({', '.join(shipped_recipes()) or 'none'})."
    )


def shipped_recipes() -> list[str]:
    """Names of the recipes shipped in lexicons/recipes/."""
    folder = resources.files("lexicons").joinpath("recipes")
    if not folder.is_dir():
        return []
    return sorted(item.name[:-5] for item in folder.iterdir() if item.name.endswith(".toml"))


def load_recipe(path: str | Path) -> Recipe:
    """Read and validate the recipe at `path` (or a shipped recipe's name)."""
    path = find_recipe(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecipeError(f"Cannot read recipe {path}: {exc}.") from None
    return parse_recipe(text, path)


def parse_recipe(text: str, path: Path) -> Recipe:
    """Validate recipe `text` (read from `path`), raising RecipeError naming the problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RecipeError(f"Recipe {path.name} is not valid TOML: {exc}.") from None
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise RecipeError(
            f"Recipe {path.name} has unknown key(s) {', '.join(unknown)}: "
            f"a recipe may have {', '.join(KEYS)}."
        )
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise RecipeError(f"Recipe {path.name} needs {' and '.join(missing)}.")
    name = _string(data, "name", path)
    try:
        check_name(name)
    except LexiconError as exc:
        raise RecipeError(f"Recipe {path.name}: {exc}") from None
    sources = _string_list(data, "sources", path)
    if not sources:
        raise RecipeError(f"Recipe {path.name}: sources is empty; name a list or a lexicon.")
    return Recipe(
        path=path,
        text=text,
        name=name,
        sources=sources,
        description=_description(data, path),
        add=_string_list(data, "add", path),
        remove=_string_list(data, "remove", path),
        refer_longer_than=_refer(data, path),
        alphabet=_alphabet(data, path),
        drop_capitalised=_flag(data, "drop_capitalised", path, False),
        skip_invalid=_flag(data, "skip_invalid", path, False),
        tournament_list=_flag(data, "tournament_list", path, True),
        refer_even_if_listed=_refer_even_if_listed(data, path),
    )


def _description(data: dict, path: Path) -> str:
    if "description" not in data:
        return ""
    try:
        return check_text(_string(data, "description", path), "description", DESCRIPTION_MAX)
    except TextError as exc:
        raise RecipeError(f"Recipe {path.name}: {exc}") from None


def _string(data: dict, key: str, path: Path) -> str:
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise RecipeError(f"Recipe {path.name}: {key} must be a non-empty string, not {value!r}.")
    return value.strip()


def _string_list(data: dict, key: str, path: Path) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise RecipeError(
            f"Recipe {path.name}: {key} must be a list of file paths or lexicon names, "
            f'such as ["TWL06", "extra.txt"], not {value!r}.'
        )
    return tuple(v.strip() for v in value)


def _refer(data: dict, path: Path) -> int:
    value = data.get("refer_longer_than", 0)
    if "refer_longer_than" in data and (
        isinstance(value, bool) or not isinstance(value, int) or not REFER_MIN <= value <= REFER_MAX
    ):
        raise RecipeError(
            f"Recipe {path.name}: refer_longer_than must be a whole number from {REFER_MIN} to "
            f"{REFER_MAX} (a missing word longer than that goes to a word judge), not {value!r}."
        )
    return value


def _alphabet(data: dict, path: Path) -> Alphabet:
    if "alphabet" not in data:
        return ENGLISH
    try:
        return resolve_alphabet(_string(data, "alphabet", path), path.parent)
    except ImportRefused as exc:
        raise RecipeError(f"Recipe {path.name}: {exc}") from None


def _flag(data: dict, key: str, path: Path, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise RecipeError(f"Recipe {path.name}: {key} must be true or false, not {value!r}.")
    return value


def _refer_even_if_listed(data: dict, path: Path) -> bool:
    value = _flag(data, "refer_even_if_listed", path, False)
    if value and not data.get("refer_longer_than"):
        raise RecipeError(
            f"Recipe {path.name}: refer_even_if_listed needs refer_longer_than = N (the words "
            "longer than N letters that go to a dictionary check)."
        )
    return value


def extract_descriptions(fileobj, keywords, comment_tags, options):
    """Babel's extractor for the shipped recipes (babel.cfg): each one's `description`, which a
    kiosk shows beside the lexicon's name in the tournament's language where it is translated
    (and leaves out where it is not)."""
    yield from toml_message(
        fileobj, "description", "A lexicon's description, beside its name on a kiosk"
    )
