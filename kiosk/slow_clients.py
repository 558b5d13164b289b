"""Slow clients timed out: a connection must send its request's headers within a few seconds.

gunicorn's threaded worker hands a connection to a thread once its first bytes arrive, and the
thread then reads the headers with no time limit: six connections trickling a byte a second
held every thread of a worker, and /healthz waited behind them. `HeaderTimeoutWorker` gives
each accepted socket a deadline: from the start of each request, its headers (up to the blank
line) must arrive within HEADER_SECONDS, and no single read may wait longer than that. A client
that misses it is disconnected quietly (gunicorn's "premature client disconnection"), freeing
the thread. Bodies are not limited here (a director's upload may take longer on slow Wi-Fi),
only each of their reads.
"""

from __future__ import annotations

import errno
import socket
import time

from gunicorn.http.errors import NoMoreData
from gunicorn.workers.gthread import TConn, ThreadWorker

from adjudicator import settings

END_OF_HEADERS = b"\r\n\r\n"


class HeaderDeadlineSocket(socket.socket):
    """A socket whose blocking reads time out, and whose header bytes have a deadline."""

    limit = 4.0
    deadline: float | None = None
    cut = False  # timed out: every later read ends at once (also gunicorn's closing drain)
    _tail = b""

    def setblocking(self, flag: bool) -> None:
        if flag and not self.cut:  # blocking at the start of each request: the clock starts
            super().settimeout(self.limit)
            self.deadline = time.monotonic() + self.limit
            self._tail = b""
        else:
            super().setblocking(flag)

    def recv(self, size: int, *flags) -> bytes:
        if self.cut:
            raise NoMoreData(b"")
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                self.cut = True
                raise NoMoreData(b"")  # quietly closed: the headers came too slowly
            super().settimeout(min(left, self.limit))
        try:
            data = super().recv(size, *flags)
        except TimeoutError:
            self.cut = True
            raise NoMoreData(b"") from None
        if self.deadline is not None and data:
            seen = self._tail + data
            if END_OF_HEADERS in seen:
                self.deadline = None  # headers in: the body's reads only time out each
                super().settimeout(self.limit)
            self._tail = seen[-3:]
        return data


class HeaderTimeoutWorker(ThreadWorker):
    """gunicorn's gthread worker, with HeaderDeadlineSocket for every accepted connection."""

    def accept(self, listener):
        try:
            client_sock, client_addr = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        timed = HeaderDeadlineSocket(
            client_sock.family, client_sock.type, client_sock.proto, fileno=client_sock.detach()
        )
        timed.limit = float(settings.get_int("header_timeout_seconds", 1))
        timed.setblocking(True)
        self.enqueue_req(TConn(self.cfg, timed, client_addr, listener.getsockname()))
