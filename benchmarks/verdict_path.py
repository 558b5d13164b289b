"""The verdict path against its floors, each measured side by side with its floor:

- in process: `Hall.adjudicate` with its receipt signed (SQLite journal, WAL, synchronous=FULL,
  on disk; and without the receipt, for comparison) against a bare durable insert and commit
  into a table in the same folder, alternating one of each;
- over HTTP: the CPU the gunicorn worker spends per adjudication (`adjudicator serve`, one
  worker) against a minimal Flask app (benchmarks/minimal_app.py) under the same gunicorn
  settings and the worker `serve` runs (the loop worker), the same clients sending the same
  bodies;
- `adjudicator judge` as a whole process against `python -c "import marisa_trie"`, alternating;
- GET /healthz and /api/v1/lexicons with 2 and with 40 compiled lexicons (flat: ratio near 1).

    python benchmarks/verdict_path.py [--rounds 3] [--only inprocess,http,judge] [--json FILE]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.bytecode import cache_bytecode  # noqa: E402
from benchmarks.sizing import smallest  # noqa: E402
from benchmarks.verdict_floor import BareInsert, interleaved  # noqa: E402

SHARED_LEXICONS = ROOT.parent / "shared" / "lexicons"
BIN = Path(sys.executable).parent


# --- in process --------------------------------------------------------------------------------


def inprocess(folder: Path, count: int = 1000) -> dict:
    """Median times (ms) of a bare insert+commit, Hall.adjudicate with its receipt signed (as
    the API answers it), and Hall.adjudicate alone, alternating one of each."""
    from tests.support.hall import build_setup

    count = smallest(count, 10)
    setup = build_setup(folder)
    hall, kiosk = setup.hall, setup.nwl.kiosk
    insert = BareInsert(folder)

    def adjudicate_signed() -> None:
        hall.receipt(hall.adjudicate(kiosk, ["QI", "ZA"]))

    def adjudicate() -> None:
        hall.adjudicate(kiosk, ["QI", "ZA"])

    jobs = {"floor": insert, "signed": adjudicate_signed, "unsigned": adjudicate}
    times, cpu = interleaved(jobs, count, warm=50)
    insert.close()
    hall.db.close()
    f, m, u = (statistics.median(times[label]) * 1000 for label in jobs)
    fc, mc, uc = (statistics.mean(cpu[label]) * 1000 for label in jobs)
    return {
        "bare_insert_ms": f,
        "adjudicate_with_receipt_ms": m,
        "adjudicate_ms": u,
        "ratio": m / f,
        "ratio_without_receipt": u / f,
        # CPU (mean ms a call): what the program adds to the fsync both wait for
        "bare_insert_cpu_ms": fc,
        "adjudicate_with_receipt_cpu_ms": mc,
        "adjudicate_cpu_ms": uc,
    }


# --- over HTTP -----------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system CPU seconds the process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def worker_of(master: int) -> int:
    (pid,) = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return int(pid)


def drive(port: int, token: str, clients: int, per_client: int) -> int:
    """Send the same adjudications from `clients` keep-alive connections; returns 2xx count."""
    bodies = [
        json.dumps({"words": words})
        for words in (["QI", "ZA"], ["CAT", "DOGX"], ["ZEBRA"], ["JO", "XI", "AA", "FOX"])
    ]
    ok = []

    def client(n: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        good = 0
        for i in range(per_client):
            connection.request("POST", "/api/v1/adjudications", bodies[(n + i) % 4], headers)
            response = connection.getresponse()
            response.read()
            good += response.status == 201
        connection.close()
        ok.append(good)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(ok)


def wait_listening(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("server exited")
        probe = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        try:
            probe.request("GET", "/")
            probe.getresponse().read()
            return
        except OSError:
            time.sleep(0.1)
        finally:
            probe.close()
    raise RuntimeError("server did not start")


def start_server(argv: list[str], env: dict, port: int) -> tuple[subprocess.Popen, int]:
    """A server process and its one worker's pid, once it answers."""
    log = open(os.devnull, "wb")
    process = subprocess.Popen(argv, env=env, stdout=log, stderr=log, start_new_session=True)
    wait_listening(port, process)
    return process, worker_of(process.pid)


