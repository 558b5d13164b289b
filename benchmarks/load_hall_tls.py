"""Issue 26: verdicts per second and their latency over the hall's HTTPS, with the journal
mirror on, with and without slow clients connected, for one source tree or two side by side.

    .venv/bin/python benchmarks/load_hall_tls.py [--before TREE] [--after TREE] [--rounds 2]
        [--seconds 20] [--connections 16] [--workers 2] [--nice -19]

Starts a real `adjudicator hall` (HTTPS with its own CA, ADJUDICATOR_JOURNAL_MIRROR on a second
file) in a temporary data home, and wrk (Debian package `wrk`, C, so the client spends little
of the two cores) POSTs challenges over kept-alive HTTPS connections, as tablets do. With slow
clients, forty connections trickle a request head a byte a second and ten kept-alive ones send
half a request, reconnecting whenever they are cut (tests/support/slow_clients.py), while a
probe times a new tablet's /healthz (TLS handshake included) every half second. It prints the
server's CPU time per verdict too, which the machine's load moves less than the rates.

`--before TREE` also runs the hall from another checkout (`git archive 7a48604 | tar -x -C
/tmp/main-7a48604`), `--after TREE` this one from a snapshot: each tree's `adjudicator` and
`kiosk` come first on PYTHONPATH (the same venv's libraries serve both), so this checkout can
change meanwhile. The rounds alternate the trees, so a swing of the machine's load hits both.
`--nice -19` (as root) runs the hall's processes ahead of the machine's other work: on a shared
test machine, a thread handing a request to another waits for a free core, which a hall laptop
has.

The hall runs in a network namespace of its own (tests/support/netns.py, root and `ip` needed),
where it announces its name by mDNS; wrk, the slow clients and the probe reach it there by
loopback. Nothing reaches the machine's own network.
"""

from __future__ import annotations

import os
import re
import resource
import secrets
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.load_kiosk import LUA_POST, wrk  # noqa: E402
from benchmarks.tree_options import trees_parser  # noqa: E402

from tests.support.netns import HallNetwork  # noqa: E402
from tests.support.running_hall import RunningHall, TlsClient  # noqa: E402
from tests.support.servers import cli, free_port, prepare_home  # noqa: E402
from tests.support.slow_clients import SlowClients, tls_connector  # noqa: E402


def probe_healthz(hall: RunningHall, stop: threading.Event, waits: list) -> None:
    """A new tablet's /healthz every half second: its seconds, or None when it failed."""
    ca = hall.home / "hall" / "ca.crt"
    while not stop.is_set():
        started = time.monotonic()
        try:
            status, _, _ = TlsClient("127.0.0.1", hall.port, "127.0.0.1", ca).request(
                "GET", "/healthz"
            )
            waits.append(time.monotonic() - started if status == 200 else None)
        except OSError:
            waits.append(None)
        stop.wait(max(0.0, 0.5 - (time.monotonic() - started)))


