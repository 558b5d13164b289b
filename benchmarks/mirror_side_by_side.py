"""Issue 22: the mirror against the single-disk journal, side by side, alternating rounds.

This machine's load swings more than the mirror costs, so bench_mirror.py's separate runs say
little. Here each round of 64 verdicts on the single journal is followed at once by one on the
mirrored journal (16 threads, then 1), and the ratio of each pair is kept: a load swing hits
both. Prints the median per verdict of each and the median and quartiles of the ratios.

    .venv/bin/python benchmarks/mirror_side_by_side.py [ROUNDS]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_mirror import ROUND, a_round, journal_of

from adjudicator.record.journal.group_commit import GroupCommitter


def main(rounds: int = 40) -> dict[int, dict]:
    """By threads: the milliseconds per verdict of each round on each journal, and the ratios
    (at least 2 rounds: the quartiles need two)."""
    found = {}
    folder = Path(tempfile.mkdtemp(prefix="mirror-bench-"))
    (folder / "single").mkdir()
    (folder / "mirror").mkdir()
    committers = {
        kind: GroupCommitter(journal_of(kind, folder / kind)) for kind in ("single", "mirror")
    }
    for threads in (16, 1):
        times: dict[str, list[float]] = {"single": [], "mirror": []}
        for _ in range(2):  # warm-up
            for kind in times:
                a_round(committers[kind], threads)
        for index in range(rounds):
            order = ("single", "mirror") if index % 2 == 0 else ("mirror", "single")
            for kind in order:
                started = time.perf_counter()
                a_round(committers[kind], threads)
                times[kind].append((time.perf_counter() - started) / ROUND * 1000)
        ratios = sorted(m / s for s, m in zip(times["single"], times["mirror"], strict=True))
        quartiles = statistics.quantiles(ratios, n=4)
        found[threads] = {**times, "ratios": ratios}
        print(
            f"{threads:2d} thread(s): per verdict, median single "
            f"{statistics.median(times['single']):.2f} ms, mirror "
            f"{statistics.median(times['mirror']):.2f} ms; mirror/single per pair: median "
            f"{statistics.median(ratios):.2f}x (quartiles {quartiles[0]:.2f}-{quartiles[2]:.2f})"
        )
    return found


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
