"""The wheels and archives `make setup-test` fetches into the venv (Makefile): the package's
dependencies, its build tools and the default lexicons' archives. The tests that run pip (a
build, an install, `lexicon install-defaults`) use only these, so that they reach no package
index: tests send nothing beyond this machine."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

WHEELHOUSE = Path(sys.prefix) / "wheelhouse"


def offline_pip_env(env: dict | None = None) -> dict:
    """`env` (default: this process's) with pip told to use the wheelhouse and no index; fails
    the test, saying what to run, when `make setup-test` has not fetched it."""
    if not (WHEELHOUSE / ".built").exists():
        pytest.fail(f"No wheelhouse at {WHEELHOUSE}: run `make setup-test` (it fetches them).")
    return {
        **(os.environ if env is None else env),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(WHEELHOUSE),
    }
