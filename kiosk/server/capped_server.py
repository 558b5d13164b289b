"""Tornado's HTTP server, with at most so many connections open at once.

A laptop can open connections faster than their deadlines close them. Past the process's file
descriptor limit, every accept fails at once and is tried again at once: a loop spinning and
an error log flooding. So the worker raises its soft limit to the hard one, and this server
stops accepting at `limit` open connections (those in their TLS handshake included), leaving
the rest in the kernel's backlog until the deadlines free places. It takes one connection each
time the listening socket wakes it, as gunicorn's own workers do, so the workers sharing that
socket share a burst of connections out among them.

One laptop must not take those places from the kiosks: a client address (an IPv6 one by its /64)
holds at most `per_address` of them. Its next connections are closed as soon as they are
accepted, before any TLS, and the accepting goes on in the same wake-up (a refusal costs
microseconds, so a flood of them moves through the backlog and a kiosk's connection behind it
is reached at once). The refusals are logged once a minute per address and shared with the
director's overview (adjudicator/hall/network/connection_caps.py).
"""

from __future__ import annotations

import resource
import socket
import struct
import time
from collections import Counter
from collections.abc import Callable
from functools import partial

from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop

from adjudicator.hall.network.connection_caps import AtCap, Refusals, address_key

RESERVED_FILES = 100  # the journal and its mirror, lexicons, logs, pipes: besides the threads'
BUSY_DEFER_SECONDS = 0.002  # a busy worker lets an idle one take a new connection first
FILES_PER_THREAD = 8  # a journal connection per thread, with its -wal and -shm, twice if mirrored
# What the cap per address is, for the log: the HTTPS port's is a setting; the plain-HTTP
# port's is fixed (kiosk.server.plain_http: it serves the trust page alone).
CAP_SETTING = (
    " (ADJUDICATOR_CONNECTIONS_PER_ADDRESS)",
    " A laptop flooding the hall, or tablets behind one NAT address (then raise the setting).",
)
CAP_FIXED = (" on the plain-HTTP port, which serves only the trust page (a fixed cap)", "")
FLOOD_SECONDS = 1.0  # refused one this recently: a flood is in the backlog
REFUSED_PER_WAKE = 32  # refused in one wake-up before the loop turns to its other connections
_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close with a reset, no TIME_WAIT kept


