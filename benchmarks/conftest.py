"""Collect the bench_*.py files when pytest is pointed at this folder.

setup.cfg's testpaths keeps benchmarks out of the default test run; run them with
`.venv/bin/python -m pytest benchmarks --benchmark-only` (`make bench`: timed, at every size,
each against its targets).

`make test` (and so CI) runs every benchmark once, untimed, at its smallest size, so none can
break unseen: `--benchmark-disable` (pytest-benchmark runs each benchmarked call once, and
records no statistics) is also this folder's switch to the smallest size. Each benchmark reads
it through benchmarks/sizing.py: `sizes` (the sizes it runs at), `smallest` (a count or a
size) and `timed` (whether its targets on time are checked: they mean nothing once, on a
machine busy with tests).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bytecode import cache_bytecode
from sizing import SMALLEST_VARIABLE

SHARED_LEXICONS = Path(__file__).resolve().parents[2] / "shared" / "lexicons"


def pytest_configure(config):
    """Under --benchmark-disable every benchmark runs at its smallest size (sizing.py). Every
    process a benchmark starts runs from compiled bytecode, as an installed copy does
    (bytecode.py)."""
    if config.getoption("benchmark_disable", default=False):
        os.environ[SMALLEST_VARIABLE] = "1"
    cache_bytecode()


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
