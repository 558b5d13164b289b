"""TSH's file swapped under a real server (issue 33, item 3): `tourney.js` replaced by a FIFO
for 40 s, then by a symlink to /dev/zero, then by a good file. The old reader waited for good
in `open()` on the FIFO (the hall never followed TSH again) and read /dev/zero until memory ran
out. Here /healthz answers throughout, the workers' memory stays where it was, the overview
says what failed and since when, and the good file is followed at the next poll."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from adjudicator.hall.tsh import games
from adjudicator.record.database.sqlite import SqliteDatabase

from support import tsh_files
from support.attacks import cheaply_staffed_home, director
from support.http import Client
from support.servers import Server, cli

pytestmark = pytest.mark.slow

POLL_SECONDS = 1
FIFO_SECONDS = 40
MEMORY_GROWTH = 64 * 1024 * 1024  # a worker reading /dev/zero would pass this in a second


def rss_bytes(group: int) -> int:
    """The resident memory of every process in process group `group` (the server's)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[2]) != group:
                continue
            status = (stat.parent / "status").read_text()
        except (OSError, IndexError, ValueError):
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def replace_with(path: Path, make) -> None:
    """Put something else at `path` in one rename, as a hostile writer of TSH's folder would."""
    other = path.with_name(path.name + ".new")
    make(other)
    os.replace(other, path)


class Watch:
    """/healthz and the server's memory, looked at every second for as long as it runs."""

    def __init__(self, server: Server):
        self.server = server
        self.healthz: list[int] = []
        self.baseline = rss_bytes(server.process.pid)
        self.most = self.baseline

    def look(self) -> None:
        self.healthz.append(Client(self.server.url, "127.0.0.2", timeout=10).get("/healthz").status)
        self.most = max(self.most, rss_bytes(self.server.process.pid))

    def until(self, done, seconds: float) -> float:
        """Look every second until `done()` (asked every 0.1 s) or `seconds` passed: how long
        it took."""
        started = looked = time.monotonic()
        self.look()
        while not done() and time.monotonic() - started < seconds:
            if time.monotonic() - looked >= 1:
                looked = time.monotonic()
                self.look()
            time.sleep(0.1)
        took = time.monotonic() - started
        self.look()
        return took


def games_of(server: Server) -> list:
    """The games the server keeps for tournament `hall` (its journal's database, read here)."""
    db = SqliteDatabase(str(server.home.path / "journal.sqlite3"))
    try:
        return games.show(db, "hall")
    finally:
        db.close()


@pytest.fixture
def linked(tmp_path):
    home = cheaply_staffed_home(tmp_path / "home")
    made = tsh_files.make_event({"A": 8}, 4, 2)
    path = tsh_files.write_tourney_js(tmp_path / "tsh" / "html" / "tourney.js", made)
    cli(home.path, "tsh", "link", "hall", str(path))
    env = {"ADJUDICATOR_TSH_POLL_SECONDS": str(POLL_SECONDS), "ADJUDICATOR_TSH_URL_SECONDS": "5"}
    with Server(home, workers=2, env=env) as server:
        yield server, made, path


def test_a_fifo_then_dev_zero_then_a_good_file(linked):
    server, made, path = linked
    shown = games_of(server)
    watch = Watch(server)
    staff = director(server.url, "127.0.0.3")

    def overview_says(text: str):
        return lambda: text in staff.get("/director/").body

    replace_with(path, os.mkfifo)
    watch.until(overview_says("tourney.js is not a regular file (a FIFO)"), 30)
    page = staff.get("/director/").body
    assert "tourney.js is not a regular file (a FIFO)" in page
    assert "Reading it again has failed since" in page  # with its time
    watch.until(lambda: False, FIFO_SECONDS)  # 40 s of a FIFO, read again every 5 s
    assert games_of(server) == shown  # the last good pairings stay

    replace_with(path, lambda other: os.symlink("/dev/zero", other))
    watch.until(overview_says("tourney.js is not a regular file (a device)"), 30)
    assert "tourney.js is not a regular file (a device)" in staff.get("/director/").body
    watch.until(lambda: False, 10)

    tsh_files.pair_round(made, "A")
    replace_with(path, lambda other: tsh_files.write_tourney_js(other, made))
    took = watch.until(lambda: len(games_of(server)) > len(shown), 60)
    print(f"the good file was followed {took:.1f} s after it was written (poll {POLL_SECONDS} s)")
    assert len(games_of(server)) > len(shown)
    assert "tourney.js is not a regular file" not in staff.get("/director/").body

    assert watch.healthz and set(watch.healthz) == {200}, watch.healthz
    assert len(watch.healthz) >= FIFO_SECONDS  # asked every second throughout
    assert watch.most - watch.baseline < MEMORY_GROWTH, (watch.baseline, watch.most)
    assert "Traceback" not in server.read_log()
