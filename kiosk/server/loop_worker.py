"""gunicorn's worker for the web app: Tornado's event loop reads requests, threads run the app.

A slow client must cost a file descriptor, never a thread. gunicorn's threaded worker hands a
connection to a thread once its first byte arrives, and the thread then reads the rest: forty
clients sending a header byte a second, over TLS, held every thread and /healthz waited. So
this worker (gunicorn's Tornado worker, `gunicorn.workers.gtornado`, with the app moved off the
loop) serves with `tornado.httpserver.HTTPServer`:

- the whole request head (the TLS handshake, the request line and the headers) and each wait
  for the next request on a kept-alive connection must arrive within
  ADJUDICATOR_HEADER_TIMEOUT_SECONDS (Tornado's `idle_connection_timeout`, which it applies to
  every head), or the connection is closed; a small body has the same deadline;
- the app runs in a pool of ADJUDICATOR_THREADS threads (`kiosk.server.loop_bridge.ThreadedWSGI`),
  so a journal commit's fsync blocks one thread, never the loop; a kiosk's poll that finds
  nothing new is held on the loop, without a thread, until something changes
  (`kiosk.server.loop_holds`, asking the app's `kiosk_polls` extension what did);
- at most ADJUDICATOR_WORKER_CONNECTIONS connections are open at once, fewer if the file
  descriptors would run out first (`kiosk.server.capped_server`), and room is kept among them
  for the paired kiosks and the director (`kiosk.server.admission`): connections that show no
  credential share half of them, ADJUDICATOR_CONNECTIONS_PER_ADDRESS from one client address on
  the usual deadlines (past that, a second to show a paired kiosk's credential, or closed before
  TLS if nothing came), the oldest idle one closed to make room for a new one; a head's
  credential is checked on the loop against a snapshot of the live ones this worker refreshes
  every few seconds in a thread (`kiosk.server.credentials`); a kiosk holds a few connections
  and one held poll;
- gunicorn stays the master: the workers fork from it after `serve` sealed the lexicons, its
  heartbeat is sent from the loop every second, and its TLS settings make the SSL context.
  On a stop the worker stops accepting, lets the requests in the app finish (at most the
  graceful timeout), then closes every connection;
- `adjudicator hall`'s plain-HTTP port (ADJUDICATOR_HTTP_PORT) is served by a second server on
  the same loop and threads, without TLS, with the same deadlines and room of its own
  (PLAIN_CONNECTIONS in all, PLAIN_PER_ADDRESS from one address, the oldest idle one closed for
  a new tablet), in front of which `kiosk.server.plain_http.TrustOnly` answers the trust page,
  its stylesheet and the CA certificate only.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from gunicorn.sock import ssl_context
from gunicorn.workers.gtornado import TornadoWorker

from adjudicator import settings
from adjudicator.hall.network.connection_caps import Refusals
from kiosk import MAX_REQUEST_BYTES
from kiosk.body_limits import EXTENSION as BODY_LIMITS
from kiosk.server.capped_server import CappedHTTPServer, connection_limit
from kiosk.server.credentials import REFRESH_SECONDS, Credentials
from kiosk.server.loop_bridge import ThreadedWSGI, deadline_server
from kiosk.server.loop_holds import Holds
from kiosk.server.plain_http import TrustOnly

TICK_SECONDS = 0.25  # how often the loop checks for a stop (the heartbeat is every second)
PLAIN_CONNECTIONS = 256  # the plain-HTTP trust page's own room: tablets visit it once each, ...
PLAIN_PER_ADDRESS = 8  # ... with a browser's few connections: one laptop fills 1/32 of it
FAILED_LOGGED_SECONDS = 60.0  # a refresh of the credentials that fails is logged this often


# How long a thread running pure Python keeps the interpreter's lock while another waits for
# it (Python's default is 5 ms). A verdict gives the lock up at each read and write of the
# journal and takes it back a dozen times; beside a thread busy in Python (a director's export,
# a lexicon verified from its page) each of those waits cost up to the whole interval: a
# 1 ms verdict took 46 ms (p50), 121 ms (p99). At 1 ms: 8 ms and 17 ms (RESULTS.md, stop 54).
SWITCH_SECONDS = 0.001


class LoopWorker(TornadoWorker):
    """Tornado's HTTP server on the loop, the app in threads, deadlines on every head."""

    def run(self) -> None:
        _tornado_logs_to(self.log)
        sys.setswitchinterval(SWITCH_SECONDS)
        asyncio.run(self.serve())

    async def serve(self) -> None:
        """Serve the listening sockets until gunicorn stops this worker."""
        seconds = float(settings.get_int("header_timeout_seconds", 1))
        executor = ThreadPoolExecutor(max(1, self.cfg.threads), thread_name_prefix="app")
        per_address = settings.get_int("connections_per_address", 0)
        extensions = getattr(self.wsgi, "extensions", {})
        polls = extensions.get("kiosk_polls")  # kiosk.kiosk_poll
        bridge = ThreadedWSGI(
            self.wsgi,
            executor,
            self.log,
            MAX_REQUEST_BYTES,
            seconds,
            answered=self.handle_request,  # gunicorn's count of requests towards max_requests
            last=self.last_answer,
            holds=Holds(polls.changed, executor) if polls is not None else None,
        )
        refusals = Refusals()  # one file a worker, for the overview
        server = deadline_server(
            bridge,
            ssl_options=ssl_context(self.cfg) if self.cfg.is_ssl else None,
            keep_alive=self.cfg.keepalive > 0,
            server_class=CappedHTTPServer,
            limit=connection_limit(self.cfg.worker_connections, self.cfg.threads),
            busy=lambda: bridge.in_flight > 0,
            per_address=per_address,
            warn=self.log.warning,
            refusals=refusals,
            processes=self.cfg.workers,  # the handshakes a second in all are the workers' to share
        )
        bridge.admission = server.admission
        bridge.credentials = Credentials.of(self.wsgi)
        if BODY_LIMITS in extensions:
            bridge.body_limit = extensions[BODY_LIMITS]
        self.server = server
        secure, plain = self.split_sockets()
        server.listen_on(secure)
        servers = [(server, bridge)]
        if plain:  # `adjudicator hall`'s plain-HTTP port: the trust page and ca.crt only
            trust = ThreadedWSGI(
                TrustOnly(self.wsgi),
                executor,
                self.log,
                MAX_REQUEST_BYTES,
                seconds,
                answered=self.handle_request,
                last=self.last_answer,
            )
            plain_server = deadline_server(
                trust,
                keep_alive=self.cfg.keepalive > 0,
                server_class=CappedHTTPServer,
                limit=PLAIN_CONNECTIONS,
                busy=lambda: trust.in_flight > 0,
                per_address=min(PLAIN_PER_ADDRESS, per_address or PLAIN_PER_ADDRESS),
                warn=self.log.warning,
                refusals=refusals,
                anonymous_most=PLAIN_CONNECTIONS,  # no credential travels on this port
            )
            trust.admission = plain_server.admission
            trust.body_limit = _no_body  # it answers GETs only (anything else is redirected)
            plain_server.listen_on(plain)
            servers.append((plain_server, trust))
        if bridge.credentials is not None:
            asyncio.get_running_loop().create_task(self.refresh(bridge.credentials, executor))
        beat = time.monotonic()
        while self.alive:
            if time.monotonic() - beat >= 1:
                self.watchdog()  # gunicorn's heartbeat; notices a new parent too
                beat = time.monotonic()
            await asyncio.sleep(TICK_SECONDS)
        await asyncio.gather(*(self.drain(*each) for each in servers))
        executor.shutdown(wait=False, cancel_futures=True)

    async def refresh(self, credentials: Credentials, executor: ThreadPoolExecutor) -> None:
        """Refresh the credentials' snapshot every REFRESH_SECONDS, in a thread, while the
        worker runs (a failure is logged once a minute; the last snapshot stands)."""
        loop = asyncio.get_running_loop()
        logged = -FAILED_LOGGED_SECONDS
        while self.alive:
            try:
                await loop.run_in_executor(executor, credentials.refresh)
            except Exception as exc:  # the journal or database unavailable: the app says why
                if time.monotonic() - logged >= FAILED_LOGGED_SECONDS:
                    logged = time.monotonic()
                    self.log.warning(
                        "The kiosks' credentials could not be read for the connections' "
                        "admission (paired kiosks wait with everyone else meanwhile): %s",
                        exc,
                    )
            await asyncio.sleep(REFRESH_SECONDS)

    def last_answer(self) -> bool:
        """Whether the answer being written is this worker's last (gunicorn's max_requests)."""
        return self.nr + 1 >= self.max_requests

    def split_sockets(self) -> tuple[list, list]:
        """The listening sockets served over TLS, and those of the hall's plain-HTTP port
        (ADJUDICATOR_HTTP_PORT, which `adjudicator hall` sets for its workers). Without TLS
        (`serve`) every socket is served as it is, by the app alone."""
        port = settings.get_int("http_port") if self.cfg.is_ssl else 0
        plain = [s for s in self.sockets if port and s.getsockname()[1] == port]
        return [s for s in self.sockets if s not in plain], plain

    async def drain(self, server: CappedHTTPServer, bridge: ThreadedWSGI) -> None:
        """Stop accepting, let the app finish what it is answering, then close every connection."""
        server.stop_listening()
        server.conn_params.no_keep_alive = True  # answers from now on close their connections
        if bridge.holds is not None:
            bridge.holds.release_all()  # each held poll answered now: it holds up no stop
        deadline = time.monotonic() + self.cfg.graceful_timeout
        while bridge.in_flight and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        try:
            await asyncio.wait_for(server.close_all_connections(), timeout=1)
        except TimeoutError:
            pass
        server.refusals.remove()  # the overview forgets what this worker refused


def _no_body(method: str, path: str) -> int:
    return 0


def _tornado_logs_to(log) -> None:
    """Tornado's (and asyncio's) own messages go to gunicorn's error log: their errors, never
    their chatter (a client's malformed head or broken handshake is the client's affair, and
    would flood it)."""
    for name, level in (
        ("tornado.application", logging.ERROR),
        ("tornado.general", logging.ERROR),
        ("tornado.access", logging.CRITICAL),
        ("asyncio", logging.ERROR),
    ):
        logger = logging.getLogger(name)
        logger.setLevel(level)
        logger.handlers = list(log.error_log.handlers)
        logger.propagate = False
