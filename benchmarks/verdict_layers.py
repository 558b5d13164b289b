"""Issue 36: where one verdict's server CPU goes over TLS, layer by layer.

    .venv/bin/python benchmarks/verdict_layers.py [--batches 6] [--per-batch 300] [--nice -19]

Five servers run at once (one worker each, 16 threads, the access log written as a hall
writes it), each sent the same challenges one after another on one kept-alive connection, in
batches that alternate between them; each batch's CPU (the server's processes, user and
system, from /proc) per request is kept, and the medians are printed:

- `serve-tls`: `adjudicator serve` over TLS (the hall's own certificate): the whole verdict;
- `serve-http`: the same over plain HTTP: the difference is TLS;
- `floor-app-tls`: benchmarks/floor_wsgi.py, the same app with no receipt signed and no check
  of the journal's identity around the commit, over TLS: the difference is those two;
- `minimal-tls`: benchmarks/minimal_app.py (read the JSON body, answer 201 with a small JSON)
  under the same worker and TLS: the difference from `serve-tls` is the app's own work, and
  this is the floor of the server itself (Tornado's loop, the hand-off to a thread, TLS);
- `minimal-gthread-tls`: the same minimal app under gunicorn's own threaded worker, over TLS.

Then the app alone, in this process: the WSGI call of the same request (no server, no client),
timed, and profiled (cProfile, timing the process's CPU, not the wall: a commit's fsync waits
on the disk, which costs no CPU) into its layers: Flask's own handling and the app's hooks
(sessions, CSRF, security headers, language), finding the kiosk by its token, reading the JSON,
the hall's path (checks, seating, the lexicon and the verdict, the group commit with the
journal's row, hash chain, tallies and identity check, the SQLite commit), the receipt signed,
and the answer said and written as JSON.
"""

from __future__ import annotations

import argparse
import cProfile
import http.client
import io
import json
import os
import pstats
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load_hall_tls import group_cpu_seconds  # noqa: E402

from tests.support.servers import free_port, prepare_home  # noqa: E402

BODIES = [
    json.dumps({"words": words}).encode()
    for words in (["QI", "ZA"], ["CAT", "DOGX"], ["ZEBRA"], ["JO", "XI", "AA", "FOX"])
]
GUNICORN = ["--workers", "1", "--threads", "16", "--access-logfile", "-", "--access-logformat",
            '%(h)s "%(r)s" %(s)s %(M)sms', "--no-control-socket"]  # fmt: skip
LOOP = "kiosk.server.loop_worker.LoopWorker"


def servers(home, tls) -> dict[str, tuple[list[str], bool]]:
    """Each server's command line and whether it speaks TLS (its port is added later)."""
    cert = ["--certfile", str(tls.cert), "--keyfile", str(tls.key)]
    serve = [sys.executable, "-m", "adjudicator", "serve", "--workers", "1"]
    gunicorn = [sys.executable, "-m", "gunicorn", *GUNICORN]
    return {
        "serve-tls": ([*serve, *cert], True),
        "serve-http": (serve, False),
        "floor-app-tls": (
            [*gunicorn, "--worker-class", LOOP, *cert, "benchmarks.floor_wsgi:app"],
            True,
        ),  # fmt: skip
        "minimal-tls": (
            [*gunicorn, "--worker-class", LOOP, *cert, "benchmarks.minimal_app:app"],
            True,
        ),  # fmt: skip
        "minimal-gthread-tls": (
            [
                *gunicorn,
                "--worker-class",
                "gthread",
                "--keep-alive",
                "30",
                *cert,
                "benchmarks.minimal_app:app",
            ],
            True,
        ),  # fmt: skip
    }


def connect(port: int, context: ssl.SSLContext | None) -> http.client.HTTPConnection:
    if context is None:
        return http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    return http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=context)


