"""A verdict the client saw is in the journal, even when the server dies mid-stream (SIGKILL)."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest

from support.servers import Server, cli, prepare_home

pytestmark = pytest.mark.slow

GOOD = ("QI", "ZA", "JO", "CAT", "DOG", "FOX", "ZEBRA", "XI")


def _stream(server: Server, seen: list, stop: threading.Event, seed: int) -> None:
    """Send challenges until the server dies; keep every verdict received."""
    rng = random.Random(seed)
    while not stop.is_set():
        words = rng.sample(GOOD, rng.randint(1, 4))
        if rng.random() < 0.5:
            words[rng.randrange(len(words))] = "ZZZ"
        status, body = server.adjudicate(words, timeout=5)
        if status is None:
            return  # the server is gone: this request got no verdict
        if status == 201:
            seen.append(body)


def test_sigkill_mid_stream_loses_no_served_verdict(tmp_path):
    home = prepare_home(tmp_path / "home")
    server = Server(home, workers=2).start()
    seen: list[dict] = []
    stop = threading.Event()
    clients = [threading.Thread(target=_stream, args=(server, seen, stop, n)) for n in range(4)]
    for client in clients:
        client.start()
    time.sleep(1.5)
    server.kill()  # SIGKILL master and workers while requests are in flight
    stop.set()
    for client in clients:
        client.join(timeout=10)

    assert len(seen) > 20, "the stream should have produced verdicts before the kill"
    journal = {
        row["id"]: row
        for row in json.loads(cli(home.path, "journal", "export", "--format", "json"))
    }
    for body in seen:
        row = journal.get(body["id"])
        assert row is not None, f"verdict {body['id']} was served but is not in the journal"
        assert (row["verdict"], row["words"]) == (body["verdict"], body["words"])
    assert "Journal intact" in cli(home.path, "journal", "verify")

    # The hall comes back on the same journal and the chain goes on.
    with Server(home, workers=1) as again:
        status, body = again.adjudicate(["QI"])
    assert status == 201 and body["id"] == max(journal) + 1
    assert "Journal intact" in cli(home.path, "journal", "verify")
