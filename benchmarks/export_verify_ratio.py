"""`journal verify` and `journal export` against their floor in one process, alternating, so a
busy machine slows both alike (the scaling run times whole processes, start-up included).

    python benchmarks/export_verify_ratio.py [--rows 300000] [--backends sqlite,postgresql]
        [--rounds 5]

Fills a season (benchmarks/season.py, through the program's append path), then alternates
`journal.verify(db)` with benchmarks/journal_floor.py's `verify` (the same rows, the same
hashes, the raw driver) and `export.write(db, out, "csv")` with the floor's `export` (the same
rows to CSV with csv.writer), both writing to /dev/null. Reports each round's ratio.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adjudicator.hall.director import export  # noqa: E402
from adjudicator.record.journal import journal  # noqa: E402
from benchmarks import journal_floor  # noqa: E402
from benchmarks import season as seasons  # noqa: E402


def timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def ratios(season: seasons.Season, rounds: int) -> dict:
    db = season.db()
    bad = journal_floor.verify(season.url)
    assert bad == 0, f"the floor finds {bad} rows whose hash it does not make: not the same work"
    found: dict[str, list[float]] = {"verify": [], "export": []}
    with open(os.devnull, "w") as sink:

        def floor_export() -> None:
            with contextlib.redirect_stdout(sink):
                journal_floor.export(season.url)

        jobs = {
            "verify": (lambda: journal.verify(db), lambda: journal_floor.verify(season.url)),
            "export": (lambda: export.write(db, sink, "csv"), floor_export),
        }
        for _ in range(rounds):
            for name, (program, floor) in jobs.items():
                found[name].append(timed(program) / timed(floor))
    db.close()
    return {
        name: {"median": statistics.median(r), "min": min(r), "max": max(r)}
        for name, r in found.items()
    }


def main(argv: list[str] | None = None) -> dict[str, dict]:
    """Each backend's ratios: {backend: {job: {median, min, max}}}."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    results = {}
    for backend in args.backends.split(","):
        with ExitStack() as stack:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ratio-")))
            url = seasons.journal_url(stack, backend, folder, "ratio")
            season = seasons.prepare(folder / "home", url)
            seasons.fill(season, args.rows)
            result = results[backend] = ratios(season, args.rounds)
            for name, r in result.items():
                print(
                    f"{backend} {args.rows:,} rows: {name} / floor median {r['median']:.2f} "
                    f"(rounds {r['min']:.2f}-{r['max']:.2f})"
                )
    return results


if __name__ == "__main__":
    main()
