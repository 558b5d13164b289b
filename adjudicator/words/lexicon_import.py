"""Importing a word list into the store, with the checks a director relies on.

Bad lines fail the import (or are skipped and listed, when asked); a list imported under a
catalogue name must match that edition's fingerprint; an existing lexicon is replaced by
different words only on request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from adjudicator.errors import ImportRefused, LexiconError
from adjudicator.textcheck import DESCRIPTION_MAX, check_text
from adjudicator.words import catalogue
from adjudicator.words.alphabet import ENGLISH, Alphabet
from adjudicator.words.importers import BadLine, read_source
from adjudicator.words.lexicon import Manifest
from adjudicator.words.store import LexiconStore, check_name
from adjudicator.words.wordlist import WordSet

SHOW_BAD_LINES = 10
SHOW_DIFF_WORDS = 10


@dataclass
class ImportSummary:
    manifest: Manifest
    skipped: list[BadLine] = field(default_factory=list)
    duplicates: int = 0
    edition: catalogue.Edition | None = None


def import_lexicon(
    store: LexiconStore,
    path: Path,
    name: str,
    fmt: str = "auto",
    *,
    force: bool = False,
    skip_invalid: bool = False,
    description: str = "",
    alphabet: Alphabet = ENGLISH,
) -> ImportSummary:
    """Read `path`, check it, and compile it into `store` as `name`, spelled in `alphabet`."""
    check_name(name)
    description = check_text(description, "lexicon description", DESCRIPTION_MAX)
    result = read_source(Path(path), fmt, alphabet)
    if result.bad_lines and not skip_invalid:
        message = bad_lines_message(path, result.bad_lines, result.format, alphabet)
        if result.encoding != "utf-8":
            message += " The file is not valid UTF-8 (it was read as Latin-1): save it as UTF-8."
        raise ImportRefused(message)
    read = len(result.words)
    words = WordSet.take(result.words, alphabet)
    if not len(words):
        raise ImportRefused(f"{path} holds no words: nothing to import.")
    edition = check_against_catalogue(store, name, words, force)
    check_replacement(store, name, words, force)
    matched = catalogue.by_fingerprint(words.fingerprint)
    manifest = store.save(
        name,
        words,
        description=description or (edition.title if edition else ""),
        source_file=Path(path).name,
        source_sha256=result.source_sha256,
        source_format=result.format,
        verified=bool(edition and edition.fingerprint == words.fingerprint),
        catalogue_name=matched.name if matched else "",
        tournament_list=matched.tournament
        if matched
        else (edition.tournament if edition else True),
    )
    return ImportSummary(manifest, result.bad_lines, read - len(words), matched)


def bad_lines_message(
    path: Path, bad: list[BadLine], fmt: str = "text", alphabet: Alphabet = ENGLISH
) -> str:
    """The refusal for a list with lines that are not words, naming the first few."""
    shown = "\n".join(f"  {line}" for line in bad[:SHOW_BAD_LINES])
    more = f"\n  ... and {len(bad) - SHOW_BAD_LINES} more" if len(bad) > SHOW_BAD_LINES else ""
    hint = ""
    if fmt == "text" and any(_looks_defined(line.text) for line in bad):
        hint = " If it is a Zyzzyva text file (a word, then its definition), use --format zyzzyva."
    allowed = (
        "letters A-Z only"
        if alphabet.is_english
        else f"tiles of the {alphabet.name} alphabet only: {' '.join(alphabet.tiles)}"
    )
    if alphabet.is_english and any(not line.text.isascii() for line in bad):
        hint += " If the list is in another language, import it with --alphabet NAME."
    return (
        f"{path}: {_lines_are(len(bad))} not words ({allowed}):\n{shown}{more}\n"
        f"Fix the file, or import with --skip-invalid to leave those lines out.{hint}"
    )


def _looks_defined(text: str) -> bool:
    first = text.split(None, 1)
    return len(first) == 2 and first[0].isascii() and first[0].isalpha()


def check_against_catalogue(
    store: LexiconStore, name: str, words: WordSet, force: bool
) -> catalogue.Edition | None:
    """Refuse a catalogue name whose fingerprint differs, saying how the lists differ."""
    edition = catalogue.by_name(name)
    if edition is None or edition.fingerprint == words.fingerprint or force:
        return edition
    other = catalogue.by_fingerprint(words.fingerprint)
    hint = f" This file is {other.name} ({other.title})." if other else ""
    raise ImportRefused(
        f"{edition.name} has {edition.words:,} words; this file has {len(words):,}"
        f"{_difference(store, edition, words)}.{hint}\n"
        f"Its fingerprint {words.fingerprint[:12]} is not {edition.name}'s "
        f"{edition.fingerprint[:12]}. Import it under another name, or use --force."
    )


def check_replacement(store: LexiconStore, name: str, words: WordSet, force: bool) -> None:
    """Refuse to replace an existing lexicon with different words unless forced."""
    try:
        existing = store.manifest(name)
    except LexiconError:
        return
    if existing.fingerprint != words.fingerprint and not force:
        raise ImportRefused(
            f"Lexicon {name} already exists with {existing.words:,} words "
            f"(fingerprint {existing.short_fingerprint}); this file has {len(words):,} "
            f"(fingerprint {words.fingerprint[:12]}). Use --force to replace it."
        )
    if existing.get_alphabet() != words.alphabet and not force:
        raise ImportRefused(
            f"Lexicon {name} already exists in the {existing.get_alphabet().name} alphabet; "
            f"this import uses the {words.alphabet.name} alphabet, which reads challenges "
            "differently. Use --force to replace it."
        )


def _difference(store: LexiconStore, edition: catalogue.Edition, words: WordSet) -> str:
    """', 3 more: A, B, C' against a compiled copy of the edition, or just the count."""
    delta = len(words) - edition.words
    counted = f", {abs(delta):,} {'more' if delta > 0 else 'fewer'}" if delta else ", as many"
    reference = _compiled_copy(store, edition)
    if reference is None:
        return counted
    new, old = set(words.words), set(reference)
    added, removed = sorted(new - old), sorted(old - new)
    parts = []
    if added:
        parts.append(f"{len(added):,} not in {edition.name}: {_some(added)}")
    if removed:
        parts.append(f"{len(removed):,} of {edition.name} missing: {_some(removed)}")
    return counted + ("; " + "; ".join(parts) if parts else "")


def _compiled_copy(store: LexiconStore, edition: catalogue.Edition):
    for manifest in store.manifests():
        if manifest.fingerprint == edition.fingerprint:
            try:
                return store.open(manifest.name)
            except LexiconError:
                continue
    return None


def _some(words: list[str]) -> str:
    shown = ", ".join(words[:SHOW_DIFF_WORDS])
    return shown + (", ..." if len(words) > SHOW_DIFF_WORDS else "")


def _lines_are(count: int) -> str:
    return f"{count:,} line is" if count == 1 else f"{count:,} lines are"
