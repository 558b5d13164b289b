"""Scaling run: the journal filled to 10k, 100k and 1M rows through the program's own append
path, on SQLite and PostgreSQL, and at each size:
- the director's pages (journal newest/older/filtered, overview, flags): median response time
  over real HTTP from one gunicorn worker, and that worker's memory (VmRSS) after viewing them;
- `journal export` (CSV) and `journal verify` as whole processes: time, peak memory, and the
  ratio to their floor (benchmarks/journal_floor.py: a plain read of the same rows doing the
  same work per row), measured side by side;
- adjudications from 6 clients at once (keep-alive connections, one kiosk: its most; rate limit off)
  against `adjudicator serve` with its default workers: p50 and p99.

    python benchmarks/scaling.py [--sizes 10000,100000,1000000] [--backends sqlite,postgresql]
        [--repeat 3] [--json FILE]

PostgreSQL: a temporary cluster (tests/support/postgres.py, fsync on). The SQLite journal is WAL,
synchronous=FULL, in a temporary folder. Loopback only; everything started is stopped.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

from benchmarks import season as seasons  # noqa: E402
from benchmarks.bytecode import cache_bytecode  # noqa: E402
from benchmarks.sizing import smallest  # noqa: E402

from tests.support.servers import PreparedHome, Server  # noqa: E402

PAGES = {
    "journal (newest)": "/director/journal",
    "journal (older page)": "/director/journal?before={middle}",
    "journal (a tournament)": "/director/journal?tournament=division-07&before={middle}",
    "journal (a kiosk)": "/director/journal?kiosk=kiosk-123&before={middle}",
    "journal (rulings)": "/director/journal?kind=ruling",
    "journal (10 minutes)": "/director/journal?since={since}&until={until}",
    "overview": "/director/",
    "flags": "/director/flags",
    "hall map": "/director/hall",  # issue 36
    "hall map (a tournament)": "/director/hall?tournament=division-07",
    "journal (a table's round)": "/director/journal?tournament=division-07&kind=challenge"
    "&round=3&table=8",
}
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
PYTHON = sys.executable


# --- the director's pages ---------------------------------------------------------------------


def director_session(base: str) -> requests.Session:
    session = requests.Session()
    page = session.get(base + "/director/login", timeout=30).text
    token = CSRF.search(page).group(1)
    response = session.post(
        base + "/director/login",
        data={
            "name": "director",
            "password": seasons.DIRECTOR_PASSWORD,
            "csrf_token": token,
        },
        allow_redirects=False,
        timeout=30,
    )
    assert response.status_code == 302, response.text[:500]
    return session


def worker_pids(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(pid) for pid in children]


def vm_rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024


def page_links(season: seasons.Season) -> dict[str, str]:
    from adjudicator.record.journal import journal

    db = season.db()
    try:
        newest = journal.newest_id(db)
        middle = newest // 2
        at = journal.get(db, middle).recorded_at
    finally:
        db.close()
    since, until = at[:16], _plus_minutes(at, 10)
    return {
        label: path.format(middle=middle, since=since, until=until) for label, path in PAGES.items()
    }


def _plus_minutes(iso: str, minutes: int) -> str:
    from datetime import datetime, timedelta

    return (datetime.fromisoformat(iso) + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M")


def measure_pages(season: seasons.Season, views: int) -> dict:
    """Median response time per page (ms) and the worker's VmRSS before and after viewing."""
    home = PreparedHome(season.home, season.token, "", season.env)
    links = page_links(season)
    with Server(home, workers=1) as server:
        (worker,) = worker_pids(server.process.pid)
        session = director_session(server.url)
        rss_start = vm_rss_mib(worker)
        times: dict[str, list[float]] = {label: [] for label in links}
        for round_no in range(views + 2):
            for label, path in links.items():
                started = time.perf_counter()
                response = session.get(server.url + path, timeout=120)
                elapsed = time.perf_counter() - started
                assert response.status_code == 200, (label, response.status_code)
                if round_no >= 2:  # the first two rounds warm the worker up
                    times[label].append(elapsed)
        rss_end = vm_rss_mib(worker)
    return {
        "pages_ms": {label: statistics.median(t) * 1000 for label, t in times.items()},
        "worker_rss_start_mib": rss_start,
        "worker_rss_after_mib": rss_end,
    }


# --- adjudications at 6 clients (a kiosk holds six connections) --------------------------------


