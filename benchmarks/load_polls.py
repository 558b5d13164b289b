"""Issue 36: a thousand kiosks polling over kept-alive TLS: the server's CPU per poll and its
share of the machine, before and after, against the constant-JSON floor, in one run.

    .venv/bin/python benchmarks/load_polls.py --before TREE [--kiosks 1000] [--seconds 60]
        [--rounds 2] [--nice -19] [--header-timeout 10] [--no-receipts]

Each run serves over HTTPS on 127.0.0.1 (2 workers, the hall's own certificate: hall_tls) a
data home with one tournament linked to TSH (100 tables, 200 players) and `--kiosks` kiosks,
kiosk N at table N % 100 + 1, each holding a receipt of a challenge it made (a kiosk mid-event
sends its newest receipt as a witness). A client in this process keeps one TLS connection per
kiosk (opened again if the server closes it) and does what the kiosk page does:

- before (a tree from before issue 36, `--before`): every 5 s the status poll, a POST carrying
  the witness, then the table poll, GET /api/v1/table (kiosk-status.js, kiosk-table.js);
- after (this tree): GET /api/v1/kiosk?wait=25 with the ETag of the status shown and the
  witness in its X-Kiosk-Witness header, which the server holds until the status changes or
  its time is up (304: between 15 and 25 s), and again at once; the table asked for only
  when the status says it changed;
- floor: GET of a constant JSON as long as a status (benchmarks/minimal_app.py) every 5 s,
  under the same worker and TLS ("floor"), and under gunicorn's own gthread worker
  ("floor-gthread", the issue's "constant Flask answer under plain gunicorn").

Kiosks start spread over the first 5 s; after a warm-up (every connection open, the first
answers in), the server's processes' CPU time (user and system, /proc) is read over
`--seconds`. Printed per run: requests a second, server CPU per request and per kiosk per 5 s
(one poll of the old page), and the share of the 2-core machine. `--header-timeout` (default
10) keeps a connection alive between the old page's polls 5 s apart, as the issue measured;
with the shipped 4 s (`--header-timeout 4`) the old page opens a new TLS connection at every
poll. The runs alternate the trees within each round, so a swing in the machine's other load
hits each alike. `--nice -19` (root) runs the servers ahead of the machine's other work.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import resource
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load_hall_tls import group_cpu_seconds, own_cpu_seconds  # noqa: E402
from benchmarks.tree_options import trees_parser  # noqa: E402

from tests.support import tsh_files  # noqa: E402
from tests.support.servers import cli, free_port, prepare_home  # noqa: E402

PERIOD = 5.0  # the old page's poll; after: the least time between two polls
WAIT = 25  # after: a poll is held this long at most (the page's WAIT_SECONDS)
TABLES = 100
CORES = os.cpu_count() or 2


@dataclass
class Home:
    path: Path
    tokens: list[str]
    receipts: list[dict]
    cert: Path
    key: Path
    ca: Path


def make_home(folder: Path, kiosks: int, receipts: bool) -> Home:
    """A data home: tournament `hall` linked to a TSH event of 100 tables, `kiosks` kiosks
    seated at them, each with the receipt of one challenge; the hall's CA and certificate."""
    home = prepare_home(folder / "home")
    event = tsh_files.make_event({"A": 2 * TABLES}, 3, 1)
    tourney = tsh_files.write_tourney_js(folder / "event" / "tourney.js", event)
    cli(home.path, "tsh", "link", "hall", str(tourney))
    os.environ["ADJUDICATOR_HOME"] = str(home.path)
    from adjudicator.hall import kiosks as kiosk_rows
    from adjudicator.hall.hall import Hall
    from adjudicator.hall.network import hall_tls

    hall = Hall()
    tokens, made = [], []
    for n in range(kiosks):
        enrolment = kiosk_rows.add(hall.db, f"kiosk-{n}", "hall", table=n % TABLES + 1)
        tokens.append(enrolment.token)
        if receipts:
            made.append(hall.receipt(hall.adjudicate(enrolment.kiosk, ["QI"])))
    tls = hall_tls.ensure("bench", ["127.0.0.1"], own_networks=[])
    return Home(home.path, tokens, made, tls.cert, tls.key, tls.ca_cert)


def server_argv(kind: str, port: int, home: Home, args) -> list[str]:
    tls = ["--certfile", str(home.cert), "--keyfile", str(home.key)]
    workers = args.workers
    if kind in ("before", "after"):
        return [sys.executable, "-m", "adjudicator", "serve", "--bind", f"127.0.0.1:{port}",
                "--workers", str(workers), *tls]  # fmt: skip
    worker = ["--worker-class", "kiosk.server.loop_worker.LoopWorker"]
    if kind == "floor-gthread":  # its connections kept alive as long as the loop worker's
        worker = ["--worker-class", "gthread", "--keep-alive", str(args.header_timeout)]
    return [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers",
            str(workers), *worker, "--threads", "16", "--access-logfile", "-",
            "--access-logformat", '%(h)s "%(r)s" %(s)s %(M)sms', "--no-control-socket", *tls,
            "benchmarks.minimal_app:app"]  # fmt: skip


