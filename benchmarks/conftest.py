"""Collect the bench_*.py files when pytest is pointed at this folder.

setup.cfg's testpaths keeps benchmarks out of the default test run; run them with
`.venv/bin/python -m pytest benchmarks --benchmark-only`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_LEXICONS = Path(__file__).resolve().parents[2] / "shared" / "lexicons"


def pytest_collect_file(file_path: Path, parent):
    # a file named on the command line is collected by pytest itself: not twice
    if (
        file_path.suffix == ".py"
        and file_path.name.startswith("bench_")
        and not parent.session.isinitpath(file_path)
    ):
        return pytest.Module.from_parent(parent, path=file_path)
    return None


@pytest.fixture
def quiet_logs(caplog):
    """Only errors logged: a benchmark's log lines cost time, and say nothing to measure."""
    caplog.set_level("ERROR")
