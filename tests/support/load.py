"""Load from Python threads (urllib) against real servers, and checks against the journal.

Used by the multi-server and fault tests: every response is kept with the time it came back,
so a test can say which verdicts were served and what each failed request was told.
"""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .servers import cli, post

GOOD = ("QI", "ZA", "JO", "CAT", "DOG", "FOX", "ZEBRA", "XI")


@dataclass
class Reply:
    at: float
    target: str
    status: int | None  # None: no HTTP answer at all (connection refused or reset)
    body: dict
    words: list[str]
    token: str = ""
    sent: float = 0.0  # when the request was sent (`at` is when its answer came back)


@dataclass
class Load:
    """Client threads sending challenges round-robin to `targets` (url, token) until stopped
    or until each has sent `per_thread` requests."""

    targets: list[tuple[str, str]]
    threads: int = 6
    per_thread: int | None = None
    seed: int = 0
    replies: list[Reply] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _workers: list[threading.Thread] = field(default_factory=list)

    def start(self) -> Load:
        for n in range(self.threads):
            worker = threading.Thread(target=self._run, args=(n,), daemon=True)
            worker.start()
            self._workers.append(worker)
        return self

    def _run(self, n: int) -> None:
        rng = random.Random(self.seed * 1000 + n)
        sent = 0
        while not self._stop.is_set() and (self.per_thread is None or sent < self.per_thread):
            url, token = self.targets[(n + sent) % len(self.targets)]
            words = rng.sample(GOOD, rng.randint(1, 4))
            if rng.random() < 0.4:
                words[rng.randrange(len(words))] = "ZZZ"
            sent_at = time.monotonic()
            status, body = post(url, token, words)
            self.replies.append(Reply(time.monotonic(), url, status, body, words, token, sent_at))
            sent += 1
            if status is None:
                time.sleep(0.02)  # the server is gone: do not spin

    def stop(self) -> Load:
        self._stop.set()
        return self.join()

    def join(self, timeout: float = 120) -> Load:
        for worker in self._workers:
            worker.join(timeout)
        return self

    def served(self) -> list[dict]:
        """Bodies of every verdict a client received."""
        return [r.body for r in self.replies if r.status == 201]


def journal_rows(home: Path, env: dict | None = None) -> dict[int, dict]:
    """The journal as `journal export --format json`, by id."""
    rows = json.loads(cli(home, "journal", "export", "--format", "json", env=env))
    return {row["id"]: row for row in rows}


def assert_served_are_recorded(served: list[dict], rows: dict[int, dict]) -> None:
    """Every verdict a client saw is in the journal, with the same verdict and words."""
    assert len({body["id"] for body in served}) == len(served), "an id was served twice"
    for body in served:
        row = rows.get(body["id"])
        assert row is not None, f"verdict {body['id']} was served but is not in the journal"
        assert (row["verdict"], row["words"], row["recorded_at"]) == (
            body["verdict"],
            body["words"],
            body["recorded_at"],
        )


def assert_clean_refusal(reply: Reply, phrase: str) -> None:
    """A 503 that says `phrase` and carries no verdict."""
    assert reply.status == 503, reply
    assert "verdict" not in reply.body, reply
    assert phrase.lower() in reply.body.get("error", "").lower(), reply
