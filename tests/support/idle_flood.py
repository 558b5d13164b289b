"""One laptop's connection flood, for attacks and load runs: `count` idle TCP connections from
one source address, each opened again as soon as the server closes it, sending nothing.

It runs as a process of its own (`IdleFlood`), so its loop does not share the test's or the
benchmark's interpreter lock with the kiosks it is set against; when stopped it reports what
it did (how many it held at once at most, how many the server closed).

    python tests/support/idle_flood.py HOST PORT --count 3000 --source 127.0.0.1
"""

from __future__ import annotations

import argparse
import errno
import json
import resource
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()


class IdleFlood:
    """The flood in its own process: `start`, then `stop` for its report."""

    def __init__(self, host: str, port: int, count: int = 3000, source: str = "127.0.0.1"):
        self.argv = [sys.executable, str(HERE), host, str(port), "--count", str(count)]
        self.argv += ["--source", source]
        self.process: subprocess.Popen | None = None
        self.report: dict = {}

    def start(self) -> IdleFlood:
        self.process = subprocess.Popen(self.argv, stdout=subprocess.PIPE, text=True)
        return self

    def stop(self) -> dict:
        """Stop the flood; its report: connections `opened` and `closed` by the server, the
        `most_held` open at once, and `connect_failures`."""
        if self.process is None:
            return self.report
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=60)
        self.report = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
        self.process = None
        return self.report

    def __enter__(self) -> IdleFlood:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def flood(host: str, port: int, count: int, source: str) -> dict:
    """Hold `count` connections open until SIGTERM, each reopened as soon as it closes."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 256)), hard))
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    selector = selectors.DefaultSelector()
    report = {"opened": 0, "closed": 0, "connect_failures": 0, "most_held": 0}

    def open_one() -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.bind((source, 0))
            code = sock.connect_ex((host, port))
        except OSError:
            code = -1
        if code not in (0, errno.EINPROGRESS):
            report["connect_failures"] += 1
            sock.close()
            return
        report["opened"] += 1
        selector.register(sock, selectors.EVENT_READ)

    for _ in range(count):
        open_one()
    missing = 0
    while not stopping:
        for key, _ in selector.select(timeout=0.2):
            sock = key.fileobj
            try:
                data = sock.recv(1)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data:
                continue  # an answer to nothing: keep it open
            selector.unregister(sock)
            sock.close()
            report["closed"] += 1
            missing += 1
        while missing and not stopping:  # reopened as soon as it closed
            missing -= 1
            open_one()
        held = len(selector.get_map())
        report["most_held"] = max(report["most_held"], held)
        if held < count:  # a connect that failed: try again shortly
            time.sleep(0.01)
            missing = count - held
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--source", default="127.0.0.1")
    args = parser.parse_args()
    print(json.dumps(flood(args.host, args.port, args.count, args.source)), flush=True)
