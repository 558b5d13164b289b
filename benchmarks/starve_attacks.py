"""Issue 42: paired kiosks' verdicts and polls under each attack a player with a laptop tried on
the hall's Wi-Fi, against none, side by side in one run; and one verdict's server CPU with the
admission, against the tree before it.

    .venv/bin/python benchmarks/starve_attacks.py [--seconds 60] [--rounds 2] [--nice -19]
        [--attacker-cpu N] [--poll-wait 20]
        [--phases quiet,drip,twenty,held,nat,plain] [--cpu-before TREE] [--cpu-batches 8]

A real `adjudicator hall` (HTTPS with its own CA, the plain-HTTP trust port, 2 workers x 16
threads, SQLite journal) runs in a network namespace of its own (tests/support/netns.py); the
kiosks, the attackers and the probes run inside it too, on its loopback (127.x addresses, one a
device): nothing reaches the machine's network. Two paired kiosks judge and poll throughout:
kiosk A (127.0.0.2) and kiosk B, at the attacker's own address, each on kept-alive connections
as a tablet's browser keeps them (a new one when the server closes one), already at work when
the attack begins (as a hall's tablets are), counted from when it is at full strength. Each has
one poller (held, `?wait=20`, with the ETag it shows) and two threads judging one challenge
after another. Beside them, a new tablet at the attacker's address opens a new connection every
half second and asks kiosk B's status on it, trying again every quarter second for up to 10 s,
as a page does (the hardest way in: through the backlog, the handshake budget and the admission,
from an address past its cap): how many got in, and how long it took. Phases, each
`--seconds` long, in rounds that alternate their order:

- quiet: no attack;
- drip: 64 connections from the attacker, each a POST to /director/login declaring 100 MB and
  sending a byte every 3 s, reopened as soon as closed (tests/support/floods.py);
- twenty: the same from twenty addresses (1,280 connections);
- held: twenty addresses x 64 connections, each holding `GET /api/v1/kiosk?wait=20` with
  kiosk C's token (and its ETag), asked again as soon as answered;
- nat: 200 idle connections from the address kiosk B shares (a NAT), reopened when closed;
- plain: sixteen addresses holding nine lingering connections each on the plain-HTTP port,
  while a new tablet fetches the trust page every half second (its latency is reported too).

For each: verdicts per second, p50 / p99 / slowest of the verdicts, the polls answered, every
request that got no answer, the server's CPU per verdict, its memory (the hall's processes'
resident memory at the phase's end, the attack's connections still held), what /healthz counted,
the attack's own report, and the machine's load average (other sessions share it). With
`--cpu-before TREE` (a checkout of the code before, e.g. `git archive c279ca7 | tar -x -C
/tmp/main-c279ca7`), two `serve --certfile` servers, one per tree (one worker each), are sent
the same challenges one after another on one kept-alive connection in batches alternating
between them, and each batch's server CPU per verdict is kept (as benchmarks/verdict_layers.py
measures issue 36's figure): the medians and their ratio. `--nice -19` (root) runs the hall, the
servers and the kiosks ahead of the machine's other work; the attacker keeps the ordinary
priority. `--attacker-cpu N` runs the attacker on core N alone and everything else on the other
cores, as on a hall laptop, where the attacker is another machine: what the attack then costs
the kiosks is the server's work for it, not the attacker's own CPU.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import secrets
import signal
import ssl
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adjudicator.hall.network import hall_tls  # noqa: E402
from benchmarks.load_hall_tls import group_cpu_seconds, group_rss_mb  # noqa: E402
from benchmarks.verdict_layers import send, start  # noqa: E402

from tests.support.floods import Flood  # noqa: E402
from tests.support.netns import HallNetwork  # noqa: E402
from tests.support.running_hall import RunningHall  # noqa: E402
from tests.support.servers import free_port, prepare_home  # noqa: E402
from tests.support.tablets import Tablet, enrol  # noqa: E402

KIOSK_A = "127.0.0.2"
ATTACKER = "127.0.0.9"
TWENTY = [f"127.0.1.{n}" for n in range(1, 21)]
SIXTEEN = [f"127.0.6.{n}" for n in range(1, 17)]
PHASES = ("quiet", "drip", "twenty", "held", "nat", "plain")
JUDGES_PER_KIOSK = 2
NEW_TABLET_SECONDS = 10.0


def attack(phase: str, port: int, cafile: Path, token: str, wrap: list[str]) -> Flood | None:
    """The phase's attacker (a process of its own), or None for quiet."""
    tls = {"tls": cafile, "wrap": wrap}
    if phase == "drip":
        return Flood("127.0.0.1", port, "drip", [ATTACKER], 64, **tls)
    if phase == "twenty":
        return Flood("127.0.0.1", port, "drip", TWENTY, 64, **tls)
    if phase == "held":
        return Flood("127.0.0.1", port, "hold", TWENTY, 64, token=token, **tls)
    if phase == "nat":
        return Flood("127.0.0.1", port, "idle", [ATTACKER], 200, **tls)
    if phase == "plain":
        return Flood("127.0.0.1", 8080, "linger", SIXTEEN, 9, path="/hall/trust", wrap=wrap)
    return None