def send(connection, token: str, count: int, start: int = 0) -> int:
    """`count` challenges one after another on one connection; how many were judged (201)."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    judged = 0
    for n in range(start, start + count):
        connection.request("POST", "/api/v1/adjudications", BODIES[n % 4], headers)
        response = connection.getresponse()
        response.read()
        judged += response.status == 201
    return judged


def start(argv: list[str], env: dict, port: int, secure: bool, context) -> subprocess.Popen:
    bind = ["--bind", f"127.0.0.1:{port}"]
    process = subprocess.Popen(
        [*argv[:-1], *bind, argv[-1]] if "gunicorn" in argv else [*argv, *bind],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd=tempfile.gettempdir(),
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            probe = connect(port, context if secure else None)
            probe.request("GET", "/healthz")
            probe.getresponse().read()
            probe.close()
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{argv} did not start") from None
            time.sleep(0.2)


def over_the_wire(home, tls, args) -> dict[str, float]:
    env = {**os.environ, "ADJUDICATOR_HOME": str(home.path), "ADJUDICATOR_KIOSK_RATE_LIMIT": "off",
           "ADJUDICATOR_HEADER_TIMEOUT_SECONDS": "60", "PYTHONPATH": str(ROOT)}  # fmt: skip
    context = ssl.create_default_context(cafile=str(tls.ca_cert))
    running = {}
    try:
        for label, (argv, secure) in servers(home, tls).items():
            port = free_port()
            running[label] = (start(argv, env, port, secure, context), port, secure)
            if args.nice:
                os.setpriority(os.PRIO_PGRP, running[label][0].pid, args.nice)
        connections = {
            label: connect(port, context if secure else None)
            for label, (_, port, secure) in running.items()
        }
        for connection in connections.values():
            send(connection, home.token, 50)  # warm up
        used: dict[str, list[float]] = {label: [] for label in running}
        for batch in range(args.batches):
            order = list(running) if batch % 2 == 0 else list(reversed(running))
            for label in order:
                process = running[label][0]
                before = group_cpu_seconds(process.pid)
                judged = send(connections[label], home.token, args.per_batch, batch)
                cpu = group_cpu_seconds(process.pid) - before
                assert judged == args.per_batch, f"{label}: only {judged} judged"
                used[label].append(cpu * 1000 / judged)
    finally:
        for process, _, _ in running.values():
            os.killpg(process.pid, 9)
            process.wait()
    return {label: statistics.median(values) for label, values in used.items()}


LAYERS = (  # (name, the function whose cumulative time it is), outermost first
    ("Flask and the app's hooks (all but the view)", "flask/app.py", "wsgi_app"),
    ("the view (kiosk/api.py adjudicate)", "kiosk/api.py", "adjudicate"),
    ("  the kiosk found by its token", "kiosk/auth.py", "current_kiosk"),
    ("  the JSON body read", "kiosk/api.py", "_json_body"),
    ("  the hall's path (Hall.adjudicate)", "adjudicator/hall/hall.py", "adjudicate"),
    ("    the lexicon opened and checked", "adjudicator/hall/hall.py", "lexicon_for"),
    ("    the TSH seat looked up", "adjudicator/hall/tsh/seating.py", "seat_challenge"),
    (
        "    the words read in the lexicon's tiles",
        "adjudicator/words/normalize.py",
        "normalize_challenge",
    ),  # fmt: skip
    ("    the ruling (every word looked up)", "adjudicator/judging/ruling.py", "rule_on"),
    (
        "    the group commit (row, chain, tallies)",
        "adjudicator/record/journal/group_commit.py",
        "append",
    ),  # fmt: skip
    (
        "      the rows written (journal.append_batch)",
        "adjudicator/record/journal/journal.py",
        "append_batch",
    ),  # fmt: skip
    ("      SQLite's statements and commit (CPU)", "~", "<method 'execute' of 'sqlite3.Connection"),
    (
        "      the journal's identity checked",
        "adjudicator/record/database/journal_health.py",
        "after_commit",
    ),  # fmt: skip
    ("  the receipt signed (Ed25519)", "adjudicator/hall/hall.py", "receipt"),
    ("  the verdict said in the kiosk's language", "kiosk/i18n.py", "say_verdict"),
    ("  the answer written as JSON", "flask/json/__init__.py", "jsonify"),
)


def verdict_environ(n: int, token: str, accept_language: str = "") -> dict:
    """The WSGI environ of the `n`th challenge (BODIES in turn) as the worker hands it to the
    app: the app's own call, measured in process."""
    body = BODIES[n % len(BODIES)]
    environ = {
        "REQUEST_METHOD": "POST", "SCRIPT_NAME": "", "PATH_INFO": "/api/v1/adjudications",
        "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8443",
        "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1", "wsgi.url_scheme": "https",
        "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.multithread": True,
        "wsgi.multiprocess": True, "wsgi.run_once": False, "wsgi.version": (1, 0),
        "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
        "HTTP_AUTHORIZATION": f"Bearer {token}", "HTTP_HOST": "127.0.0.1:8443",
    }  # fmt: skip
    if accept_language:
        environ["HTTP_ACCEPT_LANGUAGE"] = accept_language
    return environ