def measure_adjudications(season: seasons.Season, clients: int, per_client: int) -> dict:
    home = PreparedHome(season.home, season.token, "", season.env)
    bodies = [json.dumps({"words": list(words)}) for words in seasons.CHALLENGES]
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def client(port: int, n: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Authorization": f"Bearer {season.token}", "Content-Type": "application/json"}
        mine = []
        try:
            for i in range(per_client):
                started = time.perf_counter()
                connection.request("POST", "/api/v1/adjudications", bodies[(n + i) % 4], headers)
                response = connection.getresponse()
                response.read()
                mine.append(time.perf_counter() - started)
                if response.status != 201:
                    failures.append(str(response.status))
        finally:
            connection.close()
            with lock:
                latencies.extend(mine[5:])  # each client's first requests open the connection

    with Server(home) as server:
        port = server.port
        threads = [threading.Thread(target=client, args=(port, n)) for n in range(clients)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - started
    latencies.sort()
    return {
        "adjudication_p50_ms": latencies[len(latencies) // 2] * 1000,
        "adjudication_p99_ms": latencies[int(len(latencies) * 0.99)] * 1000,
        "adjudications_per_s": clients * per_client / seconds,
        "adjudication_failures": len(failures),
    }


# --- export and verify against their floor ----------------------------------------------------


def timed_process(args: list[str], env: dict) -> tuple[float, float, int]:
    """Wall time (s), peak resident memory (MiB) and exit code of a whole process."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        started = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", report.name, *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        elapsed = time.perf_counter() - started
        peak_kib = int(Path(report.name).read_text().split()[-1])
    return elapsed, peak_kib / 1024, done.returncode


def measure_export_verify(season: seasons.Season, repeat: int) -> dict:
    env = {**os.environ, **season.env}
    floor = str(ROOT / "benchmarks" / "journal_floor.py")
    jobs = {
        "verify": ([PYTHON, "-m", "adjudicator", "journal", "verify"], [PYTHON, floor, "verify"]),
        "export": ([PYTHON, "-m", "adjudicator", "journal", "export"], [PYTHON, floor, "export"]),
    }
    found = {}
    for name, (command, floor_command) in jobs.items():
        timed_process(command, env)  # once first, so the bytecode is cached
        runs = []
        for _ in range(repeat):
            seconds, peak, code = timed_process(command, env)
            assert code == 0, f"journal {name} exited {code}"
            floor_seconds, floor_peak, _ = timed_process([*floor_command, season.url], env)
            runs.append((seconds, peak, floor_seconds, floor_peak))
        ratios = [run[0] / run[2] for run in runs]  # each run beside its own floor run
        found[name] = {
            "seconds": min(run[0] for run in runs),
            "peak_mib": max(run[1] for run in runs),
            "floor_seconds": min(run[2] for run in runs),
            "floor_peak_mib": max(run[3] for run in runs),
            "ratio_min": min(ratios),
            "ratio_max": max(ratios),
            "ratio_median": statistics.median(ratios),
            "ratio_of_best": min(run[0] for run in runs) / min(run[2] for run in runs),
        }
    return found


# --- the run ----------------------------------------------------------------------------------


def run_backend(backend: str, sizes: list[int], repeat: int, views: int) -> list[dict]:
    results = []
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="scaling-")))
        url = seasons.journal_url(stack, backend, folder, "scaling")
        season = seasons.prepare(folder / "home", url)
        for size in sizes:
            started = time.perf_counter()
            added = seasons.fill(season, size)
            fill_seconds = time.perf_counter() - started
            print(f"[{backend}] filled to {size:,} rows (+{added:,} in {fill_seconds:.0f} s)")
            result = {"backend": backend, "rows": size, "fill_seconds": fill_seconds}
            result.update(measure_pages(season, views))
            result.update(measure_export_verify(season, repeat))
            result.update(measure_adjudications(season, clients=6, per_client=smallest(100, 8)))
            print(json.dumps(result, indent=1))
            results.append(result)
    return results


def table(results: list[dict]) -> str:
    """The results as Markdown tables: pages and memory, export and verify, adjudications."""
    labels = list(PAGES)
    lines = [
        "| journal | rows | " + " | ".join(labels) + " | worker VmRSS after viewing |",
        "|---|---|" + "---|" * (len(labels) + 1),
    ]
    for r in results:
        pages = " | ".join(f"{r['pages_ms'][label]:.1f}" for label in labels)
        lines.append(
            f"| {r['backend']} | {r['rows']:,} | {pages} | {r['worker_rss_after_mib']:.1f} MiB |"
        )
    lines += [
        "",
        "| journal | rows | verify s (floor s) | verify / floor (best; each run) "
        "| verify peak MiB (floor) | export s (floor s) | export / floor (best; each run) "
        "| export peak MiB (floor) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        v, e = r["verify"], r["export"]
        lines.append(
            f"| {r['backend']} | {r['rows']:,} "
            f"| {v['seconds']:.2f} ({v['floor_seconds']:.2f}) "
            f"| {v['ratio_of_best']:.2f}; {v['ratio_min']:.2f}-{v['ratio_max']:.2f} "
            f"| {v['peak_mib']:.0f} ({v['floor_peak_mib']:.0f}) "
            f"| {e['seconds']:.2f} ({e['floor_seconds']:.2f}) "
            f"| {e['ratio_of_best']:.2f}; {e['ratio_min']:.2f}-{e['ratio_max']:.2f} "
            f"| {e['peak_mib']:.0f} ({e['floor_peak_mib']:.0f}) |"
        )
    lines += [
        "",
        "| journal | rows | adjudications p50 / p99 ms (6 clients) | per s | failed |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['backend']} | {r['rows']:,} | {r['adjudication_p50_ms']:.1f} / "
            f"{r['adjudication_p99_ms']:.1f} | {r['adjudications_per_s']:.0f} "
            f"| {r['adjudication_failures']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--repeat", type=int, default=3, help="export/verify runs per size")
    parser.add_argument("--views", type=int, default=15, help="views of each page per size")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args(argv)
    cache_bytecode()
    sizes = sorted(int(size) for size in args.sizes.split(","))
    results = []
    for backend in args.backends.split(","):
        results += run_backend(backend, sizes, args.repeat, args.views)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
