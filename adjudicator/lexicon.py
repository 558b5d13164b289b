"""A compiled lexicon: a marisa-trie file opened with mmap, and the manifest that vouches for it.

Opening checks the file's SHA-256 against the manifest, so a truncated or altered file is
refused with a clear error instead of judging with the wrong words.
"""

from __future__ import annotations

import hashlib
import json
import mmap
from dataclasses import asdict, dataclass, field
from pathlib import Path

import marisa_trie

from adjudicator.errors import LexiconCorrupt
from adjudicator.wordlist import short_fingerprint

TYPE_CHECKING = False  # the typing module costs `adjudicator judge` several ms to import
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class Manifest:
    """Everything known about one compiled lexicon; stored as JSON beside the trie."""

    name: str
    words: int
    fingerprint: str
    compiled_file: str
    compiled_sha256: str
    description: str = ""
    source_file: str = ""
    source_sha256: str = ""
    source_format: str = ""
    longest_word: int = 0
    words_over_15: int = 0
    built_at: str = ""
    build_seconds: float = 0.0
    program_version: str = ""
    verified: bool = False  # the fingerprint matches the catalogue entry of this name
    catalogue_name: str = ""  # the catalogue edition whose fingerprint this is, if any
    tournament_list: bool = True
    refer_longer_than: int = 0
    recipe: dict[str, Any] = field(default_factory=dict)

    @property
    def short_fingerprint(self) -> str:
        return short_fingerprint(self.fingerprint)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a manifest must be a JSON object")
        known = {name for name in cls.__dataclass_fields__}
        manifest = cls(**{key: value for key, value in data.items() if key in known})
        for name in ("name", "fingerprint", "compiled_file", "compiled_sha256"):
            if not isinstance(getattr(manifest, name), str):
                raise ValueError(f"its field {name!r} is not text")
        if not isinstance(manifest.words, int):
            raise ValueError("its field 'words' is not a whole number")
        return manifest

    def summary(self) -> dict[str, Any]:
        """The public description of this lexicon, as the API and `lexicon list --json` give it."""
        return {
            "name": self.name,
            "description": self.description,
            "words": self.words,
            "fingerprint": self.fingerprint,
            "short_fingerprint": self.short_fingerprint,
            "verified": self.verified,
            "catalogue_name": self.catalogue_name,
            "tournament_list": self.tournament_list,
            "refer_longer_than": self.refer_longer_than,
            "longest_word": self.longest_word,
            "words_over_15": self.words_over_15,
            "built_at": self.built_at,
        }


class CompiledLexicon:
    """A read-only lexicon backed by an mmapped marisa trie; `word in lexicon` looks a word up."""

    def __init__(self, manifest: Manifest, trie: marisa_trie.Trie, path: Path):
        self.manifest = manifest
        self.path = path
        self.trie = trie  # the verdict looks words up here directly: no Python call per word

    def __contains__(self, word: object) -> bool:
        return word in self.trie

    def __len__(self) -> int:
        return len(self.trie)

    def __iter__(self):
        return iter(self.trie.iterkeys())

    @property
    def name(self) -> str:
        return self.manifest.name

    @classmethod
    def open(cls, manifest: Manifest, path: Path) -> CompiledLexicon:
        """mmap the trie at `path` after checking it against `manifest`."""
        actual = file_sha256(path)
        if actual != manifest.compiled_sha256:
            raise LexiconCorrupt(
                f"Lexicon {manifest.name} is damaged: its compiled file {path.name} does not "
                "match its manifest. Run `adjudicator lexicon verify` and import it again."
            )
        trie = marisa_trie.Trie()
        try:
            trie.mmap(str(path))
        except Exception as exc:  # marisa raises plain RuntimeError/ValueError on bad files
            raise LexiconCorrupt(f"Lexicon {manifest.name} cannot be opened: {exc}.") from None
        if len(trie) != manifest.words:
            raise LexiconCorrupt(
                f"Lexicon {manifest.name} is damaged: it holds {len(trie):,} words, "
                f"its manifest says {manifest.words:,}. Import it again."
            )
        return cls(manifest, trie, path)


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read through a temporary mmap (no copy on the heap)."""
    try:
        with open(path, "rb") as handle:
            if Path(path).stat().st_size == 0:
                return hashlib.sha256(b"").hexdigest()
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                return hashlib.sha256(mapped).hexdigest()
    except FileNotFoundError:
        raise LexiconCorrupt(f"Compiled lexicon file {Path(path).name} is missing.") from None
    except OSError as exc:
        raise LexiconCorrupt(
            f"Compiled lexicon file {Path(path).name} cannot be read: {exc.strerror or exc}."
        ) from None