def in_process(home, count: int) -> tuple[float, list[tuple[str, float]], str]:
    """The app's WSGI call alone: CPU per verdict, its layers (share of the profiled total),
    and the profile's top lines."""
    os.environ["ADJUDICATOR_HOME"] = str(home.path)
    os.environ["ADJUDICATOR_KIOSK_RATE_LIMIT"] = "off"
    from kiosk import create_app

    app = create_app()

    def call(n: int) -> None:
        environ = verdict_environ(n, home.token)
        statuses = []
        answer = app(environ, lambda status, headers, exc=None: statuses.append(status))
        b"".join(answer)
        assert statuses[0].startswith("201"), statuses

    for n in range(100):
        call(n)
    began = time.process_time()
    for n in range(count):
        call(n)
    per_verdict = (time.process_time() - began) * 1000 / count
    profile = cProfile.Profile(time.process_time)  # CPU, not the wall (an fsync waits on the disk)
    profile.enable()
    for n in range(count):
        call(n)
    profile.disable()
    stats = pstats.Stats(profile)
    total = sum(entry[3] for key, entry in stats.stats.items() if key[2] == "wsgi_app")
    layers = []
    for name, where, function in LAYERS:
        found = sum(
            entry[3]
            for (path, _, func), entry in stats.stats.items()
            if func.startswith(function) and (where == "~" or path.endswith(where))
        )
        layers.append((name, found / total if total else 0.0))
    top = io.StringIO()
    pstats.Stats(profile, stream=top).sort_stats("tottime").print_stats(25)
    return per_verdict, layers, top.getvalue()


def main(argv: list[str] | None = None) -> dict:
    """The servers' CPU per request (`wire`), the app's in process (`per_verdict`, ms) and
    its layers' shares (`layers`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--per-batch", type=int, default=300)
    parser.add_argument("--in-process", type=int, default=2000, help="verdicts timed in process")
    parser.add_argument("--nice", type=int, default=0, help="the servers' niceness (root)")
    parser.add_argument("--top", action="store_true", help="print the profile's top functions")
    parser.add_argument("--no-wire", action="store_true", help="the app alone, in process")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="verdict-layers-") as folder:
        home = prepare_home(Path(folder) / "home")
        os.environ["ADJUDICATOR_HOME"] = str(home.path)
        from adjudicator.hall.network import hall_tls

        tls = hall_tls.ensure("bench", ["127.0.0.1"], own_networks=[])
        wire = {} if args.no_wire else over_the_wire(home, tls, args)
        per_verdict, layers, top = in_process(home, args.in_process)
    floor = wire.get("minimal-tls", 1.0)
    print("server CPU per request, one kept-alive connection (median of the batches):")
    for label, ms in wire.items():
        print(f"  {label:<20} {ms:6.3f} ms  ({ms / floor:4.1f}x the minimal app, same server)")
    print(f"\nthe app alone, in process: {per_verdict:.3f} ms CPU per verdict; its layers:")
    for name, share in layers:
        print(f"  {name:<48} {share:6.1%}  ~{share * per_verdict:.3f} ms")
    if args.top:
        print(top)
    return {"wire": wire, "per_verdict": per_verdict, "layers": dict(layers)}


if __name__ == "__main__":
    main()
