"""Where things are: the repository, the shared real word lists, the screenshots folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED_LEXICONS = ROOT.parent / "shared" / "lexicons"
ARTIFACTS = ROOT / "test-artifacts"
NOT_BUILT = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache")


def present(path: Path, missing: str = "is missing") -> Path:
    """`path` if the file is there; else the test is skipped, saying `path` and `missing`."""
    if not path.is_file():
        pytest.skip(f"{path} {missing}")
    return path


def copy_checkout(dest: Path, *leave_out: str) -> Path:
    """A copy of the checkout at `dest` as a build sees it: no git, venv, builds, caches or
    test artifacts (nor the `leave_out` patterns)."""
    shutil.copytree(
        ROOT,
        dest,
        ignore=shutil.ignore_patterns(*NOT_BUILT, ARTIFACTS.name, *leave_out),
    )
    return dest
