"""`make bench`: cost as the journal grows, and the verdict path against its floors.

- the scaling run (benchmarks/scaling.py): SQLite at 10k, 100k and 1M rows, PostgreSQL at 10k
  and 100k; PostgreSQL at 1M too with ADJUDICATOR_BENCH_SCALING=full (filling it through the
  program's own append path takes several minutes);
- the verdict path (benchmarks/verdict_path.py): Hall.adjudicate against a bare durable insert,
  HTTP CPU per adjudication against a minimal Flask app, `adjudicator judge` against
  `python -c "import marisa_trie"`.

Each prints its tables; the numbers quoted in RESULTS.md come from these scripts.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import scaling, verdict_path  # noqa: E402
from benchmarks.sizing import is_smallest, smallest  # noqa: E402


def test_scaling(benchmark, capsys, tmp_path):
    full = os.environ.get("ADJUDICATOR_BENCH_SCALING") == "full"
    runs = [["--backends", "sqlite", "--sizes", "10000,100000,1000000"]]
    runs.append(
        ["--backends", "postgresql", "--sizes", "10000,100000" + (",1000000" if full else "")]
    )
    if is_smallest():  # once each, at a size that fills in seconds
        runs = [[*run[:2], "--sizes", "1000", "--repeat", "1", "--views", "1"] for run in runs]

    def run_all() -> list[dict]:
        return [
            result
            for args in runs
            for result in scaling.main([*args, "--json", str(tmp_path / "scaling.json")])
        ]

    results = benchmark.pedantic(run_all, rounds=1, iterations=1)
    with capsys.disabled():
        print("\n" + scaling.table(results))
    assert all(r["adjudication_failures"] == 0 for r in results)


def test_verdict_path(benchmark, capsys, tmp_path):
    rounds = str(smallest(2, 1))
    results = benchmark.pedantic(
        verdict_path.main, args=(["--rounds", rounds, "--folder", str(tmp_path)],), rounds=1
    )
    with capsys.disabled():
        for part, runs in results.items():
            print(part, [round(run["ratio"], 2) for run in runs])
