"""Recovering after a fault ends (issue 22, item 7): the journal read-only for a moment, then
writable again. Every worker and thread must judge again within seconds, and /healthz and the
kiosk status must tell the truth throughout. The server runs as an unprivileged user (root
ignores a file's permissions), so the journal can really be made read-only under it."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from adjudicator.record.database.journal_health import PROBE_SECONDS

from support.load import Load, assert_served_are_recorded, journal_rows
from support.servers import NOBODY, Server, as_nobody_argv, cli, get, prepare_home

pytestmark = pytest.mark.slow


class UnprivilegedServer(Server):
    def command(self) -> list[str]:
        return as_nobody_argv(*super().command())


@pytest.fixture
def open_home():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to run the server as another user")
    folder = Path(tempfile.mkdtemp(prefix="adjudicator-recovery-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def hand_to_nobody(path: Path) -> None:
    for item in [path, *path.rglob("*")]:
        os.chown(item, NOBODY, NOBODY)


def both_kiosks(url: str, tokens: list[str], per_thread: int) -> Load:
    """Eight client threads, four per kiosk (a kiosk holds at most six connections in a worker,
    as a browser does: one token on eight would be refused its seventh while all are busy)."""
    loads = [Load([(url, token)], threads=4, per_thread=per_thread).start() for token in tokens]
    done = Load([])
    for load in loads:
        done.replies += load.join().replies
    return done


def test_every_worker_judges_again_once_the_journal_is_writable(open_home):
    home = prepare_home(open_home / "home")
    second = cli(home.path, "kiosk", "add", "k2", "--tournament", "hall").strip().splitlines()[-1]
    tokens = [home.token, second]
    hand_to_nobody(home.path)
    journal = home.path / "journal.sqlite3"
    with UnprivilegedServer(home, workers=2, env={"ADJUDICATOR_THREADS": "8"}) as server:
        journal.chmod(0o444)  # read-only: connections opened now can never write
        during = both_kiosks(server.url, tokens, per_thread=6)
        journal.chmod(0o644)
        time.sleep(PROBE_SECONDS + 1)  # "within seconds"
        after = both_kiosks(server.url, tokens, per_thread=15)
        health = [get(server.url + "/healthz")[0] for _ in range(20)]
        kiosk = [get(server.url + "/api/v1/kiosk", home.token)[1] for _ in range(10)]
    statuses = [r.status for r in after.replies]
    assert statuses == [201] * len(statuses), sorted(set(statuses))  # no thread left stuck
    assert set(health) == {200}, health
    assert {k["journal"]["state"] for k in kiosk} == {"ok"}
    for reply in during.replies:
        assert reply.status in (201, 503), reply
        if reply.status == 503:
            assert "verdict" not in reply.body
    hand_to_nobody(home.path)
    rows = journal_rows(home.path)
    assert_served_are_recorded(during.served() + after.served(), rows)
