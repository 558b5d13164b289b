"""Issue 45: a verdict's latency while a thousand kiosks hold their status polls, against the
same verdicts on a server nobody polls, in one run.

    .venv/bin/python benchmarks/held_poll_verdicts.py [--before TREE] [--kiosks 1000]
        [--seconds 60] [--warm-up 25] [--rounds 2] [--rate 5] [--nice -19]

Each run serves over HTTPS on 127.0.0.1 (`adjudicator serve`, 2 workers, the hall's own
certificate, no cap on connections per address: every kiosk comes from 127.0.0.1 here) the data
home of benchmarks/load_polls.py (one tournament linked to TSH, 100 tables, `--kiosks` kiosks
each holding a receipt). A probe in a process of its own (so the kiosks' client never delays it)
posts one challenge every 1/`--rate` s on a kept-alive TLS connection of its own kiosk and times
each answer (wall clock: what the player waits). Runs:

- quiet: nobody polls (the floor);
- held: the kiosks poll as the page does (`GET /api/v1/kiosk?wait=25`, held by the server,
  asked again at once when answered; kiosks start spread over the first 5 s);
- held-before (with `--before TREE`): the same on another checkout (one whose held polls all
  last exactly 20 s, its most, so the kiosks re-poll in the burst they started in).

After `--warm-up` seconds (every kiosk's first answer in, its poll held), the probe runs for
`--seconds`; printed per run: the verdicts' p50, p90, p99 and most, and the server's CPU; at
the end, each kind's percentiles over every round's verdicts together. The
runs alternate within each round, so a swing in the machine's other load hits each alike.
`--nice -19` (root) runs the servers and the probe ahead of the machine's other work.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import resource
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import load_polls  # noqa: E402
from benchmarks.load_hall_tls import group_cpu_seconds  # noqa: E402
from benchmarks.tree_options import trees_parser  # noqa: E402

CHALLENGE = json.dumps({"words": ["QI", "ZA"]}).encode()


def probe(port: int, ca: str, token: str, seconds: float, rate: float) -> list[float]:
    """Post a challenge every 1/rate s for `seconds` on one kept-alive connection: the seconds
    each answer took (a refused or failed one counts as None)."""
    context = ssl.create_default_context(cafile=ca)
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=30)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    waits: list[float] = []
    began = time.monotonic()
    for n in range(int(seconds * rate)):
        time.sleep(max(0.0, began + n / rate - time.monotonic()))
        started = time.perf_counter()
        try:
            connection.request("POST", "/api/v1/adjudications", CHALLENGE, headers)
            answer = connection.getresponse()
            answer.read()
            waits.append(time.perf_counter() - started if answer.status == 201 else None)
        except (OSError, http.client.HTTPException):
            connection.close()
            waits.append(None)
    connection.close()
    return waits


def run_probe(port: int, home: load_polls.Home, token: str, args) -> list[float]:
    """The probe in a process of its own, for `args.seconds`."""
    niced = ["nice", "-n", str(args.nice)] if args.nice else []  # as the server, if it is
    done = subprocess.run(
        [
            *niced,
            sys.executable,
            __file__,
            "--probe",
            json.dumps([port, str(home.ca), token, args.seconds, args.rate]),
        ],  # fmt: skip
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


async def with_kiosks(port: int, home: load_polls.Home, tokens: list[str], args) -> list:
    """The kiosks polling as the page does while the probe runs (after the warm-up)."""
    context = ssl.create_default_context(cafile=str(home.ca))
    counts = load_polls.Counts()
    kiosks = [
        load_polls.Kiosk("after", port, context, token, receipt, counts)
        for token, receipt in zip(tokens, home.receipts, strict=False)
    ]
    tasks = [asyncio.create_task(kiosk.run()) for kiosk in kiosks]
    await asyncio.sleep(args.warm_up)
    loop = asyncio.get_running_loop()
    waits = await loop.run_in_executor(None, run_probe, port, home, home.tokens[-1], args)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for kiosk in kiosks:
        if kiosk.connection is not None:
            kiosk.connection.close()
    return [waits, counts.requests, counts.errors]


def one_run(kind: str, tree: Path, home: load_polls.Home, args) -> dict:
    process, port = load_polls.start_server("after", tree, home, args)
    try:
        cpu = group_cpu_seconds(process.pid)
        began = time.monotonic()
        if kind == "quiet":
            time.sleep(min(args.warm_up, 2.0))
            waits, polls, errors = run_probe(port, home, home.tokens[-1], args), 0, 0
        else:
            kiosks = home.tokens[: args.kiosks]
            waits, polls, errors = asyncio.run(with_kiosks(port, home, kiosks, args))
        cpu = group_cpu_seconds(process.pid) - cpu
        elapsed = time.monotonic() - began
    finally:
        os.killpg(process.pid, 9)
        process.wait()
    answered = sorted(w for w in waits if w is not None)
    return {
        "kind": kind,
        "tree": tree.name,
        "verdicts": len(answered),
        "failed": len(waits) - len(answered),
        "p50_ms": _percentile(answered, 50) * 1000,
        "p90_ms": _percentile(answered, 90) * 1000,
        "p99_ms": _percentile(answered, 99) * 1000,
        "most_ms": answered[-1] * 1000,
        "waits": answered,
        "kiosk_requests": polls,
        "kiosk_errors": errors,
        "server_cpu_share": cpu / elapsed / (os.cpu_count() or 2),
    }


def _percentile(values: list[float], p: float) -> float:
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def line(r: dict) -> str:
    return (
        f"{r['kind']:<12} verdicts {r['verdicts']:4d} (failed {r['failed']})  p50 "
        f"{r['p50_ms']:6.1f}  p90 {r['p90_ms']:6.1f}  p99 {r['p99_ms']:6.1f}  most "
        f"{r['most_ms']:6.1f} ms  (kiosk requests {r['kiosk_requests']}, errors "
        f"{r['kiosk_errors']}; server {r['server_cpu_share']:.0%} of the machine)"
    )


def main(argv: list[str] | None = None) -> list[dict]:
    """Every run's figures, as --json writes them."""
    parser = trees_parser(__doc__, "a checkout whose held polls all last 20 s")
    parser.add_argument("--kiosks", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warm-up", type=float, default=25)
    parser.add_argument("--rate", type=float, default=5, help="verdicts a second")
    parser.add_argument("--header-timeout", type=int, default=10)
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    args = parser.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8 * args.kiosks)), hard))
    runs = [("quiet", args.after), ("held", args.after)]
    if args.before:
        runs.append(("held-before", args.before))
    results = []
    with tempfile.TemporaryDirectory(prefix="held-verdicts-") as folder:
        home = load_polls.make_home(Path(folder), args.kiosks + 1, True)  # the last: the probe
        for index in range(args.rounds):
            for kind, tree in runs if index % 2 == 0 else reversed(runs):
                result = one_run(kind, tree.resolve(), home, args)
                print(line(result), flush=True)
                results.append(result)
    print(f"\nmedians over {args.rounds} rounds ({args.kiosks} kiosks, {args.seconds:.0f} s):")
    pooled = {
        kind: sorted(wait for r in results if r["kind"] == kind for wait in r["waits"])
        for kind, _ in runs
    }
    quiet = _percentile(pooled["quiet"], 99)
    for kind, _ in runs:
        mine = [r for r in results if r["kind"] == kind]
        p99 = statistics.median(r["p99_ms"] for r in mine)
        every = pooled[kind]
        print(
            f"{kind:<12} p50 {statistics.median(r['p50_ms'] for r in mine):6.1f} ms  p99 "
            f"{p99:6.1f} ms (median of rounds); all {len(every)} verdicts: p50 "
            f"{_percentile(every, 50) * 1000:6.1f}  p90 {_percentile(every, 90) * 1000:6.1f}  "
            f"p99 {_percentile(every, 99) * 1000:6.1f} ms ({_percentile(every, 99) / quiet:.2f}x "
            "quiet's)"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    if sys.argv[1:2] == ["--probe"]:
        port, ca, token, seconds, rate = json.loads(sys.argv[2])
        print(json.dumps(probe(port, ca, token, seconds, rate)))
    else:
        main()
