"""Where things are: the repository, the shared real word lists, the screenshots folder."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED_LEXICONS = ROOT.parent / "shared" / "lexicons"
ARTIFACTS = ROOT / "test-artifacts"
