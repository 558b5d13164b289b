"""Slow clients are timed out over plain HTTP (`adjudicator serve`; issue 22, item 8, and issue
26): connections trickling their headers a byte at a time, and kept-alive ones sending half a
request, must not hold /healthz on a server with four request threads, and are disconnected; a
flood of silent connections past the worker's open-file limit neither kills nor spins it."""

from __future__ import annotations

import http.client
import socket
import threading
import time

import pytest

from support.servers import Server, get, prepare_home
from support.slow_clients import SlowClients, plain_connector

pytestmark = pytest.mark.slow


def trickle(port: int, seconds: float, outcome: dict, index: int) -> None:
    """Send a request's headers one byte every 0.5 s; note when the server hung up."""
    started = time.monotonic()
    text = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 200 + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port)) as conn:
        try:
            for byte in text:
                conn.sendall(bytes([byte]))
                time.sleep(0.5)
                if time.monotonic() - started > seconds:
                    break
            conn.settimeout(2)
            outcome[index] = ("answered", conn.recv(100), time.monotonic() - started)
        except OSError:
            outcome[index] = ("cut", b"", time.monotonic() - started)


def test_trickling_headers_are_cut_and_healthz_answers(tmp_path):
    home = prepare_home(tmp_path / "home")
    env = {"ADJUDICATOR_THREADS": "4", "ADJUDICATOR_HEADER_TIMEOUT_SECONDS": "3"}
    with Server(home, workers=1, env=env) as server:
        outcome: dict = {}
        tricklers = [
            threading.Thread(target=trickle, args=(server.port, 20, outcome, n), daemon=True)
            for n in range(6)
        ]
        for thread in tricklers:
            thread.start()
        time.sleep(1.0)  # every thread of the worker is now reading a trickle
        started = time.monotonic()
        status, body = get(server.url + "/healthz", timeout=15)
        waited = time.monotonic() - started
        for thread in tricklers:
            thread.join(30)
    assert status == 200 and body["ok"] is True
    assert waited < 4.5, waited  # not held for the trickles' 20 s (nor the 8 s of the probe)
    assert len(outcome) == 6
    for how, answer, after in outcome.values():
        assert how == "cut" and after < 10, (how, after)  # the headers would take 110 s
        assert answer == b"", answer  # no answer to a request never finished


def test_half_requests_on_kept_alive_connections_are_closed_at_the_deadline(tmp_path):
    home = prepare_home(tmp_path / "home")
    env = {"ADJUDICATOR_THREADS": "4", "ADJUDICATOR_HEADER_TIMEOUT_SECONDS": "2"}
    with Server(home, workers=1, env=env) as server:
        connect = plain_connector("127.0.0.1", server.port)
        with SlowClients(connect, tricklers=8, half_requests=8) as attack:
            time.sleep(1.0)
            waits = []
            for _ in range(6):
                started = time.monotonic()
                status, _ = get(server.url + "/healthz", timeout=15)
                waits.append(time.monotonic() - started)
                assert status == 200
                time.sleep(0.5)
    assert max(waits) < 1.0, waits  # 16 slow clients, 4 threads: none of them held
    assert not attack.answered and not attack.failures, (attack.answered, attack.failures)
    assert len(attack.half_request_cuts) >= 8
    assert max(attack.half_request_cuts) < 4.0, attack.half_request_cuts
    assert max(attack.trickle_cuts) < 4.0, attack.trickle_cuts


class FewFilesServer(Server):
    """`adjudicator serve` allowed only 300 open files (soft and hard)."""

    def command(self) -> list[str]:
        return ["prlimit", "--nofile=300:300", *super().command()]


def test_a_flood_of_silent_connections_never_runs_the_worker_out_of_files(tmp_path):
    home = prepare_home(tmp_path / "home")
    env = {
        "ADJUDICATOR_THREADS": "4",
        "ADJUDICATOR_HEADER_TIMEOUT_SECONDS": "2",
        # the worker's own cap is under test here, not one address's (test_connection_flood.py)
        "ADJUDICATOR_CONNECTIONS_PER_ADDRESS": "0",
    }
    with FewFilesServer(home, workers=1, env=env) as server:
        pids = worker_pids(server)
        flood = []
        for _ in range(600):  # twice what the worker may open: the rest wait in the backlog
            flood.append(socket.create_connection(("127.0.0.1", server.port), timeout=10))
        time.sleep(3)
        started = time.monotonic()
        status, body = get(server.url + "/healthz", timeout=30)  # behind the flood's backlog
        waited = time.monotonic() - started
        for sock in flood:
            sock.close()
        time.sleep(1)
        status_after, _ = get(server.url + "/healthz", timeout=5)
        assert worker_pids(server) == pids  # the worker neither died nor was replaced
    assert status == 200 and waited < 15, (status, waited)
    assert status_after == 200
    log = server.read_log()
    assert "Too many open files" not in log and "Traceback" not in log, log[-3000:]


def test_max_requests_counts_requests_on_a_kept_alive_connection(tmp_path):
    home = prepare_home(tmp_path / "home")
    env = {"GUNICORN_CMD_ARGS": "--max-requests 20"}  # gunicorn's option, as an operator sets it
    with Server(home, workers=1, env=env) as server:
        pids = worker_pids(server)
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        answered, said_close = 0, False
        try:
            for _ in range(40):  # one kept-alive connection: one connection, forty requests
                try:
                    connection.request("GET", "/healthz")
                    response = connection.getresponse()
                    response.read()
                except (http.client.RemoteDisconnected, ConnectionError):
                    break  # closed between two requests by the worker's stop (clients retry)
                assert response.status == 200
                answered += 1
                if response.getheader("Connection") == "close":
                    said_close = True
                    break
                time.sleep(0.1)  # the worker looks for its stop every quarter second
        finally:
            connection.close()
        deadline = time.monotonic() + 20
        while worker_pids(server) in (pids, set()) and time.monotonic() < deadline:
            time.sleep(0.2)
        replaced = worker_pids(server)
        status, _ = get(server.url + "/healthz", timeout=15)
    assert answered <= 20, answered  # the worker restarted after its 20 requests (the probe's
    assert said_close  # its last answer closed the connection: no request sent to a worker gone
    assert replaced and not replaced & pids, (pids, replaced)  # included), not at 40 or never
    assert status == 200


def worker_pids(server: Server) -> set[int]:
    """The gunicorn master's children, its workers (prlimit and `serve` exec it: one pid)."""
    pid = server.process.pid
    return {int(child) for child in open(f"/proc/{pid}/task/{pid}/children").read().split()}
