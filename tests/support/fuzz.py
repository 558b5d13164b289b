"""What the fuzz tests share: Hypothesis's settings for a fuzz run, and a fast scratch folder."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings


def fuzz_settings(default_examples: int) -> settings:
    """Hypothesis settings for a fuzz run: ADJUDICATOR_FUZZ_EXAMPLES examples (else the default),
    no deadline, no example database, no health check (slow data is the point)."""
    examples = int(os.environ.get("ADJUDICATOR_FUZZ_EXAMPLES", str(default_examples)))
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


@contextmanager
def fuzz_home(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Path]:
    """A folder for the fuzzed app's data home, set as ADJUDICATOR_HOME (folder/home), removed
    at the end. It is on memory-backed /dev/shm where there is one: this fuzzes the app, not
    the disk, and 100,000 fsyncs would only measure the disk."""
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() else tmp_path_factory.mktemp(name)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("ADJUDICATOR_HOME", str(folder / "home"))
            yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