def kiosk_b_address(phase: str) -> str:
    """Kiosk B sits at the attacker's own address."""
    return {"twenty": TWENTY[0], "held": TWENTY[0], "plain": SIXTEEN[0]}.get(phase, ATTACKER)


class Kiosks:
    """Kiosk A and kiosk B (kept-alive), each polling and judging."""

    def __init__(
        self, port: int, cafile: Path, tokens: dict[str, str], b_address: str, wait: int = 20
    ):
        self.wait = wait  # a poll's hold, in seconds: stopping waits for the one held
        self.a = Tablet(port, tokens["k2"], KIOSK_A, cafile)
        self.b = Tablet(port, tokens["k3"], b_address, cafile)
        self.stopping = threading.Event()
        self.threads = []
        self.counted_from = (0, 0)  # outcomes before these (the warm-up) are not counted

    def start(self) -> Kiosks:
        runs = [(self._poll, self.a), (self._poll, self.b)]
        runs += [(self._judge, self.a)] * JUDGES_PER_KIOSK
        runs += [(self._judge, self.b)] * JUDGES_PER_KIOSK
        for run, *args in runs:
            thread = threading.Thread(target=run, args=args, daemon=True)
            thread.start()
            self.threads.append(thread)
        return self

    def count_from_now(self) -> None:
        self.counted_from = (len(self.a.outcomes), len(self.b.outcomes))

    def stop(self) -> list:
        self.stopping.set()
        for thread in self.threads:
            thread.join(60)
        return self.a.outcomes[self.counted_from[0] :] + self.b.outcomes[self.counted_from[1] :]

    def _poll(self, tablet: Tablet) -> None:
        connection = tablet.connect()
        while not self.stopping.is_set():
            if tablet.poll(connection, wait=self.wait) is None:
                connection = tablet.connect()

    def _judge(self, tablet: Tablet) -> None:
        connection = tablet.connect()
        while not self.stopping.is_set():
            if tablet.judge(connection) is None:
                connection = tablet.connect()


def new_tablet_probe(tablet: Tablet, stopping: threading.Event, waits: list) -> None:
    """Every half second a new connection from `tablet`'s address asking its status, tried
    again every quarter second for up to NEW_TABLET_SECONDS: the seconds until it was
    answered (None: not within them)."""
    while not stopping.is_set():
        started = time.monotonic()
        answered = None
        while answered is None and time.monotonic() - started < NEW_TABLET_SECONDS:
            connection = tablet.connect()
            try:
                connection.request(
                    "GET", "/api/v1/kiosk", headers={"Authorization": f"Bearer {tablet.token}"}
                )
                reply = connection.getresponse()
                reply.read()
                if reply.status == 200:
                    answered = time.monotonic() - started
            except (OSError, http.client.HTTPException):
                pass
            finally:
                connection.close()
            if answered is None:
                time.sleep(0.25)
        waits.append(answered)
        stopping.wait(max(0.0, 0.5 - (time.monotonic() - started)))


