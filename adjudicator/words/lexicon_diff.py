"""Edition diffs for directors preparing a change of edition: words added and removed.

A director's tool: the CLI prints it; no kiosk page or API ever does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adjudicator.words.lexicon import CompiledLexicon, Manifest


@dataclass(frozen=True)
class LexiconDiff:
    """The words NEW has that OLD lacks (added) and the words OLD has that NEW lacks (removed)."""

    old: Manifest
    new: Manifest
    added: tuple[str, ...]
    removed: tuple[str, ...]

    def as_dict(self, with_words: bool = False) -> dict[str, Any]:
        """The diff as JSON data: both editions, the counts, and the words when asked."""
        data: dict[str, Any] = {
            "old": _edition(self.old),
            "new": _edition(self.new),
            "added": len(self.added),
            "removed": len(self.removed),
        }
        if with_words:
            data["added_words"] = list(self.added)
            data["removed_words"] = list(self.removed)
        return data


def _edition(manifest: Manifest) -> dict[str, Any]:
    return {"name": manifest.name, "words": manifest.words, "fingerprint": manifest.fingerprint}


def diff_lexicons(old: CompiledLexicon, new: CompiledLexicon) -> LexiconDiff:
    """Compare two compiled lexicons word by word; both word lists come out sorted."""
    if old.manifest.fingerprint == new.manifest.fingerprint:
        return LexiconDiff(old.manifest, new.manifest, (), ())
    old_words, new_words = set(old), set(new)
    return LexiconDiff(
        old.manifest,
        new.manifest,
        added=tuple(sorted(new_words - old_words)),
        removed=tuple(sorted(old_words - new_words)),
    )
