"""Attacks on the SQLite journal's files under a live gunicorn server (two workers, clients
sending all the while): delete all three files, only the WAL, or swap in another journal.

Promises: no request sent after the files went gets a verdict (every one is 503 NOT JUDGED),
/healthz says 503, and every verdict served before is in the journal that was there (kept
through hard links, as a director restoring the file would find it).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.load import assert_served_are_recorded, journal_rows
from support.servers import Server, cli, get, post, prepare_home

pytestmark = pytest.mark.slow

SUFFIXES = ("", "-wal", "-shm")


@dataclass
class Sent:
    started: float
    status: int | None
    body: dict


def keep_clients_busy(server: Server, token: str, stop: threading.Event, sent: list) -> None:
    while not stop.is_set():
        started = time.monotonic()
        status, body = post(server.url, token, ["QI", "ZA"])
        sent.append(Sent(started, status, body))


def keep_files(db: Path, folder: Path) -> Path:
    """Hard links to the journal's files, so what is deleted can still be read."""
    folder.mkdir()
    for suffix in SUFFIXES:
        source = db.with_name(db.name + suffix)
        if source.exists():
            os.link(source, folder / (db.name + suffix))
    return folder / db.name


def another_journal(tmp_path: Path) -> Path:
    """A valid, fully migrated journal of another hall (made with the CLI)."""
    other = prepare_home(tmp_path / "other-hall")
    return other.path / "journal.sqlite3"


@pytest.mark.parametrize("attack", ["delete-all", "delete-wal", "replace"])
def test_no_verdict_once_the_journal_files_are_gone(tmp_path, attack):
    home = prepare_home(tmp_path / "home")
    db = home.path / "journal.sqlite3"
    swap = another_journal(tmp_path) if attack == "replace" else None
    stop, sent = threading.Event(), []
    with Server(home, workers=2) as server:
        warm = [server.adjudicate(["QI"]) for _ in range(8)]
        assert {status for status, _ in warm} == {201}
        clients = [
            threading.Thread(target=keep_clients_busy, args=(server, home.token, stop, sent))
            for _ in range(4)
        ]
        for client in clients:
            client.start()
        time.sleep(0.7)
        kept = keep_files(db, tmp_path / "kept")
        if attack == "delete-all":
            for suffix in SUFFIXES:
                db.with_name(db.name + suffix).unlink()
        elif attack == "delete-wal":
            db.with_name(db.name + "-wal").unlink()
        else:
            os.replace(swap, db)
        gone_at = time.monotonic()
        time.sleep(1.5)
        stop.set()
        for client in clients:
            client.join(30)
        health = [get(server.url + "/healthz") for _ in range(6)]  # both workers answer some
        log = server.read_log()

    after = [s for s in sent if s.started > gone_at]
    assert len(after) >= 10, "the clients sent too little after the attack to tell"
    assert [s for s in after if s.status == 201] == [], "a verdict was served after the attack"
    for reply in after:
        assert reply.status == 503, reply
        assert "verdict" not in reply.body and "receipt" not in reply.body
        assert "not judged" in reply.body["error"].lower()
    assert {status for status, _ in health} == {503}
    assert all("journal" in body["error"].lower() for _, body in health)
    assert "journal lost" in log

    # Every verdict served (before the attack) is in the journal that was there.
    served = [body for _, body in warm] + [s.body for s in sent if s.status == 201]
    env = {"ADJUDICATOR_DATABASE_URL": str(kept)}
    assert_served_are_recorded(served, journal_rows(home.path, env))
    assert "Journal intact" in cli(home.path, "journal", "verify", env=env)