def trust_probe(stopping: threading.Event, waits: list) -> None:
    """A new tablet's trust page over plain HTTP every half second: its seconds (None: failed)."""
    n = 0
    while not stopping.is_set():
        started = time.monotonic()
        source = f"127.0.7.{1 + n % 250}"
        n += 1
        try:
            connection = http.client.HTTPConnection(
                "127.0.0.1", 8080, timeout=30, source_address=(source, 0)
            )
            connection.request("GET", "/hall/trust")
            answer = connection.getresponse()
            answer.read()
            connection.close()
            waits.append(time.monotonic() - started if answer.status == 200 else None)
        except OSError:
            waits.append(None)
        stopping.wait(max(0.0, 0.5 - (time.monotonic() - started)))


def healthz_counts(port: int, cafile: Path) -> dict:
    context = ssl.create_default_context(cafile=str(cafile))
    connection = http.client.HTTPSConnection(
        "127.0.0.1", port, timeout=30, context=context, source_address=("127.0.0.3", 0)
    )
    connection.request("GET", "/healthz")
    body = json.loads(connection.getresponse().read())
    connection.close()
    return body["connections"]


def run_phase(phase: str, hall: RunningHall, tokens: dict, args, wrap: list[str]) -> dict:
    cafile = hall.home / "hall" / "ca.crt"
    before_counts = healthz_counts(hall.port, cafile)
    kiosks = Kiosks(hall.port, cafile, tokens, kiosk_b_address(phase), args.poll_wait).start()
    time.sleep(1)  # the hall's tablets are at work when the attack begins
    flood = attack(phase, hall.port, cafile, tokens["k1"], wrap)
    if flood is not None:
        flood.start()
        time.sleep(3)  # the attack at full strength before the kiosks are measured
    kiosks.count_from_now()
    load_before = os.getloadavg()[0]
    stopping, trust, fresh = threading.Event(), [], []
    probes = []
    if phase == "plain":
        probes.append(threading.Thread(target=trust_probe, args=(stopping, trust), daemon=True))
    cpu = group_cpu_seconds(hall.process.pid)
    started = time.monotonic()
    if phase != "plain":
        newcomer = Tablet(hall.port, tokens["k3"], kiosk_b_address(phase), cafile)
        probes.append(
            threading.Thread(target=new_tablet_probe, args=(newcomer, stopping, fresh), daemon=True)
        )
    for probe in probes:
        probe.start()
    time.sleep(args.seconds)
    seconds = time.monotonic() - started  # before the kiosks stop: their held polls end later
    cpu = group_cpu_seconds(hall.process.pid) - cpu
    outcomes = kiosks.stop()
    memory = group_rss_mb(hall.process.pid)  # while the attack still holds its connections
    stopping.set()
    for probe in probes:
        probe.join(30)
    report = flood.stop() if flood is not None else {}
    time.sleep(6.5)  # the workers write what they counted at most every 5 s
    counted = healthz_counts(hall.port, cafile)
    judged = sorted(o.seconds for o in outcomes if o.kind == "judge" and o.status == 201)
    polls = [o for o in outcomes if o.kind == "poll"]
    failed = [o for o in outcomes if o.status not in ({200, 304} if o.kind == "poll" else {201})]
    answered_trust = sorted(w for w in trust if w is not None)
    answered_fresh = sorted(w for w in fresh if w is not None)
    return {
        "phase": phase,
        "verdicts_per_s": len(judged) / seconds,
        "p50_ms": statistics.median(judged) * 1000 if judged else None,
        "p99_ms": judged[max(0, int(len(judged) * 0.99) - 1)] * 1000 if judged else None,
        "slowest_ms": judged[-1] * 1000 if judged else None,
        "polls": len(polls),
        "unanswered": len(failed),
        "failures": [f"{o.kind} {o.status} {o.error}" for o in failed[:3]],
        "slowest": [
            f"{o.kind} from {o.kiosk} {o.seconds * 1000:.0f} ms"
            + (" (sent again: its connection had closed)" if o.attempts > 1 else "")
            for o in sorted((o for o in outcomes if o.kind == "judge"), key=lambda o: -o.seconds)[
                :3
            ]
        ],
        "sent_again": sum(o.attempts > 1 for o in outcomes),
        "cpu_ms_per_verdict": cpu * 1000 / len(judged) if judged else None,
        "server_mb": memory,
        "counted": {
            k: v - before_counts.get(k, 0)
            for k, v in counted.items()
            if v - before_counts.get(k, 0)
        },
        "attack": report,
        "load": (load_before, os.getloadavg()[0]),
        "trust": (
            len(answered_trust),
            len(trust),
            answered_trust[max(0, int(len(answered_trust) * 0.99) - 1)] * 1000
            if answered_trust
            else None,
        ),
        "new_tablet": (
            len(answered_fresh),
            len(fresh),
            statistics.median(answered_fresh) * 1000 if answered_fresh else None,
            answered_fresh[max(0, int(len(answered_fresh) * 0.99) - 1)] * 1000
            if answered_fresh
            else None,
        ),
    }


