"""Issue 40: two laptops of one hall hear each other, and how soon each warns.

In network namespaces of its own (tests/support/netns.py: nothing leaves the machine), laptop B
serves `adjudicator hall` as spring.local and judges; laptop A, the same hall's key and CA (a
copy of the data home), starts. Measured from A's start (the command run) to:
- A's /healthz naming B: A heard B answer for the name with the hall's CA at its start (mDNS,
  then a TLS handshake with B's port). This is the floor: what a hall already found by itself
  before issue 40 (it warned, one-sided);
- B's /healthz naming A: A told B directly (a note signed with the hall's key, POST /hall/peer).
The goal is both within 10 s. Runs as root (namespaces).

    .venv/bin/python -m benchmarks.two_laptops [ROUNDS]
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.support.netns import HALL_ADDRESS, HallNetwork, missing_reason
from tests.support.running_hall import RunningHall, TlsClient
from tests.support.servers import prepare_home, run_cli

NAME, PORT = "spring", 8443
B_ADDRESS = "192.0.2.11"
SETTINGS = {"ADJUDICATOR_NAME_CHECK_SECONDS": "1", "ADJUDICATOR_KIOSK_RATE_LIMIT": "off"}


class Laptop(RunningHall):
    """`adjudicator hall --name spring --port 8443` on one laptop (no plain-HTTP port)."""

    def command(self) -> list[str]:
        argv = [sys.executable, "-m", "adjudicator", "hall", "--name", NAME, "--port", str(PORT)]
        return self.netns.command(*argv, "--http-port", "0")


def warned(tablet, address: str, cafile: Path, other: str) -> bool:
    """Whether the laptop at `address` names the laptop at `other` in /healthz's warnings."""
    try:
        _, _, body = TlsClient(address, PORT, f"{NAME}.local", cafile, tablet).request(
            "GET", "/healthz"
        )
        found = json.loads(body).get("warnings", [])
    except (OSError, ValueError):
        return False
    return any(f"({other}" in line for line in found)


def one_round(folder: Path) -> dict:
    with HallNetwork() as network:
        laptop_a, tablet = network.hall, network.devices
        laptop_b = network.add_machine("b", B_ADDRESS)
        a = prepare_home(folder / "a", env=SETTINGS)
        run_cli(a.path, "hall", "--fingerprint", env=SETTINGS, netns=laptop_a)
        cafile = a.path / "hall" / "ca.crt"
        shutil.copytree(a.path, folder / "b")
        hall_b = Laptop(folder / "b", NAME, PORT, SETTINGS, netns=laptop_b).start()
        hall_a = Laptop(a.path, NAME, PORT, SETTINGS, netns=laptop_a)
        try:
            started = time.monotonic()
            threading.Thread(target=hall_a.start, daemon=True).start()
            seen: dict[str, float] = {}
            while len(seen) < 2 and time.monotonic() - started < 120:
                if "b" not in seen and warned(tablet, B_ADDRESS, cafile, HALL_ADDRESS):
                    seen["b"] = time.monotonic() - started
                if "a" not in seen and warned(tablet, HALL_ADDRESS, cafile, B_ADDRESS):
                    seen["a"] = time.monotonic() - started
                time.sleep(0.05)
        finally:
            hall_a.kill()
            hall_b.kill()
    return seen


def main(argv: list[str]) -> list[dict]:
    """Each round's seconds from A's start to each warning: {"a": ..., "b": ...}."""
    reason = missing_reason()
    if reason:
        raise SystemExit(f"needs network namespaces: {reason}")
    rounds = int(argv[0]) if argv else 3
    found = []
    for index in range(rounds):
        seen = one_round(Path(tempfile.mkdtemp(prefix=f"two-laptops-{index}-")))
        found.append(seen)
        print(
            f"round {index + 1}: A warns of B {seen.get('a', float('nan')):.1f} s, "
            f"B warns of A {seen.get('b', float('nan')):.1f} s after A's start",
            flush=True,
        )
    a = statistics.median(s.get("a", float("inf")) for s in found)
    b = statistics.median(s.get("b", float("inf")) for s in found)
    print(
        f"median over {rounds}: A (the floor: it hears B by itself) {a:.1f} s, B (told by A) "
        f"{b:.1f} s; ratio {b / a:.2f}x; the goal: both within 10 s"
    )
    return found


if __name__ == "__main__":
    main(sys.argv[1:])
