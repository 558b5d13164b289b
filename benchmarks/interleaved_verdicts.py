"""Issue 26: one verdict at a time (a tablet's view), to two `adjudicator serve` processes in
turn, each from its own source tree, so both see the same moment of a shared machine's load.

    .venv/bin/python benchmarks/interleaved_verdicts.py BEFORE_TREE AFTER_TREE [--nice -19]

Each tree (unpacked with `git archive REV | tar -x -C DIR`) comes first on PYTHONPATH for its
server (one worker, the journal mirror on, in a data home of its own). 600 GET /healthz, then
600 POST /api/v1/adjudications (`--count`), alternate between the two servers over one
kept-alive connection each; prints the p50, p90 and p99 of each.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.servers import Server, prepare_home  # noqa: E402

COUNT, WARM_UP = 600, 50


class NiceServer(Server):
    """`adjudicator serve` at a given niceness (negative needs root)."""

    niceness = 0

    def command(self) -> list[str]:
        return ["nice", "-n", str(self.niceness), *super().command()]


def one(connection: http.client.HTTPConnection, path: str, token: str) -> float:
    """One request's milliseconds, its answer read whole (it must be a success)."""
    started = time.perf_counter()
    if path == "/healthz":
        connection.request("GET", path)
    else:
        body = json.dumps({"words": ["QI", "ZA"]})
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        connection.request("POST", path, body=body, headers=headers)
    answer = connection.getresponse()
    answer.read()
    assert answer.status in (200, 201), answer.status
    return (time.perf_counter() - started) * 1000


def main(argv: list[str] | None = None) -> dict[str, dict]:
    """{path: {server: {p50, p90, p99}}} in milliseconds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs=2, type=Path)
    parser.add_argument("--nice", type=int, default=0)
    parser.add_argument("--count", type=int, default=COUNT, help="requests timed per path")
    args = parser.parse_args(argv)
    warm_up = min(WARM_UP, args.count)
    NiceServer.niceness = args.nice
    trees = [tree.resolve() for tree in args.trees]  # before the working folder changes
    os.chdir(tempfile.gettempdir())  # gunicorn puts its working folder first on sys.path
    with tempfile.TemporaryDirectory() as folder:
        servers, homes, connections, found = {}, {}, {}, {}
        try:
            for which, tree in zip(("before", "after"), trees, strict=True):
                name = f"{which}-{tree.name}"  # the same tree twice: two servers
                homes[name] = prepare_home(Path(folder) / name)
                env = {
                    "PYTHONPATH": str(tree),
                    "ADJUDICATOR_KIOSK_RATE_LIMIT": "off",
                    "ADJUDICATOR_JOURNAL_MIRROR": str(Path(folder) / f"{name}-mirror.sqlite3"),
                }
                servers[name] = NiceServer(homes[name], workers=1, env=env).start()
                connections[name] = http.client.HTTPConnection("127.0.0.1", servers[name].port)
            for path in ("/healthz", "/api/v1/adjudications"):
                times: dict[str, list[float]] = {name: [] for name in servers}
                for index in range(args.count + warm_up):
                    order = list(servers) if index % 2 else list(reversed(servers))
                    for name in order:
                        took = one(connections[name], path, homes[name].token)
                        if index >= warm_up:
                            times[name].append(took)
                for name, taken in times.items():
                    q = statistics.quantiles(taken, n=100)
                    found.setdefault(path, {})[name] = {
                        "p50": statistics.median(taken),
                        "p90": q[89],
                        "p99": q[98],
                    }
                    print(
                        f"{path:<24} {name:<20} p50 {statistics.median(taken):6.2f} ms  "
                        f"p90 {q[89]:6.2f}  p99 {q[98]:6.2f}"
                    )
        finally:
            for server in servers.values():
                server.kill()
    return found


if __name__ == "__main__":
    main()
