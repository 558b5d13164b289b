"""The director's pages on a small and a large journal at once, alternating, so that load from
elsewhere on the machine slows both alike (benchmarks/scaling.py measures each size in turn,
minutes apart, which a shared machine's load can swing by a factor of two).

    python benchmarks/pages_side_by_side.py [--small 10000] [--large 1000000]
        [--backends sqlite,postgresql] [--views 15]

Two seasons (benchmarks/season.py, filled through the program's own append path), one
`adjudicator serve` with one worker on each, both up; each page is fetched from the small one
and then from the large one, `views` times after two warm-up rounds. Prints each page's median
time on both, the ratio large / small, and each worker's VmRSS before and after viewing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import scaling  # noqa: E402
from benchmarks import season as seasons  # noqa: E402

from tests.support.servers import PreparedHome, Server  # noqa: E402


def side_by_side(backend: str, sizes: dict[str, int], views: int) -> dict:
    """Median ms of each page on each journal (ratio large / small) and the workers' VmRSS."""
    with ExitStack() as stack:
        found: dict[str, dict] = {}
        servers = {}
        for label, rows in sizes.items():
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pages-")))
            url = seasons.journal_url(stack, backend, folder, f"pages_{label}")
            season = seasons.prepare(folder / "home", url)
            started = time.perf_counter()
            seasons.fill(season, rows)
            print(f"[{backend}] {label}: {rows:,} rows in {time.perf_counter() - started:.0f} s")
            home = PreparedHome(season.home, season.token, "", season.env)
            server = stack.enter_context(Server(home, workers=1))
            (worker,) = scaling.worker_pids(server.process.pid)
            servers[label] = (server, worker, scaling.director_session(server.url))
            found[label] = {"links": scaling.page_links(season), "rss_start": 0.0, "ms": {}}
        for label, (_, worker, _) in servers.items():
            found[label]["rss_start"] = scaling.vm_rss_mib(worker)
        times = {label: {page: [] for page in scaling.PAGES} for label in sizes}
        for round_no in range(views + 2):
            for page in scaling.PAGES:
                for label, (server, _, session) in servers.items():
                    started = time.perf_counter()
                    response = session.get(server.url + found[label]["links"][page], timeout=120)
                    elapsed = time.perf_counter() - started
                    assert response.status_code == 200, (label, page, response.status_code)
                    if round_no >= 2:  # two rounds warm each worker up
                        times[label][page].append(elapsed)
        small, large = sizes
        result = {"backend": backend, "sizes": sizes, "pages": {}, "rss_mib": {}}
        for page in scaling.PAGES:
            a, b = (statistics.median(times[label][page]) * 1000 for label in (small, large))
            result["pages"][page] = {small: a, large: b, "ratio": b / a}
        for label, (_, worker, _) in servers.items():
            result["rss_mib"][label] = (found[label]["rss_start"], scaling.vm_rss_mib(worker))
    return result


def table(result: dict) -> str:
    """One backend's result as a Markdown table."""
    small, large = result["sizes"]
    rows = [
        f"| page | {result['sizes'][small]:,} rows (ms) | {result['sizes'][large]:,} rows (ms) "
        "| ratio |",
        "|---|---|---|---|",
    ]
    for page, figures in result["pages"].items():
        rows.append(
            f"| {page} | {figures[small]:.1f} | {figures[large]:.1f} | {figures['ratio']:.2f} |"
        )
    memory = "; ".join(
        f"{result['sizes'][label]:,} rows: {start:.1f} -> {end:.1f} MiB"
        for label, (start, end) in result["rss_mib"].items()
    )
    rows.append(f"\nWorker VmRSS before -> after viewing ({result['backend']}): {memory}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=1_000_000)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--views", type=int, default=15)
    args = parser.parse_args(argv)
    scaling.cache_bytecode()  # benchmarks/bytecode.py
    results = []
    for backend in args.backends.split(","):
        result = side_by_side(backend, {"small": args.small, "large": args.large}, args.views)
        print(f"\n{backend}\n{table(result)}\n")
        results.append(result)
    return results


if __name__ == "__main__":
    main()
