"""Kiosks judging while a player floods the sign-in page (issue 10): does the flood hurt them?

Starts a real server (gunicorn, 2 workers x 16 threads, SQLite journal, real argon2 hashes),
then measures kiosk challenges side by side, in one run:
  floor:   K kiosk threads alone for S seconds;
  control: the same while F attacker threads only fetch the sign-in page, as fast as they can
           (what any flood of requests costs: the attackers share the machine's two cores);
  flood:   the same while F attacker threads send wrong director passwords, each from a new
           loopback address every 4 tries (so every address spends its free,
           password-checked attempts: the costliest flood the throttle allows).
Prints, per phase: challenges per second, p50 / p95 latency, and for the flood the sign-in
attempts sent, how many were password-checked (401) and how many refused unchecked (429).

    .venv/bin/python benchmarks/login_flood.py [--seconds 10] [--kiosks 4] [--attackers 8]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.attacks import staffed_home  # noqa: E402
from tests.support.http import Client  # noqa: E402
from tests.support.servers import Server  # noqa: E402


def kiosk_phase(server: Server, kiosks: int, seconds: float) -> list[float]:
    """Challenge latencies (s) from `kiosks` threads for `seconds`; every answer must be 201."""
    latencies: list[float] = []
    statuses: Counter = Counter()
    stop = time.monotonic() + seconds

    def run() -> None:
        while time.monotonic() < stop:
            start = time.monotonic()
            status, _ = server.adjudicate(["QI", "ZA"])
            latencies.append(time.monotonic() - start)
            statuses[status] += 1

    threads = [threading.Thread(target=run) for _ in range(kiosks)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(statuses) == {201}, statuses
    return latencies


def flood(server: Server, attackers: int, stop: threading.Event, tally: Counter, sign_in=True):
    addresses = (f"127.{a}.{b}.{c}" for a in (1, 2) for b in range(256) for c in range(1, 255))
    lock = threading.Lock()

    def run() -> None:
        while not stop.is_set():
            with lock:
                address = next(addresses)
            client = Client(server.url, address)
            for n in range(4):
                if sign_in:
                    reply = client.sign_in("director", f"wrong-{n}")
                else:
                    reply = client.get("/director/login")
                tally[reply.status] += 1

    threads = [threading.Thread(target=run, daemon=True) for _ in range(attackers)]
    for thread in threads:
        thread.start()
    return threads


def with_attackers(server: Server, args, tally: Counter, sign_in: bool):
    """Kiosk latencies while attackers run; and how many requests the attackers made."""
    stop = threading.Event()
    attackers = flood(server, args.attackers, stop, tally, sign_in)
    time.sleep(1)  # the attackers are running before the kiosks start
    latencies = kiosk_phase(server, args.kiosks, args.seconds)
    stop.set()
    for thread in attackers:
        thread.join(30)
    return latencies, sum(tally.values())


def describe(name: str, latencies: list[float], seconds: float) -> str:
    ordered = sorted(latencies)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return (
        f"{name:<8} {len(latencies) / seconds:7.1f} challenges/s  "
        f"p50 {statistics.median(ordered) * 1000:6.1f} ms  p95 {p95 * 1000:6.1f} ms"
    )


def main(argv: list[str] | None = None) -> list[dict]:
    """Each round's phases (their latencies) and the flood's sign-in attempts by status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--kiosks", type=int, default=4)
    parser.add_argument("--attackers", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    results = []
    home = staffed_home(Path(tempfile.mkdtemp(prefix="login-flood-")) / "home")
    with Server(home) as server:
        kiosk_phase(server, args.kiosks, 2)  # warm up
        for round_no in itertools.count(1):
            if round_no > args.rounds:
                break
            floor = kiosk_phase(server, args.kiosks, args.seconds)
            control, pages = with_attackers(server, args, Counter(), sign_in=False)
            tally = Counter()
            flooded, _ = with_attackers(server, args, tally, sign_in=True)
            results.append(
                {
                    "floor": floor,
                    "control": control,
                    "flood": flooded,
                    "pages": pages,
                    "sign_ins": dict(tally),
                }  # fmt: skip
            )
            print(f"round {round_no}")
            print(" ", describe("floor", floor, args.seconds))
            print(" ", describe("control", control, args.seconds), f"({pages} pages fetched)")
            print(" ", describe("flood", flooded, args.seconds))
            for name, phase in (("control", control), ("flood", flooded)):
                print(
                    f"  ratio {name}/floor: throughput {len(phase) / len(floor):.2f}, "
                    f"p50 {statistics.median(phase) / statistics.median(floor):.2f}"
                )
            print(
                f"  sign-in attempts: {sum(tally.values())} "
                f"({tally[401]} password-checked, {tally[429]} refused unchecked, "
                f"others {dict((k, v) for k, v in tally.items() if k not in (401, 429))})"
            )
    return results


if __name__ == "__main__":
    main()
