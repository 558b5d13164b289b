"""Held polls over a real server (issue 36): `adjudicator serve` holds a kiosk's status poll
(`?wait=N` with the ETag it shows) on its event loop until something changes; a change (the
tournament set in another language by the command line, the kiosk revoked) wakes it with the
new answer; thirty held polls hold no thread (two threads judge and answer /healthz meanwhile);
a stop answers every held poll with its 304 at once instead of cutting it."""

from __future__ import annotations

import base64
import http.client
import json
import signal
import socket
import sqlite3
import threading
import time

import pytest

from kiosk.server.credentials import REFRESH_SECONDS

from support.servers import PreparedHome, Server, cli, prepare_home
from support.slow_clients import wait_for_close
from support.tablets import enrol

pytestmark = pytest.mark.slow


@pytest.fixture
def home(tmp_path) -> PreparedHome:
    return prepare_home(tmp_path / "home")


@pytest.fixture
def server(home):
    running = Server(home, workers=1, env={"ADJUDICATOR_THREADS": "2"}).start()
    yield running
    running.kill()


def ask(
    server: Server, token: str, path: str = "/api/v1/kiosk", tag: str | None = None, witness=None
):
    """One GET on its own connection: (status, ETag, JSON body or None)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    headers = {"Authorization": f"Bearer {token}"}
    if tag:
        headers["If-None-Match"] = tag
    if witness:
        headers["X-Kiosk-Witness"] = base64.urlsafe_b64encode(json.dumps(witness).encode())
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        data = response.read()
        return response.status, response.getheader("ETag"), json.loads(data) if data else None
    finally:
        connection.close()


class Held(threading.Thread):
    """A poll held by the server (`?wait=seconds`), answered in the background."""

    def __init__(self, server: Server, token: str, tag: str, seconds: int = 20, witness=None):
        super().__init__(daemon=True)
        self.args_ = (server, token, f"/api/v1/kiosk?wait={seconds}", tag, witness)
        self.answer = None
        self.start()

    def run(self) -> None:
        try:
            self.answer = ask(*self.args_)
        except OSError as error:
            self.answer = (None, None, repr(error))


def test_a_held_poll_is_woken_by_a_change_with_the_new_status(server, home):
    _, tag, _ = ask(server, home.token)
    held = Held(server, home.token, tag)
    time.sleep(1)  # it is held by now (answered at once, it would be a 304)
    assert held.answer is None
    cli(home.path, "tournament", "set", "hall", "--language", "pl")
    held.join(30)
    status, new_tag, body = held.answer
    assert (status, body["tournament"]["language"]) == (200, "pl") and new_tag != tag


def test_a_kiosk_revoked_while_its_poll_is_held_is_refused(server, home):
    _, tag, _ = ask(server, home.token)
    held = Held(server, home.token, tag)
    time.sleep(1)
    cli(home.path, "kiosk", "revoke", "k1")
    held.join(30)
    assert held.answer[0] == 401 and held.answer[2]["ok"] is False


def test_a_held_poll_keeps_watching_its_witness(server, home):
    """The kiosk's newest receipt goes with its held poll: a row removed from the journal under
    the running server raises the director's alarm while the poll is still held."""
    status, verdict = server.adjudicate(["QI"])
    receipt = verdict["receipt"]
    _, tag, _ = ask(server, home.token, witness=receipt)
    held = Held(server, home.token, tag, witness=receipt)
    time.sleep(1)
    with sqlite3.connect(home.path / "journal.sqlite3") as db:
        db.execute("DELETE FROM adjudications WHERE id = ?", (receipt["id"],))
    deadline = time.monotonic() + 15
    while not _alarms(home) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _alarms(home) == [("k1", receipt["id"])] and held.answer is None
    assert "WITNESS ALARM: kiosk k1" in server.read_log()


def test_a_kiosk_holds_one_poll_and_a_reloaded_page_holds_its_next(server, home):
    """Issue 42: one held poll a kiosk. Its second, while the first is held, is answered (its
    304) after a second, not held, so a page or a stolen token asking again spins slowly; once
    the first's connection is gone (the page reloaded), the next is held."""
    _, tag, _ = ask(server, home.token)
    with socket.create_connection(("127.0.0.1", server.port)) as page:  # the page's poll
        page.sendall(
            f"GET /api/v1/kiosk?wait=20 HTTP/1.1\r\nHost: x\r\nIf-None-Match: {tag}\r\n"
            f"Authorization: Bearer {home.token}\r\n\r\n".encode()
        )
        assert wait_for_close(page, 1) == "open"  # held
        started = time.monotonic()
        assert ask(server, home.token, "/api/v1/kiosk?wait=20", tag)[:2] == (304, tag)
        assert 0.9 <= time.monotonic() - started < 5  # after a second, not held 20 s
    # the page reloaded: its held poll's connection is gone, and the next poll is held
    time.sleep(0.5)
    again = Held(server, home.token, tag, seconds=3)
    time.sleep(1.5)
    assert again.answer is None  # held
    again.join(10)
    assert again.answer[:2] == (304, tag)


def _alarms(home) -> list[tuple[str, int]]:
    with sqlite3.connect(home.path / "journal.sqlite3") as db:
        return db.execute("SELECT kiosk, row_id FROM witness_alarms").fetchall()


def test_held_polls_hold_no_thread_and_a_stop_answers_them(server, home):
    tokens = list(enrol(home.path, [f"t{n}" for n in range(30)]).values())
    time.sleep(REFRESH_SECONDS + 0.5)  # the worker knows the new kiosks (kiosk/server/credentials)
    tags = [ask(server, token)[1] for token in tokens]
    held = [Held(server, token, tag) for token, tag in zip(tokens, tags, strict=True)]
    time.sleep(1)
    status, verdict = server.adjudicate(["QI", "ZA"])  # two threads, thirty polls held
    assert status == 201 and verdict["verdict"] == "ACCEPTABLE"
    assert ask(server, home.token, "/healthz")[0] == 200
    assert [poll.answer for poll in held] == [None] * 30  # all still held meanwhile
    server.process.send_signal(signal.SIGTERM)
    for poll in held:
        poll.join(15)
    assert [poll.answer[:2] for poll in held] == [(304, tag) for tag in tags]  # answered, not cut
    assert server.process.wait(15) == 0
    assert "Traceback" not in server.read_log()