def over_http(folder: Path, clients: int = 1, batches: int = 8, per_batch: int = 400) -> dict:
    """Both servers run at once; batches of requests alternate between them, and each batch's
    worker CPU (user + system) is read from /proc, so load from elsewhere hits both alike."""
    from tests.support.servers import free_port, prepare_home

    batches, per_batch = smallest(batches, 1), smallest(per_batch, 4 * clients)
    home = prepare_home(folder / "home")
    env = {
        **os.environ,
        "ADJUDICATOR_HOME": str(home.path),
        "ADJUDICATOR_KIOSK_RATE_LIMIT": "off",
        "PYTHONPATH": str(ROOT),
    }
    gunicorn = [
        "--workers",
        "1",
        "--worker-class",
        "kiosk.server.loop_worker.LoopWorker",  # the worker `serve` runs
        "--threads",
        "16",
        "--access-logfile",
        "-",
        "--access-logformat",
        '%(h)s "%(r)s" %(s)s %(M)sms',
        "--no-control-socket",
    ]
    app_port, floor_port = free_port(), free_port()
    servers = {
        "app": (
            [sys.executable, "-m", "adjudicator", "serve", "--bind", f"127.0.0.1:{app_port}"]
            + ["--workers", "1"],
            app_port,
        ),
        "minimal": (
            [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{floor_port}", *gunicorn]
            + ["benchmarks.minimal_app:app"],
            floor_port,
        ),
    }
    started = {}
    try:
        for label, (argv, port) in servers.items():
            started[label] = (*start_server(argv, env, port), port)
        for _, _, port in started.values():
            drive(port, home.token, 4, 25)  # warm up: imports, connections, caches
        used: dict[str, list[tuple[float, float]]] = {label: [] for label in started}
        for _ in range(batches):
            for label, (_, worker, port) in started.items():
                user, system = cpu_seconds(worker)
                done = drive(port, home.token, clients, per_batch // clients)
                user_after, system_after = cpu_seconds(worker)
                assert done == per_batch // clients * clients, f"{label}: only {done} answered"
                used[label].append(
                    ((user_after - user) / done * 1000, (system_after - system) / done * 1000)
                )
    finally:
        for process, _, _ in started.values():
            os.killpg(process.pid, 15)
            process.wait(10)
    ratios = [
        sum(a) / sum(m) for a, m in zip(used["app"], used["minimal"], strict=True) if sum(m)
    ] or [float("nan")]  # once, untimed: a batch may take less than a clock tick

    def median(label: str, part: int | None = None) -> float:
        return statistics.median(sum(u) if part is None else u[part] for u in used[label])

    return {
        "clients": clients,
        "app_cpu_ms": median("app"),
        "app_user_ms": median("app", 0),
        "app_system_ms": median("app", 1),
        "minimal_flask_cpu_ms": median("minimal"),
        "minimal_flask_user_ms": median("minimal", 0),
        "minimal_flask_system_ms": median("minimal", 1),
        "ratio": statistics.median(ratios),
        "ratio_range": [min(ratios), max(ratios)],
    }


# --- /healthz and /api/v1/lexicons as lexicons are added -----------------------------------------


def lexicon_endpoints(folder: Path, counts: tuple[int, ...] = (2, 40), calls: int = 500) -> dict:
    """Median time (ms) of GET /healthz and GET /api/v1/lexicons in process, with each number
    of compiled lexicons in the store; and the ratio of the most to the fewest."""
    from adjudicator.words.store import SETTLE_SECONDS
    from adjudicator.words.wordlist import WordSet

    calls = smallest(calls, 2)
    from tests.support.hall import build_setup, make_app

    found: dict[str, dict[int, float]] = {"/healthz": {}, "/api/v1/lexicons": {}}
    for count in counts:
        setup = build_setup(folder / f"lexicons-{count}")
        for n in range(count - 2):  # build_setup made two
            setup.store.save(f"EXTRA{n:02d}", WordSet.of(["QI", "ZA", f"X{chr(65 + n % 26)}"]))
        client = make_app(setup.hall).test_client()
        time.sleep(SETTLE_SECONDS + 0.2)  # a store changed this instant is reread each call
        for path in found:
            for _ in range(20):
                assert client.get(path).status_code == 200
            times = []
            for _ in range(calls):
                started = time.perf_counter()
                client.get(path)
                times.append(time.perf_counter() - started)
            found[path][count] = statistics.median(times) * 1000
        setup.hall.db.close()
    low, high = min(counts), max(counts)
    return {
        "ms": found,
        "ratio": max(found[path][high] / found[path][low] for path in found),
    }


# --- `adjudicator judge` as a process -----------------------------------------------------------


def judge_process(folder: Path, runs: int = 30) -> dict:
    from adjudicator.words.lexicon_import import import_lexicon
    from adjudicator.words.store import LexiconStore

    runs = smallest(runs, 1)
    home = folder / "judge-home"
    source = SHARED_LEXICONS / "CSW24.txt"
    name = "CSW24"
    if not source.exists():  # without the shared lists: a small list stands in
        source, name = folder / "words.txt", "SMALL"
        source.write_text("QI\nZA\nCAT\nDOG\n")
    import_lexicon(LexiconStore(root=home / "lexicons"), source, name)
    env = {**os.environ, "ADJUDICATOR_HOME": str(home)}
    commands = {
        "floor": [sys.executable, "-c", "import marisa_trie"],
        "judge": [str(BIN / "adjudicator"), "judge", "--lexicon", name, "QI", "ZA", "CAT"],
    }

    def command(label: str) -> Callable[[], None]:
        def run() -> None:
            done = subprocess.run(
                commands[label], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            assert done.returncode == 0, label

        return run

    # once each first, so their bytecode is cached
    times, _ = interleaved({label: command(label) for label in commands}, runs, warm=1)
    judge, floor = statistics.median(times["judge"]), statistics.median(times["floor"])
    return {
        "lexicon": name,
        "judge_ms": judge * 1000,
        "import_marisa_trie_ms": floor * 1000,
        "ratio": judge / floor,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="inprocess,http,http4,judge,lexicons")
    parser.add_argument("--folder", type=Path, default=None, help="default: a temporary one")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    cache_bytecode()
    parts = args.only.split(",")
    results: dict[str, list[dict]] = {part: [] for part in parts}
    for round_no in range(args.rounds):
        with tempfile.TemporaryDirectory(dir=args.folder) as folder:
            if "inprocess" in parts:
                results["inprocess"].append(inprocess(Path(folder) / "inprocess"))
            if "http" in parts:
                results["http"].append(over_http(Path(folder) / "http", clients=1))
            if "http4" in parts:
                results["http4"].append(over_http(Path(folder) / "http4", clients=4))
            if "judge" in parts:
                results["judge"].append(judge_process(Path(folder)))
            if "lexicons" in parts:
                results["lexicons"].append(lexicon_endpoints(Path(folder)))
        print(f"round {round_no + 1}:", json.dumps({k: v[-1] for k, v in results.items()}))
    for part, runs in results.items():
        ratios = [run["ratio"] for run in runs]
        print(f"{part}: ratio {min(ratios):.2f}-{max(ratios):.2f} over {len(runs)} rounds")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
