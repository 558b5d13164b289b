"""Paired kiosks as tablets use the hall, for attacks and load runs: each from its own source
address (a loopback one), over plain HTTP or TLS, on a kept-alive connection (a new one when the
server closes it), its status poll held open (`?wait=`, with the status's ETag) and its
challenges sent one after another. Every request is kept with its outcome and how long it took,
so a test can say that every one was answered and a load run how fast."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from adjudicator.hall import kiosks
from adjudicator.record.database.sqlite import SqliteDatabase

WORDS = ("QI", "ZA")


def enrol(home: Path, names: list[str], tournament: str = "hall") -> dict[str, str]:
    """Enrol kiosks `names` in the served home's journal: their tokens, by name."""
    db = SqliteDatabase(str(home / "journal.sqlite3"))
    try:
        return {name: kiosks.add(db, name, tournament).token for name in names}
    finally:
        db.close()


@dataclass
class Outcome:
    kind: str  # "poll" or "judge"
    status: int | None  # None: no answer (the connection failed)
    seconds: float
    error: str = ""
    kiosk: str = ""  # the tablet's source address
    attempts: int = 1  # 2: sent again on a new connection (the first had been closed)


@dataclass
class Tablet:
    """One kiosk: `token`, from `source`, to `port` on `host` (TLS when `cafile` is given)."""

    port: int
    token: str
    source: str
    cafile: Path | None = None
    host: str = "127.0.0.1"
    outcomes: list[Outcome] = field(default_factory=list)
    etag: str = ""
    retried: int = 0  # requests sent again on a new connection: the kept-alive one had closed

    def connect(self) -> http.client.HTTPConnection:
        if self.cafile is None:
            return http.client.HTTPConnection(
                self.host, self.port, timeout=60, source_address=(self.source, 0)
            )
        context = ssl.create_default_context(cafile=str(self.cafile))
        return http.client.HTTPSConnection(
            self.host, self.port, timeout=60, source_address=(self.source, 0), context=context
        )

    def poll(self, connection, wait: int = 20) -> int | None:
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if self.etag:
            headers["If-None-Match"] = self.etag
        target = f"/api/v1/kiosk?wait={wait}"
        status, answer = self._ask(connection, "poll", "GET", target, None, headers)
        if status == 200:
            self.etag = answer.getheader("ETag") or ""
        return status

    def judge(self, connection, words=WORDS) -> int | None:
        body = json.dumps({"words": list(words)}).encode()
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        status, _ = self._ask(connection, "judge", "POST", "/api/v1/adjudications", body, headers)
        return status

    def _ask(self, connection, kind, method, path, body, headers):
        started = time.monotonic()
        for attempt in (1, 2):  # a kept-alive connection the server closed: once more, anew
            try:
                connection.request(method, path, body=body, headers=headers)
                answer = connection.getresponse()
                answer.read()
                took = time.monotonic() - started
                self.outcomes.append(Outcome(kind, answer.status, took, "", self.source, attempt))
                return answer.status, answer
            except (OSError, http.client.HTTPException) as error:
                connection.close()
                self.retried += attempt == 1
                if attempt == 2 or not _reused(error):
                    took = time.monotonic() - started
                    self.outcomes.append(
                        Outcome(kind, None, took, repr(error), self.source, attempt)
                    )
                    return None, None
        return None, None


def _reused(error: Exception) -> bool:
    """An error a kept-alive connection meets when the server had closed it meanwhile."""
    return isinstance(
        error,
        http.client.RemoteDisconnected | BrokenPipeError | ConnectionResetError | socket.timeout,
    ) or isinstance(error, http.client.BadStatusLine)


@dataclass
class Tablets:
    """Threads, for each tablet: one polling (held), one judging one challenge after another
    (`pause` seconds apart), until stopped."""

    tablets: list[Tablet]
    pause: float = 0.0
    wait: int = 20  # a poll is held this long at most
    stopping: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> Tablets:
        for tablet in self.tablets:
            for run in (self._poll, self._judge):
                thread = threading.Thread(target=run, args=(tablet,), daemon=True)
                thread.start()
                self.threads.append(thread)
        return self

    def stop(self) -> list[Outcome]:
        self.stopping.set()
        for thread in self.threads:
            thread.join(90)
        return self.outcomes()

    def outcomes(self) -> list[Outcome]:
        return [outcome for tablet in self.tablets for outcome in tablet.outcomes]

    def __enter__(self) -> Tablets:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _poll(self, tablet: Tablet) -> None:
        connection = tablet.connect()
        while not self.stopping.is_set():
            if tablet.poll(connection, wait=self.wait) is None:
                connection = tablet.connect()

    def _judge(self, tablet: Tablet) -> None:
        connection = tablet.connect()
        while not self.stopping.is_set():
            if tablet.judge(connection) is None:
                connection = tablet.connect()
            self.stopping.wait(self.pause)


def unanswered(outcomes: list[Outcome]) -> list[Outcome]:
    """The requests that got no answer, or not the one a kiosk expects (a verdict, a status)."""
    wanted = {"poll": {200, 304}, "judge": {201}}
    return [o for o in outcomes if o.status not in wanted[o.kind]]
