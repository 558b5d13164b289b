"""Timing things side by side in one run: each in turn, round after round, so that a swing in the
machine's other load hits them alike; the best of each is what a benchmark reports. At the
smallest size (benchmarks/sizing.py) each is run once."""

from __future__ import annotations

import timeit
from collections.abc import Callable

from benchmarks.sizing import smallest

ROUNDS = 7


def best_of(statement: Callable[[], object], number: int) -> float:
    """Best seconds per call over 3 runs of `number` calls."""
    number = smallest(number, 1)
    return min(timeit.repeat(statement, number=number, repeat=smallest(3, 1))) / number


def timed(statement: Callable[[], object], number: int) -> Callable[[], float]:
    """A timing for `alternate`: best_of(statement, number)."""
    return lambda: best_of(statement, number)


def alternate(*timings: Callable[[], float], rounds: int = ROUNDS) -> list[float]:
    """Each timing (a call returning seconds) in turn, `rounds` times over; the least of each."""
    found: list[list[float]] = [[] for _ in timings]
    for _ in range(smallest(rounds, 1)):
        for times, timing in zip(found, timings, strict=True):
            times.append(timing())
    return [min(times) for times in found]


def report(benchmark, unit: str, target: tuple[str, str, float], floor: tuple[str, str, float]):
    """Record the best seconds of `target` and of its `floor`, each (key, what, seconds), in the
    benchmark's extra info as KEY_UNIT (`unit`: "us" or "ms") with their ratio, and print them."""
    scale = {"us": 1e6, "ms": 1e3}[unit]
    (target_key, target_what, target_s), (floor_key, floor_what, floor_s) = target, floor
    benchmark.extra_info.update(
        {
            f"{target_key}_{unit}": target_s * scale,
            f"{floor_key}_{unit}": floor_s * scale,
            "ratio": target_s / floor_s,
        }
    )
    print(
        f"\n{target_what} {target_s * scale:.2f} {unit}, {floor_what} {floor_s * scale:.2f} "
        f"{unit}, ratio {target_s / floor_s:.3f}"
    )
