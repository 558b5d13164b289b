"""Issue 33: kiosks' verdicts while one address holds 3,000 idle connections, against none.

Starts a real server (gunicorn, 2 workers x 16 threads, SQLite journal) and measures, in one
run, phases that alternate within each round:
  none:   K kiosk threads at 127.0.0.2 for S seconds, each challenge on a new connection (the
          costliest way for a kiosk: its connection must get through the listening backlog);
  flood:  the same while one laptop at 127.0.0.1 holds `--flood` idle connections, reopening
          each as soon as it is closed (tests/support/idle_flood.py, a process of its own).
With `--uncapped`, a second server with ADJUDICATOR_CONNECTIONS_PER_ADDRESS=0 (no cap per
address: the code before issue 33) runs the flood phase too, for comparison. Prints, per
phase: verdicts per second, p50 / p99 / slowest latency, the server's CPU seconds, and the
flood's own counts and CPU seconds.

    .venv/bin/python benchmarks/connection_flood.py [--seconds 10] [--kiosks 4] [--rounds 3]
        [--flood 3000] [--uncapped] [--nice -19]

`--nice -19` (as root) runs the servers and the kiosks' threads ahead of the machine's other
work (a hall laptop runs the hall alone; each kiosk is a tablet of its own); the laptop's flood
keeps the ordinary priority, and still shares this machine's two cores with them.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load_hall_tls import group_cpu_seconds  # noqa: E402

from tests.support.attacks import cheaply_staffed_home  # noqa: E402
from tests.support.http import challenge_from  # noqa: E402
from tests.support.idle_flood import IdleFlood  # noqa: E402
from tests.support.servers import Server  # noqa: E402

KIOSKS = "127.0.0.2"
ATTACKER = "127.0.0.1"


def verdict(server: Server) -> None:
    reply = challenge_from(server.url, KIOSKS, server.home.token)
    if reply.status != 201 or '"verdict"' not in reply.body:
        raise AssertionError(f"no verdict: {reply.status} {reply.body[:200]}")


def kiosk_phase(server: Server, kiosks: int, seconds: float) -> list[float]:
    """Verdict latencies (s) from `kiosks` threads for `seconds`; every one must be a verdict."""
    latencies: list[float] = []
    failures: list[str] = []
    stop = time.monotonic() + seconds

    def run() -> None:
        while time.monotonic() < stop:
            start = time.monotonic()
            try:
                verdict(server)
            except (AssertionError, OSError) as error:
                failures.append(repr(error))
                continue
            latencies.append(time.monotonic() - start)

    threads = [threading.Thread(target=run) for _ in range(kiosks)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise AssertionError(f"{len(failures)} challenges got no verdict: {failures[:3]}")
    return latencies


def measured(server: Server, args) -> tuple[list[float], float]:
    """A kiosk phase: its latencies, and the server's CPU seconds meanwhile."""
    cpu = group_cpu_seconds(server.process.pid)
    latencies = kiosk_phase(server, args.kiosks, args.seconds)
    return latencies, group_cpu_seconds(server.process.pid) - cpu


def flooded(server: Server, args) -> tuple[list[float], float, dict]:
    """A kiosk phase during the flood: its latencies, the server's CPU seconds meanwhile, and
    the flood's report (with its own CPU seconds over the whole phase)."""
    with IdleFlood("127.0.0.1", server.port, args.flood, ATTACKER) as flood:
        time.sleep(3)  # every connection opened, the cap reached
        latencies, cpu = measured(server, args)
        flood_cpu = process_cpu_seconds(flood.process.pid)
        report = flood.stop()
    return latencies, cpu, {**report, "flood_cpu_s": round(flood_cpu, 1)}


def process_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def describe(name: str, latencies: list[float], seconds: float, cpu: float) -> str:
    ordered = sorted(latencies)
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)]
    return (
        f"{name:<16} {len(latencies) / seconds:7.1f} verdicts/s  "
        f"p50 {statistics.median(ordered) * 1000:7.1f} ms  p99 {p99 * 1000:7.1f} ms  "
        f"slowest {ordered[-1] * 1000:7.1f} ms  server CPU {cpu:5.1f} s "
        f"({cpu / max(1, len(latencies)) * 1000:.2f} ms a verdict)"
    )


def renice(server: Server, nice: int | None) -> None:
    """Run the server's processes at `nice` (as on a hall laptop, where it runs alone)."""
    if nice is None:
        return
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            group = int(stat.read_text().rsplit(")", 1)[1].split()[2])
        except (OSError, ValueError, IndexError):
            continue
        if group == server.process.pid:
            os.setpriority(os.PRIO_PROCESS, int(stat.parent.name), nice)


def main(argv: list[str] | None = None) -> list[dict]:
    """Every phase of every round: its name, its verdicts, the server's CPU seconds and the
    flood's report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--kiosks", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--flood", type=int, default=3000)
    parser.add_argument("--uncapped", action="store_true")
    parser.add_argument("--nice", type=int, default=None)
    args = parser.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))
    folder = Path(tempfile.mkdtemp(prefix="connection-flood-"))
    servers = [("capped (64)", Server(cheaply_staffed_home(folder / "capped")).start())]
    if args.uncapped:
        env = {"ADJUDICATOR_CONNECTIONS_PER_ADDRESS": "0"}
        uncapped = Server(cheaply_staffed_home(folder / "uncapped"), env=env).start()
        servers.append(("uncapped (0)", uncapped))
    if args.nice is not None:  # the kiosks too: they are devices of their own in a hall
        os.setpriority(os.PRIO_PROCESS, 0, args.nice)
    results = []

    def kept(phase: str, latencies: list[float], cpu: float, report: dict | None = None):
        results.append({"phase": phase, "verdicts": len(latencies), "cpu_s": cpu, **(report or {})})

    try:
        for _, server in servers:
            renice(server, args.nice)
            kiosk_phase(server, args.kiosks, 2)  # warm up
        for round_no in range(1, args.rounds + 1):
            print(f"round {round_no}", flush=True)
            capped = servers[0][1]
            none, cpu = measured(capped, args)
            print(" ", describe("none", none, args.seconds, cpu), flush=True)
            kept("none", none, cpu)
            with_flood, cpu, report = flooded(capped, args)
            print(" ", describe("flood, capped", with_flood, args.seconds, cpu), report, flush=True)
            kept("flood, capped", with_flood, cpu, report)
            print(
                f"  ratio flood/none: throughput {len(with_flood) / len(none):.2f}, "
                f"p50 {statistics.median(with_flood) / statistics.median(none):.2f}",
                flush=True,
            )
            for name, server in servers[1:]:
                latencies, cpu, report = flooded(server, args)
                said = describe(f"flood, {name}", latencies, args.seconds, cpu)
                print(" ", said, report, flush=True)
                kept(f"flood, {name}", latencies, cpu, report)
    finally:
        for _, server in servers:
            server.stop()
    return results


if __name__ == "__main__":
    main()
