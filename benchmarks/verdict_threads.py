"""Issue 45: a verdict's server CPU over TLS against a minimal request's on the same worker,
split by thread (the event loop's, the app's), for one checkout or two side by side.

    .venv/bin/python benchmarks/verdict_threads.py [--before TREE] [--batches 6]
        [--per-batch 500] [--nice -19]

Four servers at once at most (one worker each, 16 threads, the access log written as `serve`
writes it, the hall's own certificate): `adjudicator serve` (the verdict) and
benchmarks/minimal_app.py under the same loop worker (read the JSON body, answer 201), from
this checkout and, with `--before`, from another. Each is sent the same challenges one after
another on one kept-alive TLS connection, in batches that alternate between them; each
batch's CPU is read per thread from /proc/<worker>/task: the worker's main thread (Tornado's
loop: TLS, HTTP parsing and writing, the hand-off to a thread and back, the access log) and the
others (the app's threads; the worker's background threads are idle here), user and system.
Printed: the medians per request and the ratio of the verdict to the minimal request.
"""

from __future__ import annotations

import argparse
import collections
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import verdict_layers  # noqa: E402

from tests.support.servers import free_port, prepare_home  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def per_thread(worker: int) -> collections.Counter:
    """CPU seconds so far of the worker's loop thread and of its other threads, user and system."""
    found: collections.Counter = collections.Counter()
    for tid in os.listdir(f"/proc/{worker}/task"):
        try:
            fields = Path(f"/proc/{worker}/task/{tid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        kind = "loop" if tid == str(worker) else "app"
        found[f"{kind}_user"] += int(fields[11]) / TICK
        found[f"{kind}_system"] += int(fields[12]) / TICK
    return found


def main(argv: list[str] | None = None) -> dict[str, dict]:
    """Each server's medians per request (ms), by thread and in total."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout, side by side")
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--per-batch", type=int, default=500)
    parser.add_argument("--nice", type=int, default=0, help="the servers' niceness (root)")
    args = parser.parse_args(argv)
    trees = {"after": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    with tempfile.TemporaryDirectory(prefix="verdict-threads-") as folder:
        home = prepare_home(Path(folder) / "home")
        os.environ["ADJUDICATOR_HOME"] = str(home.path)
        from adjudicator.hall.network import hall_tls

        tls = hall_tls.ensure("bench", ["127.0.0.1"], own_networks=[])
        commands = verdict_layers.servers(home, tls)
        context = ssl.create_default_context(cafile=str(tls.ca_cert))
        running: dict[str, tuple] = {}
        try:
            for tree_name, tree in trees.items():
                env = {**os.environ, "ADJUDICATOR_HOME": str(home.path),
                       "ADJUDICATOR_KIOSK_RATE_LIMIT": "off",
                       "ADJUDICATOR_HEADER_TIMEOUT_SECONDS": "60",
                       "PYTHONPATH": str(tree)}  # fmt: skip
                for kind in ("serve-tls", "minimal-tls"):
                    argv, secure = commands[kind]
                    port = free_port()
                    process = verdict_layers.start(argv, env, port, secure, context)
                    worker = int(
                        subprocess.run(
                            ["pgrep", "-P", str(process.pid)], capture_output=True, text=True
                        ).stdout.split()[-1]  # fmt: skip
                    )
                    if args.nice:
                        os.setpriority(os.PRIO_PGRP, process.pid, args.nice)
                    connection = verdict_layers.connect(port, context)
                    verdict_layers.send(connection, home.token, 50)  # warm up
                    running[f"{kind}@{tree_name}"] = (process, worker, connection)
            used = {label: [] for label in running}
            for batch in range(args.batches):
                order = list(running) if batch % 2 == 0 else list(reversed(running))
                for label in order:
                    _, worker, connection = running[label]
                    before = per_thread(worker)
                    judged = verdict_layers.send(connection, home.token, args.per_batch, batch)
                    after = per_thread(worker)
                    assert judged == args.per_batch, f"{label}: only {judged} answered"
                    used[label].append({k: (after[k] - before[k]) * 1000 / judged for k in after})
        finally:
            for process, _, _ in running.values():
                os.killpg(process.pid, 9)
                process.wait()
    print("server CPU per request, ms (median of the batches):")
    medians = {}
    for label, batches in used.items():
        keys = batches[0].keys()
        medians[label] = {k: statistics.median(b[k] for b in batches) for k in keys}
        medians[label]["total"] = statistics.median(sum(b.values()) for b in batches)
        shown = "  ".join(f"{k} {v:.3f}" for k, v in sorted(medians[label].items()))
        print(f"  {label:<20} {shown}")
    for tree_name in trees:
        verdict, minimal = medians[f"serve-tls@{tree_name}"], medians[f"minimal-tls@{tree_name}"]
        ratio = verdict["total"] / minimal["total"] if minimal["total"] else float("nan")
        print(  # a few requests may use less CPU than the kernel's tick counts (nan)
            f"{tree_name}: verdict {verdict['total']:.3f} ms / minimal {minimal['total']:.3f} ms "
            f"= {ratio:.2f}; the loop thread "
            f"{verdict['loop_user'] + verdict['loop_system']:.3f} / "
            f"{minimal['loop_user'] + minimal['loop_system']:.3f} ms"
        )
    return medians


if __name__ == "__main__":
    main()
