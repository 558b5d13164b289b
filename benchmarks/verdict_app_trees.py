"""Issue 45: the app's own CPU for one verdict, in process, for several checkouts side by side.

    .venv/bin/python benchmarks/verdict_app_trees.py TREE [TREE ...] [--rounds 16]
        [--per-round 400] [--accept-language pl]

One process per checkout (its own data home, made by tests/support/servers.prepare_home),
each calling the app's WSGI entry with the same challenges as verdict_layers.py (POST
/api/v1/adjudications with the kiosk's bearer token, no server, no client), in rounds that
alternate between the checkouts (the order reversed every other round). Each round's CPU is
the calling thread's (time.thread_time: user and system, the commit's fsync included, the
worker's background threads not); printed: the median per verdict and its difference from
the first checkout's. Used to say what each change took off (checkouts of main with the
changes applied one by one); over the wire, against the minimal app, see verdict_threads.py.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def serve_rounds(accept_language: str) -> None:
    """In a checkout's own process: after a warm-up, on each line N of stdin, N verdicts;
    prints the thread CPU per verdict in ms."""
    sys.path.insert(0, os.environ["TREE"])
    from benchmarks import verdict_layers

    from tests.support.servers import prepare_home

    home = prepare_home(Path(tempfile.mkdtemp(prefix="verdict-app-")) / "home")
    os.environ["ADJUDICATOR_HOME"] = str(home.path)
    os.environ["ADJUDICATOR_KIOSK_RATE_LIMIT"] = "off"
    from kiosk import create_app

    app = create_app()

    def call(n: int) -> None:
        # Its own environ, not verdict_layers.verdict_environ: this runs on another tree's
        # benchmarks too (--before), which may be older than that helper.
        body = verdict_layers.BODIES[n % 4]
        environ = {
            "REQUEST_METHOD": "POST", "SCRIPT_NAME": "", "PATH_INFO": "/api/v1/adjudications",
            "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8443",
            "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1", "wsgi.url_scheme": "https",
            "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.multithread": True,
            "wsgi.multiprocess": True, "wsgi.run_once": False, "wsgi.version": (1, 0),
            "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
            "HTTP_AUTHORIZATION": f"Bearer {home.token}", "HTTP_HOST": "127.0.0.1:8443",
        }  # fmt: skip
        if accept_language:
            environ["HTTP_ACCEPT_LANGUAGE"] = accept_language
        statuses = []
        b"".join(app(environ, lambda status, headers, exc=None: statuses.append(status)))
        assert statuses[0].startswith("201"), statuses

    for n in range(300):
        call(n)
    print("ready", flush=True)
    for line in sys.stdin:
        count = int(line)
        began = time.thread_time()
        for n in range(count):
            call(n)
        print(f"{(time.thread_time() - began) * 1000 / count:.4f}", flush=True)


def main(argv: list[str] | None = None) -> dict[str, list[float]]:
    """Each checkout's CPU per verdict (ms), round by round."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path, help="checkouts (the first: the base)")
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--per-round", type=int, default=400)
    parser.add_argument("--accept-language", default="", help="sent with each challenge")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # one tree's
    args = parser.parse_args(argv)
    if args.serve:
        serve_rounds(args.accept_language)
        return {}
    trees = [str(tree.resolve()) for tree in args.trees]
    running = {}
    for tree in dict.fromkeys(trees):
        command = [sys.executable, __file__, "--serve", "--accept-language", args.accept_language]
        running[tree] = subprocess.Popen(
            [*command, tree],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "TREE": tree, "PYTHONPATH": tree},
            cwd=tempfile.gettempdir(),
        )
        assert running[tree].stdout.readline().strip() == "ready", f"{tree} did not start"
    used: dict[str, list[float]] = {tree: [] for tree in running}
    try:
        for round_number in range(args.rounds):
            order = list(running) if round_number % 2 == 0 else list(reversed(running))
            for tree in order:
                process = running[tree]
                process.stdin.write(f"{args.per_round}\n")
                process.stdin.flush()
                used[tree].append(float(process.stdout.readline()))
    finally:
        for process in running.values():
            process.stdin.close()
            process.wait()
    base = statistics.median(used[trees[0]])
    print(f"the app's CPU per verdict, in process (median of {args.rounds} rounds):")
    for tree, values in used.items():
        median = statistics.median(values)
        print(f"  {tree:<50} {median:.3f} ms  ({(median - base) * 1000:+.1f} us)")
    return used


if __name__ == "__main__":
    main()