def _group_stats(group: int):
    """Each live process of process `group`: its /proc stat fields after the command's name
    (field 3 of stat(5) is the first; pgrp is field 5)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:
            yield fields


def group_cpu_seconds(group: int) -> float:
    """CPU seconds (user and system) used so far by the live processes of process `group`."""
    ticks = sum(int(f[11]) + int(f[12]) for f in _group_stats(group))  # utime, stime: 14, 15
    return ticks / os.sysconf("SC_CLK_TCK")


def group_rss_mb(group: int) -> float:
    """Resident memory (MB) of the live processes of process `group`, together."""
    pages = sum(int(f[21]) for f in _group_stats(group))  # rss: field 24
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def own_cpu_seconds() -> float:
    """CPU seconds used by this process (the slow clients' and the probe's threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def one_run(tree: Path, slow: bool, args) -> dict:
    """One hall from `tree`, loaded by wrk for args.seconds, with or without slow clients, all
    inside the hall's namespace (the threads and wrk started there stay there)."""
    with HallNetwork() as network, network.hall.entered():
        return hall_run(tree, slow, args, network)


def hall_run(tree: Path, slow: bool, args, network: HallNetwork) -> dict:
    with tempfile.TemporaryDirectory(prefix="hall-tls-bench-") as folder:
        home = prepare_home(Path(folder) / "home")
        env = {
            "ADJUDICATOR_JOURNAL_MIRROR": str(Path(folder) / "mirror.sqlite3"),
            "ADJUDICATOR_KIOSK_RATE_LIMIT": "off",
            "ADJUDICATOR_WORKERS": str(args.workers),
            "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]),
        }
        name = f"bench-{secrets.token_hex(3)}"
        hall = RunningHall(home.path, name, free_port(), env, netns=network.hall)
        hall.start()
        if args.nice:  # the hall's processes ahead of this box's other work, as on a hall laptop
            os.setpriority(os.PRIO_PGRP, hall.process.pid, args.nice)
        worker = re.search(r"Using worker: (\S+)", hall.output() + hall.stderr())
        attack = None
        stop, waits = threading.Event(), []
        try:
            if slow:
                connect = tls_connector("127.0.0.1", hall.port, home.path / "hall" / "ca.crt")
                attack = SlowClients(connect, tricklers=40, half_requests=10).start()
                time.sleep(2)
            probe = threading.Thread(target=probe_healthz, args=(hall, stop, waits))
            probe.start()
            server_cpu, client_cpu = group_cpu_seconds(hall.process.pid), own_cpu_seconds()
            result = wrk(
                f"https://127.0.0.1:{hall.port}/api/v1/adjudications",
                LUA_POST.format(token=home.token),
                args.connections,
                args.seconds,
            )
            server_cpu = group_cpu_seconds(hall.process.pid) - server_cpu
            client_cpu = own_cpu_seconds() - client_cpu
        finally:
            stop.set()
            if attack is not None:
                attack.stop()
            hall.kill()
        verify = cli(home.path, "journal", "verify", env={"ADJUDICATOR_JOURNAL_MIRROR": ""})
    answered = [w for w in waits if w is not None]
    result.update(
        tree=tree.name,
        server_cpu_ms_per_verdict=server_cpu * 1000 / result["requests"]
        if result["requests"]
        else None,
        server_cpu_share=server_cpu / result["seconds"],
        slow_clients_cpu_share=client_cpu / result["seconds"],
        worker=worker.group(1) if worker else "?",
        slow=slow,
        healthz_max_s=max(answered) if answered else None,
        healthz_failed=len(waits) - len(answered),
        healthz_probes=len(waits),
        cuts=len(attack.trickle_cuts) + len(attack.half_request_cuts) if attack else 0,
        verify=verify.strip().splitlines()[-1],
    )
    return result


def line(r: dict) -> str:
    healthz = f"{r['healthz_max_s'] * 1000:.0f} ms" if r["healthz_max_s"] is not None else "never"
    per_verdict = r["server_cpu_ms_per_verdict"]
    cpu = "-" if per_verdict is None else f"{per_verdict:.2f}"
    return (
        f"{r['worker'].rsplit('.', 1)[-1]:<20} slow={'yes' if r['slow'] else 'no ':<3} "
        f"{r['per_second']:7.1f} verdicts/s  p50 {r['p50_ms']:7.1f} ms  p99 {r['p99_ms']:7.1f} ms"
        f"  errors {r['errors'] + r['non2xx']}  /healthz worst {healthz}, failed "
        f"{r['healthz_failed']}/{r['healthz_probes']}  slow clients cut {r['cuts']}  "
        f"server CPU {cpu} ms/verdict "
        f"({r['server_cpu_share']:.0%} of a core), slow clients' and probe's "
        f"{r['slow_clients_cpu_share']:.0%}"
    )


def main(argv: list[str] | None = None) -> list[dict]:
    """Every run's figures (wrk's, the server's CPU, the probe's, the journal's check)."""
    parser = trees_parser(__doc__, "another checkout to compare")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args(argv)
    if not shutil.which("wrk"):
        sys.exit("wrk is not installed: apt-get install wrk")
    after = args.after.resolve()
    trees = [args.before.resolve(), after] if args.before else [after]
    os.chdir(tempfile.gettempdir())  # gunicorn puts its working folder first on sys.path
    results = []
    for index in range(args.rounds):
        for slow in (False, True):
            for tree in trees if index % 2 == 0 else reversed(trees):
                result = one_run(tree, slow, args)
                print(line(result), flush=True)
                results.append(result)
    print("\nmedians over the rounds:")
    for tree in trees:
        for slow in (False, True):
            runs = [r for r in results if r["tree"] == tree.name and r["slow"] == slow]
            print(
                f"{tree.name:<16} slow={'yes' if slow else 'no ':<3} "
                f"{statistics.median(r['per_second'] for r in runs):7.1f} verdicts/s  "
                f"p99 {statistics.median(r['p99_ms'] for r in runs):7.1f} ms"
            )
    return results


if __name__ == "__main__":
    main()
