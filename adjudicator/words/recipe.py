"""Lexicon recipes built: the union of a recipe's sources, plus its add lists, minus its remove
lists, imported as one lexicon (the file itself is read by adjudicator.words.recipe_file).

A referral rule (`refer_longer_than = N`: a missing word of more than N letters gives REFER;
with `refer_even_if_listed = true`, every word of more than N letters does) goes into the
manifest, which also records the recipe's text and the count and fingerprint of every list.
"""

from __future__ import annotations

import tomllib
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from typing import Any

from adjudicator.errors import LexiconError
from adjudicator.textcheck import DESCRIPTION_MAX, check_text
from adjudicator.words import catalogue
from adjudicator.words.alphabet import Alphabet
from adjudicator.words.importers import BadLine, read_limited, read_source, read_words
from adjudicator.words.lexicon import Manifest
from adjudicator.words.lexicon_import import (
    SHOW_BAD_LINES,
    check_against_catalogue,
    check_replacement,
)
from adjudicator.words.normalize import MAX_LETTERS, MIN_LETTERS
from adjudicator.words.recipe_file import Recipe, RecipeError, load_recipe
from adjudicator.words.store import LexiconStore, check_name
from adjudicator.words.wordlist import WordSet


@dataclass(frozen=True)
class ListRecord:
    """One list a recipe used: where it came from, its word count and fingerprint."""

    name: str
    kind: str  # "file" or "lexicon"
    words: int
    fingerprint: str
    sha256: str = ""  # of the file's bytes, for files
    capitalised: int = 0  # entries left out for a capital letter (drop_capitalised)
    skipped: int = 0  # lines left out that do not spell in the alphabet (skip_invalid)

    def as_dict(self) -> dict[str, Any]:
        record = {
            "name": self.name,
            "kind": self.kind,
            "words": self.words,
            "fingerprint": self.fingerprint,
        }
        for key in ("sha256", "capitalised", "skipped"):
            if getattr(self, key):
                record[key] = getattr(self, key)
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
            "alphabet": self.recipe.alphabet.name,
            "refer_even_if_listed": self.recipe.refer_even_if_listed,
        }


@dataclass
class RecipeSummary:
    manifest: Manifest
    build: RecipeBuild
    edition: catalogue.Edition | None = None


def build_recipe(store: LexiconStore, recipe: Recipe) -> RecipeBuild:
    """The union of the sources, plus the add lists, minus the remove lists.

    Sources may hold millions of words: they stay sorted lists (no sets of them), and the
    union of one source with nothing added or removed is that source as it was read.
    """
    alphabet = recipe.alphabet
    build = RecipeBuild(recipe, WordSet((), "", alphabet))
    sources = []
    for entry in recipe.sources:
        words, record = _read_source(store, recipe, entry)
        build.sources.append(record)
        sources.append(words)
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
    union = sources[0]
    if len(sources) > 1:
        union = WordSet.take(list(chain.from_iterable(s.words for s in sources)), alphabet)
    present = _members(union.words, additions | removals)
    new = additions - present
    gone = removals & (present | additions)
    build.added, build.removed = len(new), len(gone)
    build.not_there = len(removals) - build.removed
    build.words = union
    if new or gone:
        kept = [word for word in union.words if word not in removals] if gone else union.words
        build.words = WordSet.take([*kept, *(new - removals)], alphabet)
    if not len(build.words):
        raise RecipeError(f"Recipe {recipe.path.name} gives no words: nothing to import.")
    return build


def _members(sorted_words: Sequence[str], probes: set[str]) -> set[str]:
    """The probes that are in `sorted_words` (binary search: no set of a big list)."""
    found = set()
    for probe in probes:
        index = bisect_left(sorted_words, probe)
        if index < len(sorted_words) and sorted_words[index] == probe:
            found.add(probe)
    return found


def _read_source(store: LexiconStore, recipe: Recipe, entry: str) -> tuple[WordSet, ListRecord]:
    """A source is a file beside the recipe if one exists, else a compiled lexicon."""
    path = recipe.folder / entry
    alphabet = recipe.alphabet
    if path.is_file():
        result = read_source(path, "auto", alphabet, drop_capitalised=recipe.drop_capitalised)
        if result.bad_lines and not recipe.skip_invalid:
            error = _bad_lines(recipe, f"source {entry}", result.bad_lines, _words_in(alphabet))
            raise RecipeError(f"{error} Or set skip_invalid = true to leave them out.")
        words = WordSet.take(result.words, alphabet)
        record = ListRecord(
            entry,
            "file",
            len(words),
            words.fingerprint,
            result.source_sha256,
            capitalised=result.capitalised,
            skipped=len(result.bad_lines),
        )
        return words, record
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
    if lexicon.alphabet != alphabet:
        raise RecipeError(
            f"Recipe {recipe.path.name}: source {entry!r} is spelled in the "
            f"{lexicon.alphabet.name} alphabet, this recipe in {alphabet.name}: "
            "set the recipe's alphabet to match."
        )
    return WordSet.take(list(lexicon), alphabet), ListRecord(
        entry, "lexicon", m.words, m.fingerprint
    )


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
    raw, sha = read_limited(path)  # gunzipped, never past the import limit
    words, bad = _words_with_lines(raw, recipe.alphabet)
    if bad:
        raise _bad_lines(
            recipe,
            f"{key} list {entry}",
            bad,
            _words_in(recipe.alphabet, f"{MIN_LETTERS} to {MAX_LETTERS}"),
        )
    unique = WordSet.of(words, recipe.alphabet)
    return words, ListRecord(entry, "file", len(unique), unique.fingerprint, sha)