def start_server(kind: str, tree: Path, home: Home, args) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {
        **os.environ,
        "ADJUDICATOR_HOME": str(home.path),
        "ADJUDICATOR_KIOSK_RATE_LIMIT": "off",
        # a thousand kiosks on one loopback address: in a hall, a thousand addresses
        "ADJUDICATOR_CONNECTIONS_PER_ADDRESS": "0",
        "ADJUDICATOR_HEADER_TIMEOUT_SECONDS": str(args.header_timeout),
        "PYTHONPATH": os.pathsep.join([str(tree), str(ROOT)]),
    }
    process = subprocess.Popen(
        server_argv(kind, port, home, args),
        env=env,
        stdout=subprocess.DEVNULL,  # the access log is still written, as a hall writes it
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd=tempfile.gettempdir(),  # gunicorn puts its working folder first on sys.path
    )
    context = ssl.create_default_context(cafile=str(home.ca))
    deadline = time.monotonic() + 60
    while True:
        try:
            asyncio.run(_probe(port, context))
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the {kind} server did not start") from None
            time.sleep(0.2)
    if args.nice:
        os.setpriority(os.PRIO_PGRP, process.pid, args.nice)
    return process, port


async def _probe(port: int, context: ssl.SSLContext) -> None:
    connection = await Connection.open(port, context)
    await connection.ask("GET", "/healthz", {})
    connection.close()


class Connection:
    """One kept-alive HTTPS connection, as a kiosk's browser keeps it."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int, context: ssl.SSLContext) -> Connection:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, ssl=context, server_hostname="127.0.0.1"
        )
        return cls(reader, writer)

    async def ask(self, method: str, path: str, headers: dict, body: bytes = b""):
        """One request: (status, headers in lower case, body)."""
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Accept: application/json"]
        head += [f"{name}: {value}" for name, value in headers.items()]
        if body:
            head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionResetError("closed by the server")
        status = int(status_line.split()[1])
        answer_headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            answer_headers[name.strip().lower()] = value.strip()
        size = int(answer_headers.get("content-length", "0"))
        data = await self.reader.readexactly(size) if size else b""
        if answer_headers.get("connection", "").lower() == "close":
            self.close()
        return status, answer_headers, data

    def close(self) -> None:
        self.writer.close()


@dataclass
class Counts:
    requests: int = 0
    by_status: dict = field(default_factory=dict)
    connects: int = 0
    errors: int = 0

    def add(self, status: int) -> None:
        self.requests += 1
        self.by_status[status] = self.by_status.get(status, 0) + 1


class Kiosk:
    """One kiosk's page, as `kind` polls."""

    def __init__(self, kind: str, port: int, context, token: str, receipt, counts: Counts):
        self.kind, self.port, self.context = kind, port, context
        self.auth = {"Authorization": f"Bearer {token}"}
        self.receipt = json.dumps(receipt).encode() if receipt else b""
        self.witness = json.dumps({"witness": receipt}).encode() if receipt else b""
        self.counts = counts
        self.connection: Connection | None = None
        self.tag = ""
        self.game = None

    async def ask(self, method: str, path: str, headers: dict | None = None, body: bytes = b""):
        for _ in range(2):  # a connection the server closed meanwhile is opened again
            if self.connection is None or self.connection.writer.is_closing():
                self.connection = await Connection.open(self.port, self.context)
                self.counts.connects += 1
            try:
                answer = await self.connection.ask(method, path, {**self.auth, **(headers or {})},
                                                   body)  # fmt: skip
            except (ConnectionError, asyncio.IncompleteReadError):
                self.connection = None
                continue
            self.counts.add(answer[0])
            return answer
        raise ConnectionError("the server closed the connection twice")

    async def run(self) -> None:
        await asyncio.sleep(random.uniform(0, PERIOD))
        while True:
            started = time.monotonic()
            try:
                await getattr(self, self.kind.replace("-", "_"))()
            except (OSError, ConnectionError, asyncio.IncompleteReadError):
                self.counts.errors += 1
                self.connection = None
                await asyncio.sleep(1)
                continue
            await asyncio.sleep(max(0.0, PERIOD - (time.monotonic() - started)))

    async def before(self) -> None:
        if self.witness:
            await self.ask("POST", "/api/v1/kiosk", body=self.witness)
        else:
            await self.ask("GET", "/api/v1/kiosk")
        await self.ask("GET", "/api/v1/table")

    async def after(self) -> None:
        if not self.tag:  # the page's first status request, with its witness
            status, headers, body = await self.ask("POST", "/api/v1/kiosk", body=self.witness)
        else:
            witness = {"X-Kiosk-Witness": base64.urlsafe_b64encode(self.receipt).decode()}
            status, headers, body = await self.ask(
                "GET",
                f"/api/v1/kiosk?wait={WAIT}",
                {"If-None-Match": self.tag, **(witness if self.witness else {})},
            )
        if status == 200:
            self.tag = headers.get("etag", "")
            game = json.loads(body).get("table_game")
            if game and game != self.game:
                self.game = game
                await self.ask("GET", "/api/v1/table")

    async def floor(self) -> None:
        await self.ask("GET", "/api/v1/kiosk")

    floor_gthread = floor


