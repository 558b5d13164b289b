"""Tornado's HTTP server, with at most so many connections open at once, and room kept for
the paired kiosks.

A laptop can open connections faster than their deadlines close them. Past the process's file
descriptor limit, every accept fails at once and is tried again at once: a loop spinning and
an error log flooding. So the worker raises its soft limit to the hard one, and this server
holds at most `limit` connections (parked ones and TLS handshakes included), leaving the rest
in the kernel's backlog while none can be closed to make room. It takes one connection each
time the listening socket wakes it, as gunicorn's own workers do, so the workers sharing that
socket share a burst of connections out among them.

Whom it holds them for is kiosk/server/admission.py's to say: a connection is parked until its
first byte arrives, anonymous connections share a bounded part of the worker (the oldest idle
one of the address holding the most closed to make room), one address's past
`per_address` have a second to show a paired kiosk's credential, and a credential's are
counted by it; a TLS connection's handshake begins within a budget of so many a second, by
address and in all (adjudicator/hall/network/handshake_budget.py), and one from an address with
enough waiting for theirs is closed as it is accepted. Connections closed to make room take no
turn: the accepting goes on in the same wake-up (a close costs microseconds, so a flood moves
through the backlog and a kiosk's connection behind it is reached at once). What was refused
or closed is logged once a minute and shared with the director's overview and /healthz
(adjudicator/hall/network/connection_caps.py).
"""

from __future__ import annotations

import resource
import socket
import time
from collections.abc import Callable
from functools import partial

from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop

from adjudicator.hall.network.connection_caps import Refusals, address_key
from adjudicator.hall.network.handshake_budget import HandshakeBudget
from kiosk.server.admission import Admission, Entry

RESERVED_FILES = 100  # the journal and its mirror, lexicons, logs, pipes: besides the threads'
BUSY_DEFER_SECONDS = 0.002  # a busy worker lets an idle one take a new connection first
FILES_PER_THREAD = 8  # a journal connection per thread, with its -wal and -shm, twice if mirrored
FLOOD_SECONDS = 1.0  # closed one to make room this recently: a flood is in the backlog
CLOSED_PER_WAKE = 32  # accepted and closed in one wake-up before the loop turns to the others
BACKSTOP = 4  # Tornado's own deadline on a head, times the admission's: it should never fire


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
    """An HTTPServer that accepts from `listen_on`'s sockets while it has room (`limit`
    connections), admitting each as `admission` says (kiosk.server.admission)."""

    def initialize(
        self,
        *args,
        limit: int = 1000,
        busy: Callable[[], bool] = lambda: False,
        per_address: int = 0,
        warn: Callable[[str], None] = lambda line: None,
        refusals: Refusals | None = None,
        anonymous_most: int | None = None,
        processes: int = 1,
        **kwargs,
    ):
        super().initialize(*args, **kwargs)
        self.busy = busy
        self.warn = warn  # the worker's log
        self.refusals = refusals or Refusals()  # one a worker: its servers share it
        head_seconds = self.conn_params.header_timeout
        self.admission = Admission(
            limit,
            per_address,
            head_seconds,
            self.refusals,
            anonymous_most=anonymous_most,
            on_note=self._noted,
            budget=self._budget(per_address, processes),
        )
        # the admission keeps each head's deadline and each body's (and tells slow from idle);
        # Tornado's own are a backstop
        self.conn_params.header_timeout = head_seconds * BACKSTOP
        self.conn_params.body_timeout = None
        self.write_due = False
        self.log_due = False
        self.deferred = False
        self.listening: list[socket.socket] = []
        self.removers: list[Callable[[], None]] = []
        self._handing: Entry | None = None

    def _budget(self, per_address: int, processes: int) -> HandshakeBudget | None:
        """The TLS handshakes this server, one of `processes`, begins a second (none without
        TLS: a plain connection costs little before its head); by address unless addresses are
        not capped."""
        if not self.ssl_options:
            return None
        return HandshakeBudget.share(processes, by_address=bool(per_address))

    @property
    def open(self) -> int:
        """The connections open now: parked, in their TLS handshake, or serving."""
        return self.admission.open

    @property
    def limit(self) -> int:
        return self.admission.limit

    def listen_on(self, sockets: list[socket.socket]) -> None:
        """Accept connections from these (already listening) sockets."""
        self.listening = list(sockets)
        self._accept()

    def stop_listening(self) -> None:
        """Accept no more connections (the sockets stay open: they are gunicorn's)."""
        self.listening = []
        self._pause()
        self.admission.close_all_parked()

    def handle_stream(self, stream, address) -> None:
        entry, self._handing = self._handing, None
        if entry is not None:
            self.admission.handed_over(entry, stream)
        super().handle_stream(stream, address)

    def on_close(self, server_conn) -> None:
        super().on_close(server_conn)
        self.admission.forget(server_conn.stream)  # HTTP1ServerConnection's stream
        self._resume()

    def _hand_over(self, entry: Entry) -> None:
        """A parked connection's first byte came: Tornado takes it (TLS, then its head)."""
        self._handing = entry
        try:
            self._handle_connection(entry.sock, entry.peer)
        finally:
            self._handing = None

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
        leave the other's core idle). A connection accepted on probation, or for which
        another was closed to make room, takes no turn: the next is accepted at once; and
        while connections are being closed to make room (a flood in the backlog) no wake-up
        waits, or the flood would fill the backlog meanwhile and keep the kiosks' connections
        behind it."""
        admission = self.admission
        flooded = time.monotonic() - admission.last_closed < FLOOD_SECONDS
        if (self.open or self.busy()) and not self.deferred and not flooded:
            self.deferred = True
            self._pause()
            IOLoop.current().call_later(BUSY_DEFER_SECONDS, self._resume)
            return
        self.deferred = False
        for _ in range(CLOSED_PER_WAKE):
            if admission.full():
                self._pause()
                return
            try:
                connection, address = sock.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return  # another worker took it, or the client gave up
            except OSError:  # out of files after all: wait a second rather than spin
                self._pause()
                IOLoop.current().call_later(1.0, self._resume)
                return
            key = _key(address)
            if admission.turned_away(key):  # its address has enough waiting for a handshake
                admission.refuse(connection, key)
                continue
            connection.setblocking(False)
            closed_before = admission.last_closed
            entry = admission.admit(connection, address, key)
            admission.park(entry, self._hand_over)
            if admission.full():
                self._pause()
            if not entry.probation and admission.last_closed == closed_before:
                return

    def _noted(self) -> None:
        """Something was refused or closed: the worker's file is written (at most every few
        seconds) and the log told (once a minute), in time."""
        loop = IOLoop.current()
        if not self.write_due:
            self.write_due = True
            loop.call_later(self.refusals.next_write(), self._write_refusals)
        if not self.log_due:
            self.log_due = True
            loop.call_later(self.refusals.next_log(), self._log_refusals)

    def _write_refusals(self) -> None:
        self.write_due = False
        try:
            self.refusals.write()
        except OSError as exc:
            self.warn(f"The connections refused could not be shared with the overview: {exc}")

    def _log_refusals(self) -> None:
        self.log_due = False
        line = self.refusals.log_line()
        if line is not None:
            self.warn(line)
        elif self.refusals.unlogged:  # woken a moment early: the line waits a little more
            self.log_due = True
            IOLoop.current().call_later(self.refusals.next_log() + 0.1, self._log_refusals)

    def _resume(self) -> None:
        if not self.removers and self.listening and not self.admission.full():
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
