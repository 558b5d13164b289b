"""Issue 9's cost under load: adjudications per second with signed receipts and the journal's
identity check (journal id, newest known row and, for SQLite, the -wal/-shm/db files stat'ed
before and after each commit), side by side with the same server without them (the floor,
benchmarks/floor_wsgi.py). Target: at most 10% fewer adjudications per second.

    python benchmarks/load_receipts.py [--rounds 3] [--seconds 10] [--connections 32]

Both servers run at the same time, each on its own data home and durable SQLite journal (2
workers x 16 threads, rate limit off): `adjudicator serve`, and gunicorn on the floor app with
the same options, on the worker `serve` runs (the loop worker). One wrk per server drives POST
/api/v1/adjudications with half the connections each, for the same seconds, so whatever else the
shared machine is doing hits both alike; the ratio of their throughputs is the figure. On a busy
machine that ratio swings by tens of percent from round to round (`--same floor` shows it with
one app on both servers), so each round also reports the CPU time the server's processes spent
per adjudication (/proc/<pid>/stat), which other load barely touches. Loopback only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load_kiosk import LUA_POST, wrk  # noqa: E402

from tests.support.servers import Server, cli, prepare_home  # noqa: E402


class FloorServer(Server):
    """gunicorn on benchmarks.floor_wsgi:app, with the options and worker `adjudicator serve`
    uses."""

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "gunicorn",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            str(self.workers),
            "--worker-class",
            "kiosk.server.loop_worker.LoopWorker",
            "--threads",
            "16",
            "--access-logfile",  # as `adjudicator serve` does: one line per request
            "-",
            "--access-logformat",
            '%(h)s "%(r)s" %(s)s %(M)sms',
            "--graceful-timeout",
            "5",
            "--no-control-socket",
            "--chdir",
            str(ROOT),
            "benchmarks.floor_wsgi:app",
        ]


def cpu_seconds(master: int) -> float:
    """User + system CPU of a gunicorn master and its workers so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) == master or int(fields[1]) == master:
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def measure_together(servers: dict, connections: int, seconds: int) -> dict:
    """One wrk per server at once; each server's result by name, with its CPU per request."""
    results: dict = {}
    before = {name: cpu_seconds(server.process.pid) for name, (server, _) in servers.items()}

    def one(name: str) -> None:
        server, token = servers[name]
        results[name] = wrk(
            server.url + "/api/v1/adjudications",
            LUA_POST.format(token=token),
            connections // 2,
            seconds,
            threads=1,
        )

    runners = [threading.Thread(target=one, args=(name,)) for name in servers]
    for runner in runners:
        runner.start()
    for runner in runners:
        runner.join()
    for name, (server, _) in servers.items():
        spent = cpu_seconds(server.process.pid) - before[name]
        results[name]["cpu_ms"] = 1000 * spent / max(1, results[name]["requests"])
    return results


def ready_home(path: Path):
    home = prepare_home(path)
    cli(home.path, "journal", "key")  # the keys exist before any worker starts
    Server(home).start().kill()  # and the app's secret key
    return home


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument(
        "--same",
        choices=("floor", "full"),
        default=None,
        help="calibration: run this app on both servers, to see the noise of the ratio",
    )
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is not installed: apt-get install wrk")
    with tempfile.TemporaryDirectory() as folder:
        homes = {kind: ready_home(Path(folder) / kind) for kind in ("floor", "full")}
        kinds = {"floor": FloorServer, "full": Server}
        servers = {
            kind: (kinds[args.same or kind](homes[kind], workers=2).start(), homes[kind].token)
            for kind in ("floor", "full")
        }
        ratios, cpu_ratios = [], []
        try:
            print(
                "| round | floor per s | with receipts + checks per s | ratio "
                "| CPU ms per adjudication, floor / full | CPU ratio (floor / full) |"
            )
            print("|---|---|---|---|---|---|")
            for round_no in range(1, args.rounds + 1):
                results = measure_together(servers, args.connections, args.seconds)
                for kind, result in results.items():
                    failed = result["errors"] + result["non2xx"]
                    assert failed == 0, f"{kind}: {failed} requests failed"
                floor, full = results["floor"], results["full"]
                ratios.append(full["per_second"] / floor["per_second"])
                cpu_ratios.append(floor["cpu_ms"] / full["cpu_ms"])
                print(
                    f"| {round_no} | {floor['per_second']:,.0f} | {full['per_second']:,.0f} | "
                    f"{ratios[-1]:.0%} | {floor['cpu_ms']:.2f} / {full['cpu_ms']:.2f} | "
                    f"{cpu_ratios[-1]:.0%} |",
                    flush=True,
                )
        finally:
            for server, _ in servers.values():
                server.kill()
        for label, values in (("throughput", ratios), ("CPU", cpu_ratios)):
            median, low, high = statistics.median(values), min(values), max(values)
            print(f"median {label} ratio {median:.0%} (range {low:.0%}-{high:.0%})")
        for kind, home in homes.items():
            print(kind, cli(home.path, "journal", "verify").strip().splitlines()[0])


if __name__ == "__main__":
    main()
