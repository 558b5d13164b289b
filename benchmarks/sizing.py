"""The benchmarks' one switch: timed, at every size (`make bench`), or once each, untimed, at
its smallest size (`make test`, and so CI: `pytest benchmarks --benchmark-disable`).

benchmarks/conftest.py sets SMALLEST_VARIABLE under `--benchmark-disable`; the load scripts a
benchmark runs in process, and the processes it starts, read the same variable.
"""

from __future__ import annotations

import os

SMALLEST_VARIABLE = "ADJUDICATOR_BENCH_SMALLEST"


def is_smallest() -> bool:
    """Whether this run is the untimed one, at the smallest sizes."""
    return os.environ.get(SMALLEST_VARIABLE) == "1"


def sizes(*values):
    """The sizes a benchmark runs at, smallest first: all of them, or only the smallest."""
    return values[:1] if is_smallest() else values


def smallest(full, small):
    """`full` when timed, else `small` (a count of rounds, of rows, of seconds)."""
    return small if is_smallest() else full


def timed() -> bool:
    """Whether this run times the benchmarks and checks their targets on time."""
    return not is_smallest()