def connection_limit(wanted: int, threads: int) -> int:
    """`wanted` connections, or fewer if the file descriptors would run out first (the soft
    limit raised to the hard one, as far as it goes)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 1 << 16 if hard == resource.RLIM_INFINITY else min(hard, 1 << 16)
        if target > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
            except (ValueError, OSError):
                pass
    spare = soft - RESERVED_FILES - FILES_PER_THREAD * threads
    return max(16, min(wanted, spare))


class CappedHTTPServer(HTTPServer):
    """An HTTPServer that accepts from `listen_on`'s sockets while fewer than `limit` of its
    connections are open."""

    def initialize(
        self,
        *args,
        limit: int = 1000,
        busy: Callable[[], bool] = lambda: False,
        per_address: int = 0,
        warn: Callable[[str], None] = lambda line: None,
        cap_is: tuple[str, str] = CAP_SETTING,
        **kwargs,
    ):
        super().initialize(*args, **kwargs)
        self.limit = limit
        self.busy = busy
        self.per_address = per_address  # 0: no limit per address
        self.cap_is = cap_is  # what sets that cap, and what to do, for the log line
        self.warn = warn  # the worker's log
        self.by_address: Counter[str] = Counter()
        self.address_of: dict[object, str] = {}  # each open connection's stream: its address
        self.refusals = Refusals()
        self.write_due = False
        self.last_refused = -FLOOD_SECONDS
        self.deferred = False
        self.listening: list[socket.socket] = []
        self.removers: list[Callable[[], None]] = []

    @property
    def open(self) -> int:
        """The connections open now, TLS handshakes included: HTTPServer's own set of them
        (added in `handle_stream`, removed in `on_close`), so the count cannot drift."""
        return len(self._connections)

    def listen_on(self, sockets: list[socket.socket]) -> None:
        """Accept connections from these (already listening) sockets."""
        self.listening = list(sockets)
        self._accept()

    def stop_listening(self) -> None:
        """Accept no more connections (the sockets stay open: they are gunicorn's)."""
        self.listening = []
        self._pause()

    def handle_stream(self, stream, address) -> None:
        key = _key(address)
        self.by_address[key] += 1
        self.address_of[stream] = key
        super().handle_stream(stream, address)
        if self.open >= self.limit:
            self._pause()

    def on_close(self, server_conn) -> None:
        super().on_close(server_conn)
        key = self.address_of.pop(server_conn.stream, None)  # HTTP1ServerConnection's stream
        if key is not None:
            self.by_address[key] -= 1
            if self.by_address[key] <= 0:
                del self.by_address[key]
        self._resume()

    def _accept(self) -> None:
        loop = IOLoop.current()
        for sock in self.listening:
            sock.setblocking(False)
            loop.add_handler(sock, self._accept_one, IOLoop.READ)
            self.removers.append(partial(loop.remove_handler, sock))

    def _accept_one(self, sock: socket.socket, events: int) -> None:
        """One connection per wake-up, as gunicorn's own workers take them; a worker that
        has connections already waits BUSY_DEFER_SECONDS first, so one without any, sharing
        the listening socket, takes it (a burst of connections all into one worker would
        leave the other's core idle). Connections refused past an address's cap take no
        turn: the next is accepted at once; and while an address is being refused (a flood
        in the backlog) no wake-up waits, or the flood would fill the backlog meanwhile and
        keep the kiosks' connections behind it."""
        flooded = time.monotonic() - self.last_refused < FLOOD_SECONDS
        if (self.open or self.busy()) and not self.deferred and not flooded:
            self.deferred = True
            self._pause()
            IOLoop.current().call_later(BUSY_DEFER_SECONDS, self._resume)
            return
        self.deferred = False
        for _ in range(REFUSED_PER_WAKE):
            try:
                connection, address = sock.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return  # another worker took it, or the client gave up
            except OSError:  # out of files after all: wait a second rather than spin
                self._pause()
                IOLoop.current().call_later(1.0, self._resume)
                return
            key = _key(address)
            if not self.per_address or self.by_address[key] < self.per_address:
                self._handle_connection(connection, address)
                return
            self._refuse(connection, key)

    def _refuse(self, connection: socket.socket, key: str) -> None:
        """Close a connection of an address at its cap at once; note it, for the log (once a
        minute) and the overview (the file written at most every few seconds)."""
        try:
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
        except OSError:
            pass
        connection.close()
        self.last_refused = time.monotonic()
        noted = self.refusals.note(key)
        if noted is not None:
            self.warn(_refused_line(noted, self.per_address, self.cap_is))
        if not self.write_due:
            self.write_due = True
            IOLoop.current().call_later(self.refusals.next_write(), self._write_refusals)

    def _write_refusals(self) -> None:
        self.write_due = False
        try:
            self.refusals.write()
        except OSError as exc:
            self.warn(f"The connections refused could not be shared with the overview: {exc}")

    def _resume(self) -> None:
        if not self.removers and self.open < self.limit:
            self._accept()

    def _pause(self) -> None:
        removers, self.removers = self.removers, []
        for remove in removers:
            remove()


def _key(address) -> str:
    """What a peer is counted by (accept's address: (host, port, ...), or '' for a Unix socket).
    An IPv4 peer's dotted address is its key as accept gives it (the flood's hot path)."""
    host = address[0] if isinstance(address, tuple) and address else ""
    return host if host and ":" not in host else address_key(host)


def _refused_line(noted: AtCap, per_address: int, cap_is: tuple[str, str]) -> str:
    where, advice = cap_is
    return (
        f"Connections from {noted.address} refused: it holds {per_address} open in this worker, "
        f"the most one address may{where}; {noted.count} refused since its first one, logged "
        f"again in a minute if it goes on.{advice}"
    )
