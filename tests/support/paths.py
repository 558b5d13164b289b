"""Where things are: the repository, the shared real word lists, the screenshots folder."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED_LEXICONS = ROOT.parent / "shared" / "lexicons"
ARTIFACTS = ROOT / "test-artifacts"


def present(path: Path, missing: str = "is missing") -> Path:
    """`path` if the file is there; else the test is skipped, saying `path` and `missing`."""
    if not path.is_file():
        pytest.skip(f"{path} {missing}")
    return path
