"""Slow clients, as a player's laptop on the hall's Wi-Fi would send them, for attacks and load
runs: connections that trickle a request's head a byte a second, and kept-alive connections
that send half of a second request and then nothing. Each one, when the server closes it,
notes how long it held on, and connects again until told to stop."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Connect = Callable[[], socket.socket]
PADDING = b"X-Padding: " + b"a" * 200 + b"\r\n"  # a head that would take minutes to trickle


def tls_connector(address: str, port: int, cafile: Path, host: str = "127.0.0.1") -> Connect:
    """Connections to the hall over TLS (the handshake done), trusting only its CA."""
    context = ssl.create_default_context(cafile=str(cafile))

    def connect() -> socket.socket:
        raw = socket.create_connection((address, port), timeout=30)
        return context.wrap_socket(raw, server_hostname=host)

    return connect


def plain_connector(address: str, port: int) -> Connect:
    """Plain HTTP connections (`adjudicator serve`)."""
    return lambda: socket.create_connection((address, port), timeout=30)


def wait_for_close(sock: socket.socket, seconds: float) -> str:
    """What the server does with `sock` within `seconds`: "closed", "open" or "answered"."""
    sock.settimeout(seconds)
    try:
        return "answered" if sock.recv(1) else "closed"
    except TimeoutError:
        return "open"
    except OSError:  # reset, or TLS closed without its notify (ssl.SSLError is an OSError)
        return "closed"


def read_answer(sock: socket.socket) -> bytes:
    """One HTTP answer with a Content-Length, read whole from a kept-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("closed before the answer")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(4096)
    return head + b"\r\n\r\n" + body


@dataclass
class SlowClients:
    """`tricklers` trickling heads and `half_requests` kept-alive half requests, in threads."""

    connect: Connect
    tricklers: int = 40
    half_requests: int = 10
    host: str = "127.0.0.1"
    trickle_cuts: list = field(default_factory=list)  # seconds each was let hang on
    half_request_cuts: list = field(default_factory=list)
    answered: list = field(default_factory=list)  # an answer to an unfinished head: a failure
    failures: list = field(default_factory=list)  # could not connect, or the first answer failed
    stopping: threading.Event = field(default_factory=threading.Event)
    threads: list = field(default_factory=list)

    def start(self) -> SlowClients:
        for n in range(self.tricklers):
            self._spawn(self._trickle, n)
        for n in range(self.half_requests):
            self._spawn(self._half_request, n)
        return self

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(30)

    def __enter__(self) -> SlowClients:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _spawn(self, target, n: int) -> None:
        thread = threading.Thread(target=target, name=f"{target.__name__}-{n}", daemon=True)
        self.threads.append(thread)
        thread.start()
        time.sleep(0.02)  # not all in one burst of handshakes

    def _head(self, path: str = "/healthz") -> bytes:
        return f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n".encode() + PADDING + b"\r\n"

    def _trickle(self) -> None:
        while not self.stopping.is_set():
            try:
                sock = self.connect()
            except OSError as error:
                self.failures.append(("connect", repr(error)))
                time.sleep(0.5)
                continue
            started = time.monotonic()
            with sock:
                for byte in self._head():
                    try:
                        sock.sendall(bytes([byte]))
                    except OSError:
                        break  # closed under us
                    seen = wait_for_close(sock, 1.0)
                    if seen == "answered":
                        self.answered.append("an answer to a head not yet sent")
                    if seen != "open" or self.stopping.is_set():
                        break
                else:
                    self.answered.append("the whole head was taken in")
            if not self.stopping.is_set():
                self.trickle_cuts.append(time.monotonic() - started)

    def _half_request(self) -> None:
        full = f"GET /healthz HTTP/1.1\r\nHost: {self.host}\r\n\r\n".encode()
        half = self._head()[:20]
        while not self.stopping.is_set():
            try:
                sock = self.connect()
                sock.sendall(full)
                answer = read_answer(sock)
                assert answer.startswith(b"HTTP/1.1 200"), answer[:100]
            except (OSError, AssertionError, StopIteration) as error:
                self.failures.append(("first request", repr(error)))
                time.sleep(0.5)
                continue
            with sock:
                sock.sendall(half)
                started = time.monotonic()
                while not self.stopping.is_set():
                    seen = wait_for_close(sock, 0.5)
                    if seen == "answered":
                        self.answered.append("an answer to half a request")
                    if seen != "open":
                        self.half_request_cuts.append(time.monotonic() - started)
                        break
