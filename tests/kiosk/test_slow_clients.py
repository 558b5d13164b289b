"""Slow clients are timed out (issue 22, item 8): six connections trickling their headers a byte
at a time must not hold /healthz on a server with four request threads, and are disconnected."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from support.servers import Server, get, prepare_home

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