def describe(r: dict) -> str:
    def ms(value):
        return "-" if value is None else f"{value:7.1f}"

    trust = ""
    if r["phase"] == "plain":
        got, asked, p99 = r["trust"]
        trust = f"  trust page {got}/{asked} answered, p99 {ms(p99)} ms"
    else:
        got, asked, p50, p99 = r["new_tablet"]
        trust = f"  new tablet {got}/{asked} in, p50 {ms(p50)} ms, p99 {ms(p99)} ms"
    return (
        f"{r['phase']:<7} {r['verdicts_per_s']:6.1f} verdicts/s  p50 {ms(r['p50_ms'])} ms  "
        f"p99 {ms(r['p99_ms'])} ms  slowest {ms(r['slowest_ms'])} ms  polls {r['polls']}  "
        f"unanswered {r['unanswered']} {r['failures']}  server CPU "
        f"{ms(r['cpu_ms_per_verdict'])} ms/verdict  {r['server_mb']:.0f} MB  "
        f"load {r['load'][0]:.1f}-{r['load'][1]:.1f}"
        f"{trust}\n          slowest {r['slowest']}  sent again {r['sent_again']}"
        f"\n          counted {r['counted']}  attack {r['attack']}"
    )


def attack_rounds(args) -> list[dict]:
    results = []
    with HallNetwork() as network, network.hall.entered():
        with tempfile.TemporaryDirectory(prefix="starve-bench-") as folder:
            home = prepare_home(Path(folder) / "home")
            tokens = {"k1": home.token, **enrol(home.path, ["k2", "k3"])}
            env = {"ADJUDICATOR_KIOSK_RATE_LIMIT": "off", "ADJUDICATOR_WORKERS": "2"}
            name = f"starve-{secrets.token_hex(3)}"
            hall = RunningHall(
                home.path, name, free_port(), env, http_port=None, netns=network.hall
            )
            wrap = []
            if args.attacker_cpu is not None:  # the attacker as another machine: a core its own
                others = set(os.sched_getaffinity(0)) - {args.attacker_cpu}
                os.sched_setaffinity(0, others)  # the hall (started next) and the kiosks
                wrap = ["taskset", "-c", str(args.attacker_cpu)]
            hall.start()
            if args.nice:
                os.setpriority(os.PRIO_PGRP, hall.process.pid, args.nice)
                os.setpriority(os.PRIO_PROCESS, 0, args.nice)  # the kiosks: tablets of their own
                wrap += ["nice", "-n", str(-args.nice)]  # the attacker: the ordinary priority
            try:
                time.sleep(3)  # the workers' snapshots of the credentials know k2 and k3
                phases = args.phases.split(",")
                for round_no in range(args.rounds):
                    order = phases if round_no % 2 == 0 else list(reversed(phases))
                    print(f"round {round_no + 1}", flush=True)
                    for phase in order:
                        result = run_phase(phase, hall, tokens, args, wrap)
                        result["round"] = round_no + 1
                        print("  " + describe(result), flush=True)
                        results.append(result)
            finally:
                hall.kill()
    return results