async def drive(kind: str, port: int, home: Home, args, group: int) -> dict:
    context = ssl.create_default_context(cafile=str(home.ca))
    counts = Counts()
    receipts = home.receipts or [None] * len(home.tokens)
    kiosks = [
        Kiosk(kind, port, context, token, receipt, counts)
        for token, receipt in zip(home.tokens, receipts, strict=True)
    ]
    tasks = [asyncio.create_task(kiosk.run()) for kiosk in kiosks]
    await asyncio.sleep(args.warm_up)
    requests, errors, connects = counts.requests, counts.errors, counts.connects
    statuses = dict(counts.by_status)
    cpu, own, began = group_cpu_seconds(group), own_cpu_seconds(), time.monotonic()
    await asyncio.sleep(args.seconds)
    cpu, own = group_cpu_seconds(group) - cpu, own_cpu_seconds() - own
    seconds = time.monotonic() - began
    done = counts.requests - requests
    by_status = {k: v - statuses.get(k, 0) for k, v in counts.by_status.items()}
    result = {
        "kind": kind,
        "kiosks": len(kiosks),
        "seconds": seconds,
        "requests_per_second": done / seconds,
        "statuses": {k: v for k, v in sorted(by_status.items()) if v},
        "all_statuses": dict(sorted(counts.by_status.items())),  # the warm-up's too
        "server_cpu_ms_per_request": cpu * 1000 / done if done else None,
        "server_cpu_ms_per_kiosk_5s": cpu * 1000 / (len(kiosks) * seconds / PERIOD),
        "machine_share": cpu / seconds / CORES,
        "client_cpu_share": own / seconds / CORES,
        "errors": counts.errors - errors,
        "connects": counts.connects - connects,
    }
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for kiosk in kiosks:
        if kiosk.connection is not None:
            kiosk.connection.close()
    return result


def one_run(kind: str, tree: Path, home: Home, args) -> dict:
    process, port = start_server(kind, tree, home, args)
    try:
        result = asyncio.run(drive(kind, port, home, args, process.pid))
    finally:
        os.killpg(process.pid, 9)
        process.wait()
    result["tree"] = tree.name
    return result


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"  # None: no request in the time measured


def line(r: dict) -> str:
    return (
        f"{r['kind']:<14} {r['requests_per_second']:7.1f} req/s  server CPU "
        f"{_ms(r['server_cpu_ms_per_request'])} ms/request, {r['server_cpu_ms_per_kiosk_5s']:.3f} "
        f"ms per kiosk per 5 s, {r['machine_share']:.1%} of the machine  (client "
        f"{r['client_cpu_share']:.0%}; new connections {r['connects']}, errors {r['errors']}, "
        f"answers {r['statuses']})"
    )


def main(argv: list[str] | None = None) -> list[dict]:
    """Every run's figures, as --json writes them."""
    parser = trees_parser(__doc__, "a checkout before issue 36", before_required=True)
    parser.add_argument("--kiosks", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warm-up", type=float, default=15)
    parser.add_argument("--header-timeout", type=int, default=10)
    parser.add_argument("--no-receipts", action="store_true", help="kiosks that judged nothing")
    parser.add_argument("--only", default="before,after,floor,floor-gthread")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    args = parser.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8 * args.kiosks)), hard))
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    kinds = args.only.split(",")
    results = []
    with tempfile.TemporaryDirectory(prefix="polls-bench-") as folder:
        home = make_home(Path(folder), args.kiosks, not args.no_receipts)
        for index in range(args.rounds):
            for kind in kinds if index % 2 == 0 else reversed(kinds):
                result = one_run(kind, trees.get(kind, trees["after"]), home, args)
                print(line(result), flush=True)
                results.append(result)
    print(f"\nmedians over {args.rounds} rounds ({args.kiosks} kiosks, {args.seconds:.0f} s each):")
    for kind in kinds:
        runs = [r for r in results if r["kind"] == kind]
        per_request = [r["server_cpu_ms_per_request"] for r in runs]
        per_request = [value for value in per_request if value is not None]
        print(
            f"{kind:<14} {_ms(statistics.median(per_request) if per_request else None)} "
            f"ms/request  {statistics.median(r['server_cpu_ms_per_kiosk_5s'] for r in runs):.3f} "
            f"ms per kiosk per 5 s  {statistics.median(r['machine_share'] for r in runs):.1%} "
            "of the machine"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