def adjustment_fingerprint(recipe: Recipe, entry: str) -> str:
    """The fingerprint of the add or remove list `entry` beside `recipe`, as a build records
    it (so a manifest's recipe record can be matched against a shipped list)."""
    return _read_adjustments(recipe, entry, "remove")[1].fingerprint


def _bad_lines(recipe: Recipe, what: str, bad: list[BadLine], expected: str) -> RecipeError:
    """The refusal for a list with lines that are not words, naming the first few by number."""
    shown = "\n".join(f"  {line}" for line in bad[:SHOW_BAD_LINES])
    more = f"\n  ... and {len(bad) - SHOW_BAD_LINES} more" if len(bad) > SHOW_BAD_LINES else ""
    return RecipeError(
        f"Recipe {recipe.path.name}: the {what} has {len(bad)} line(s) that are not "
        f"{expected}:\n{shown}{more}\nFix the list, then import the recipe again."
    )


def _words_in(alphabet: Alphabet, length: str = "") -> str:
    """'words (A-Z only)', 'words of 2 to 15 letters A-Z', or the same in an alphabet's tiles."""
    if alphabet.is_english:
        return f"words of {length} letters A-Z" if length else "words (A-Z only)"
    if length:
        return f"words of {length} tiles of the {alphabet.name} alphabet"
    return f"words (tiles of the {alphabet.name} alphabet only)"


def _words_with_lines(raw: bytes, alphabet: Alphabet) -> tuple[list[str], list[BadLine]]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    lines = read_words(text, alphabet)
    words = [w for w in lines.words if MIN_LETTERS <= alphabet.tile_count(w) <= MAX_LETTERS]
    bad = list(lines.bad_lines)
    if len(words) < len(lines.words):  # find the lines of the words of the wrong length
        wrong = set(lines.words) - set(words)
        for number, line in enumerate(text.split("\n"), 1):
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                tiles = _spelled(alphabet, stripped)
                if tiles is not None and alphabet.canonical(tiles) in wrong:
                    bad.append(BadLine(number, stripped))
        bad.sort(key=lambda line: line.number)
    return words, bad


def _spelled(alphabet: Alphabet, text: str) -> tuple[str, ...] | None:
    try:
        return alphabet.spell(text)
    except ValueError:
        return None


def import_recipe(
    store: LexiconStore,
    path: str | Path,
    name: str | None = None,
    *,
    force: bool = False,
    description: str = "",
    alphabet: Alphabet | None = None,
) -> RecipeSummary:
    """Build the recipe at `path`; compile it into `store` as `name`, else the recipe's name.

    `alphabet` (from the command line) is the recipe's alphabet; it must agree with the
    recipe's own `alphabet` key when the recipe has one.
    """
    recipe = load_recipe(path)
    if alphabet is not None and alphabet != recipe.alphabet:
        if "alphabet" in tomllib.loads(recipe.text):
            raise RecipeError(
                f"Recipe {recipe.path.name} is spelled in the {recipe.alphabet.name} alphabet, "
                f"not {alphabet.name}: leave out --alphabet or change the recipe."
            )
        recipe = replace(recipe, alphabet=alphabet)
    name = check_name(name or recipe.name)
    description = check_text(description, "lexicon description", DESCRIPTION_MAX)
    build = build_recipe(store, recipe)
    words = build.words
    edition = check_against_catalogue(store, name, words, force)
    check_replacement(store, name, words, force)
    _check_referral_change(store, name, recipe, force)
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
        tournament_list=(matched or edition).tournament
        if (matched or edition)
        else recipe.tournament_list,
        refer_longer_than=recipe.refer_longer_than,
        refer_even_if_listed=recipe.refer_even_if_listed,
        recipe=build.record(),
    )
    return RecipeSummary(manifest, build, matched)


def _check_referral_change(store: LexiconStore, name: str, recipe: Recipe, force: bool) -> None:
    """Same words, different referral rule: verdicts would change, so ask for --force."""
    try:
        existing = store.manifest(name)
    except LexiconError:
        return
    old = (existing.refer_longer_than, existing.refer_even_if_listed)
    new = (recipe.refer_longer_than, recipe.refer_even_if_listed)
    if old != new and not force:
        raise RecipeError(
            f"Lexicon {name} already exists with {referral_text(*old)}; "
            f"this recipe has {referral_text(*new)}. Use --force to replace it."
        )


def referral_text(refer_longer_than: int, even_if_listed: bool = False) -> str:
    """The referral rule in words, as summaries and `lexicon show` print it: REFER whatever the
    shorter words (a REFER that depended on them would tell the players they are good, NSA
    X.E); the word judge's check then closes it."""
    if not refer_longer_than:
        return "no referral rule (a missing word of any length is UNACCEPTABLE)"
    n = refer_longer_than
    which = (
        f"every word of more than {n} letters, listed or not, gives REFER"
        if even_if_listed
        else f"a missing word of more than {n} letters gives REFER"
    )
    return (
        f"a referral rule: {which} (a word judge checks a dictionary), whatever the shorter "
        f"words; the check then closes it, UNACCEPTABLE if a word of {n} letters or fewer is "
        "missing, else the dictionary's verdict"
    )