def cpu_side_by_side(args) -> dict[str, list[float]]:
    """One verdict's server CPU (ms), batch by batch, for each tree: `serve --certfile`, one
    worker, the same challenges on one kept-alive connection, batches alternating."""
    trees = {"before": args.cpu_before.resolve(), "after": ROOT}
    folder = Path(tempfile.mkdtemp(prefix="starve-cpu-"))
    home = prepare_home(folder / "home")
    os.environ["ADJUDICATOR_HOME"] = str(home.path)
    tls = hall_tls.ensure("starve", ["127.0.0.1"], own_networks=[])
    context = ssl.create_default_context(cafile=str(tls.ca_cert))
    running = {}
    try:
        for label, tree in trees.items():
            env = {
                **os.environ,
                "ADJUDICATOR_KIOSK_RATE_LIMIT": "off",
                "ADJUDICATOR_HEADER_TIMEOUT_SECONDS": "60",
                "PYTHONPATH": str(tree),
            }
            argv = [sys.executable, "-m", "adjudicator", "serve", "--workers", "1"]
            argv += ["--certfile", str(tls.cert), "--keyfile", str(tls.key)]
            port = free_port()
            running[label] = (start(argv, env, port, True, context), port)
            if args.nice:
                os.setpriority(os.PRIO_PGRP, running[label][0].pid, args.nice)
        connections = {
            label: http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=context)
            for label, (_, port) in running.items()
        }
        for connection in connections.values():
            send(connection, home.token, 50)  # warm up
        used: dict[str, list[float]] = {label: [] for label in running}
        for batch in range(args.cpu_batches):
            order = list(running) if batch % 2 == 0 else list(reversed(running))
            for label in order:
                process = running[label][0]
                before = group_cpu_seconds(process.pid)
                judged = send(connections[label], home.token, args.cpu_per_batch, batch)
                assert judged == args.cpu_per_batch, f"{label}: only {judged} judged"
                used[label].append((group_cpu_seconds(process.pid) - before) * 1000 / judged)
    finally:
        for process, _ in running.values():
            os.killpg(process.pid, 9)
            process.wait()
    return used


def main(argv: list[str] | None = None) -> dict:
    """The CPU batches side by side (`cpu`, with --cpu-before) and every phase's figures
    (`phases`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--phases", default=",".join(PHASES))
    parser.add_argument("--nice", type=int, default=0)
    parser.add_argument("--attacker-cpu", type=int, default=None)
    parser.add_argument("--cpu-before", type=Path, default=None)
    parser.add_argument("--cpu-batches", type=int, default=8)
    parser.add_argument("--cpu-per-batch", type=int, default=300)
    parser.add_argument("--poll-wait", type=int, default=20, help="the kiosks' held polls (s)")
    args = parser.parse_args(argv)
    if args.cpu_before is not None:
        args.cpu_before = args.cpu_before.resolve()  # before the working folder changes
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped: the hall is stopped too
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))
    os.chdir(tempfile.gettempdir())  # gunicorn puts its working folder first on sys.path
    os.environ["PYTHONPATH"] = str(ROOT)  # the hall and the attacker run this tree (a snapshot)
    print(f"load average at the start: {os.getloadavg()}", flush=True)
    found: dict = {"cpu": {}, "phases": []}
    if args.cpu_before is not None:
        used = found["cpu"] = cpu_side_by_side(args)
        before, after = (statistics.median(used[k]) for k in ("before", "after"))
        print(
            f"a verdict's server CPU over TLS: before {before:.3f} ms, with the admission "
            f"{after:.3f} ms, ratio {after / before:.3f} (batches: "
            f"{[round(x, 3) for x in used['before']]} / {[round(x, 3) for x in used['after']]})",
            flush=True,
        )
    if args.rounds:
        results = found["phases"] = attack_rounds(args)
        print("\nmedians over the rounds, against quiet:")
        quiet = statistics.median(r["verdicts_per_s"] for r in results if r["phase"] == "quiet")
        for phase in args.phases.split(","):
            runs = [r for r in results if r["phase"] == phase]
            rate = statistics.median(r["verdicts_per_s"] for r in runs)
            p99 = max(r["p99_ms"] or 0 for r in runs)
            unanswered = sum(r["unanswered"] for r in runs)
            print(
                f"  {phase:<7} {rate:6.1f} verdicts/s ({rate / quiet:.2f}x quiet)  worst p99 "
                f"{p99:.0f} ms  unanswered {unanswered}"
            )
    print(f"load average at the end: {os.getloadavg()}", flush=True)
    return found


if __name__ == "__main__":
    main()
