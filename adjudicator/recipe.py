"""Lexicon recipes: a TOML file that builds one lexicon from others (ARCHITECTURE.md).

A recipe names its sources (word-list files beside it, or compiled lexicons in the store),
whose union is taken; lists of words to add and to remove; and optionally a referral rule
(`refer_longer_than = N`: a missing word of more than N letters gives REFER). The compiled
lexicon's manifest records the recipe's text and the count and fingerprint of every list.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from adjudicator import catalogue
from adjudicator.errors import ImportRefused, LexiconError
from adjudicator.importers import BadLine, read_limited, read_source, read_text
from adjudicator.lexicon import Manifest
from adjudicator.lexicon_import import (
    SHOW_BAD_LINES,
    check_against_catalogue,
    check_replacement,
)
from adjudicator.normalize import MAX_LETTERS, MIN_LETTERS
from adjudicator.store import LexiconStore, check_name
from adjudicator.textcheck import DESCRIPTION_MAX, TextError, check_text
from adjudicator.wordlist import WordSet

KEYS = ("name", "description", "sources", "add", "remove", "refer_longer_than")
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

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


@dataclass(frozen=True)
class ListRecord:
    """One list a recipe used: where it came from, its word count and fingerprint."""

    name: str
    kind: str  # "file" or "lexicon"
    words: int
    fingerprint: str
    sha256: str = ""  # of the file's bytes, for files

    def as_dict(self) -> dict[str, Any]:
        record = {
            "name": self.name,
            "kind": self.kind,
            "words": self.words,
            "fingerprint": self.fingerprint,
        }
        if self.sha256:
            record["sha256"] = self.sha256
        return record


@dataclass
class RecipeBuild:
    """The words a recipe gives and the record of how they were made."""

    recipe: Recipe
    words: WordSet
    sources: list[ListRecord] = field(default_factory=list)
    add: list[ListRecord] = field(default_factory=list)
    remove: list[ListRecord] = field(default_factory=list)
    added: int = 0  # words of the add lists that no source had
    removed: int = 0  # words of the remove lists that were there to remove
    not_there: int = 0  # words of the remove lists that no source (nor add list) had

    def record(self) -> dict[str, Any]:
        """What the manifest's `recipe` field holds."""
        return {
            "file": self.recipe.path.name,
            "sha256": self.recipe.sha256,
            "name": self.recipe.name,
            "text": self.recipe.text,
            "sources": [r.as_dict() for r in self.sources],
            "add": [r.as_dict() for r in self.add],
            "remove": [r.as_dict() for r in self.remove],
            "added": self.added,
            "removed": self.removed,
            "remove_not_there": self.not_there,
            "refer_longer_than": self.recipe.refer_longer_than,
        }


@dataclass
class RecipeSummary:
    manifest: Manifest
    build: RecipeBuild
    edition: catalogue.Edition | None = None


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


def build_recipe(store: LexiconStore, recipe: Recipe) -> RecipeBuild:
    """The union of the sources, plus the add lists, minus the remove lists."""
    union: set[str] = set()
    build = RecipeBuild(recipe, WordSet((), ""))
    for entry in recipe.sources:
        words, record = _read_source(store, recipe, entry)
        build.sources.append(record)
        union.update(words)
    additions: set[str] = set()
    for entry in recipe.add:
        words, record = _read_adjustments(recipe, entry, "add")
        build.add.append(record)
        additions.update(words)
    removals: set[str] = set()
    for entry in recipe.remove:
        words, record = _read_adjustments(recipe, entry, "remove")
        build.remove.append(record)
        removals.update(words)
    build.added = len(additions - union)
    union |= additions
    build.removed = len(removals & union)
    build.not_there = len(removals) - build.removed
    build.words = WordSet.of(union - removals)
    if not len(build.words):
        raise RecipeError(f"Recipe {recipe.path.name} gives no words: nothing to import.")
    return build


def _read_source(store: LexiconStore, recipe: Recipe, entry: str) -> tuple[list[str], ListRecord]:
    """A source is a file beside the recipe if one exists, else a compiled lexicon."""
    path = recipe.folder / entry
    if path.is_file():
        result = read_source(path, "auto")
        if result.bad_lines:
            raise _bad_lines(recipe, f"source {entry}", result.bad_lines, "words (A-Z only)")
        words = WordSet.of(result.words)
        return list(words.words), ListRecord(
            entry, "file", len(words), words.fingerprint, result.source_sha256
        )
    try:
        lexicon = store.open(entry)
    except LexiconError as exc:
        if _is_compiled(store, entry):
            raise RecipeError(f"Recipe {recipe.path.name}, source {entry!r}: {exc}") from None
        compiled = ", ".join(store.names()) or "none yet"
        raise RecipeError(
            f"Recipe {recipe.path.name}: source {entry!r} is neither a file beside the recipe "
            f"({path}) nor a compiled lexicon (compiled: {compiled}). "
            "Import it first, or fix the path."
        ) from None
    m = lexicon.manifest
    return list(lexicon), ListRecord(entry, "lexicon", m.words, m.fingerprint)


