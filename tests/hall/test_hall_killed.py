"""`adjudicator hall` killed outright (SIGKILL, the system out of memory: it can stop nothing)
leaves no server behind holding the port and judging unwatched: the server ends with it
(kiosk/server/hall_hooks.py), and the hall starts again on the same port and judges. In a
network namespace of the test's own (support.netns)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from test_takeover_network import NAME, PORT, SETTINGS, LaptopHall, judge

from support.netns import HALL_ADDRESS, HallNetwork
from support.servers import prepare_home, run_cli

pytestmark = pytest.mark.slow


def children_of(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def gone(pid: int) -> bool:
    """Whether `pid` has ended (a zombie not yet reaped has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_hall_killed_takes_its_server_with_it(hall_network: HallNetwork, tmp_path):
    laptop, tablet = hall_network.hall, hall_network.devices
    home = prepare_home(tmp_path / "home", env=SETTINGS)
    assert run_cli(home.path, "hall", "--fingerprint", env=SETTINGS, netns=laptop).returncode == 0
    cafile = str(home.path / "hall" / "ca.crt")
    args = ("--name", NAME, "--port", str(PORT))
    hall = LaptopHall(laptop, home.path, SETTINGS, *args).start()
    again = None
    try:
        judged = judge(tablet, HALL_ADDRESS, cafile, home.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 1), judged
        (server,) = children_of(hall.process.pid)
        assert "gunicorn" in Path(f"/proc/{server}/cmdline").read_text()
        os.kill(hall.process.pid, signal.SIGKILL)  # the hall process alone, not its group
        hall.process.wait(timeout=10)
        deadline = time.monotonic() + 20
        while not gone(server):
            assert time.monotonic() < deadline, "the server outlived the hall that started it"
            time.sleep(0.2)
        again = LaptopHall(laptop, home.path, SETTINGS, *args).start()
        judged = judge(tablet, HALL_ADDRESS, cafile, home.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 2), judged
    finally:
        hall.kill()
        if again is not None:
            again.kill()
