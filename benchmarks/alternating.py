"""Timing things side by side in one run: each in turn, round after round, so that a swing in the
machine's other load hits them alike; the best of each is what a benchmark reports."""

from __future__ import annotations

import timeit
from collections.abc import Callable

ROUNDS = 7


def best_of(statement: Callable[[], object], number: int) -> float:
    """Best seconds per call over 3 runs of `number` calls."""
    return min(timeit.repeat(statement, number=number, repeat=3)) / number


def timed(statement: Callable[[], object], number: int) -> Callable[[], float]:
    """A timing for `alternate`: best_of(statement, number)."""
    return lambda: best_of(statement, number)


def alternate(*timings: Callable[[], float], rounds: int = ROUNDS) -> list[float]:
    """Each timing (a call returning seconds) in turn, `rounds` times over; the least of each."""
    found: list[list[float]] = [[] for _ in timings]
    for _ in range(rounds):
        for times, timing in zip(found, timings, strict=True):
            times.append(timing())
    return [min(times) for times in found]