def _is_compiled(store: LexiconStore, entry: str) -> bool:
    try:
        return store.exists(entry)
    except LexiconError:  # not even a valid lexicon name, such as a path with a slash
        return False


def _read_adjustments(recipe: Recipe, entry: str, key: str) -> tuple[list[str], ListRecord]:
    """An add or remove list: a plain word-list file beside the recipe, one word a line."""
    path = recipe.folder / entry
    if not path.is_file():
        raise RecipeError(
            f"Recipe {recipe.path.name}: the {key} list {entry!r} cannot be read "
            f"(no such file); {key} lists are word-list files beside the recipe."
        )
    raw, sha = read_limited(path)
    words, bad = _words_with_lines(raw)
    if bad:
        raise _bad_lines(
            recipe,
            f"{key} list {entry}",
            bad,
            f"words of {MIN_LETTERS} to {MAX_LETTERS} letters A-Z",
        )
    unique = WordSet.of(words)
    return words, ListRecord(entry, "file", len(unique), unique.fingerprint, sha)


def _bad_lines(recipe: Recipe, what: str, bad: list[BadLine], expected: str) -> RecipeError:
    """The refusal for a list with lines that are not words, naming the first few by number."""
    shown = "\n".join(f"  {line}" for line in bad[:SHOW_BAD_LINES])
    more = f"\n  ... and {len(bad) - SHOW_BAD_LINES} more" if len(bad) > SHOW_BAD_LINES else ""
    return RecipeError(
        f"Recipe {recipe.path.name}: the {what} has {len(bad)} line(s) that are not "
        f"{expected}:\n{shown}{more}\nFix the list, then import the recipe again."
    )


def _words_with_lines(raw: bytes) -> tuple[list[str], list[BadLine]]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    words: list[str] = []
    bad: list[BadLine] = []
    for number, word, is_bad in read_text(text):
        if is_bad or not MIN_LETTERS <= len(word) <= MAX_LETTERS:
            bad.append(BadLine(number, word))
        else:
            words.append(word)
    return words, bad


def import_recipe(
    store: LexiconStore,
    path: str | Path,
    name: str | None = None,
    *,
    force: bool = False,
    description: str = "",
) -> RecipeSummary:
    """Build the recipe at `path`; compile it into `store` as `name`, else the recipe's name."""
    recipe = load_recipe(path)
    name = check_name(name or recipe.name)
    description = check_text(description, "lexicon description", DESCRIPTION_MAX)
    build = build_recipe(store, recipe)
    words = build.words
    edition = check_against_catalogue(store, name, words, force)
    check_replacement(store, name, words, force)
    _check_referral_change(store, name, recipe.refer_longer_than, force)
    matched = catalogue.by_fingerprint(words.fingerprint)
    manifest = store.save(
        name,
        words,
        description=description or recipe.description or (edition.title if edition else ""),
        source_file=recipe.path.name,
        source_sha256=recipe.sha256,
        source_format="recipe",
        verified=bool(edition and edition.fingerprint == words.fingerprint),
        catalogue_name=matched.name if matched else "",
        tournament_list=(matched or edition).tournament if (matched or edition) else True,
        refer_longer_than=recipe.refer_longer_than,
        recipe=build.record(),
    )
    return RecipeSummary(manifest, build, matched)


def _check_referral_change(store: LexiconStore, name: str, refer: int, force: bool) -> None:
    """Same words, different referral rule: verdicts would change, so ask for --force."""
    try:
        existing = store.manifest(name)
    except LexiconError:
        return
    if existing.refer_longer_than != refer and not force:
        raise RecipeError(
            f"Lexicon {name} already exists with {referral_text(existing.refer_longer_than)}; "
            f"this recipe has {referral_text(refer)}. Use --force to replace it."
        )


def referral_text(refer_longer_than: int) -> str:
    """The referral rule in words, as summaries and `lexicon show` print it."""
    if not refer_longer_than:
        return "no referral rule (a missing word of any length is UNACCEPTABLE)"
    return (
        f"a referral rule: a missing word of more than {refer_longer_than} letters gives REFER "
        f"(a word judge checks a dictionary) unless a word of {refer_longer_than} letters or "
        "fewer is missing too"
    )
