"""The web app behind Tornado's HTTP server: each request read on the event loop, run in a thread.

Tornado's server reads a connection's TLS handshake, request line and headers on its event
loop, with a deadline for the whole head (and for each wait between kept-alive requests), so a
slow client costs a file descriptor, never a thread. `ThreadedWSGI` is what it hands each
request to (`kiosk.server.loop_requests` reads its body), to run the WSGI app in the thread pool and
write the answer back: a short answer in one piece, a long one (a journal backup) in pieces,
each read in a thread and written before the next, so it is never all in memory. (Tornado's
own `WSGIContainer` collects a whole answer first, with three trips to the pool for even a
short one.) An answer the app asks to hold (a poll that finds nothing new) waits on the loop,
holding no thread, until what it waits on changes or its time is up (`kiosk.server.loop_holds`).
The environ is what gunicorn gave the app, and the access log line goes through gunicorn's
logger as before; headers named with `_` are dropped, as gunicorn drops them, so
`X_Forwarded_For` cannot pose as `X-Forwarded-For`.
"""

from __future__ import annotations

import sys
import time
from datetime import timedelta
from io import BytesIO
from types import SimpleNamespace
from typing import Any

from tornado import gen, httputil, iostream
from tornado.escape import url_unescape
from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop
from tornado.wsgi import to_wsgi_str

from adjudicator.wording import N_, Phrase
from kiosk.server.loop_holds import CAN_HOLD, Hold, Holds, holder_of, take_hold
from kiosk.server.loop_requests import SERVER_SOFTWARE, RequestReader, answer_plainly, asked

FIRST_BYTES = 1 << 16  # an answer this long is written in one piece; a longer one in pieces
SECOND_POLL_SECONDS = 1.0  # a kiosk's second poll, while its first is held, waits this long
UNLIMITED = 1 << 62  # bodies are limited by the app's own checks (its 413s), not Tornado's 400
FAILED = N_(  # the app itself raised (Flask answers its own errors): no traceback to the client
    "The server could not answer this request. Nothing was shown; try again, and tell the "
    "director if it keeps happening."
)


class ThreadedWSGI(httputil.HTTPServerConnectionDelegate):
    """A WSGI app run in `executor`'s threads, its requests read first on Tornado's loop."""

    def __init__(
        self,
        app,
        executor,
        log,
        buffer_limit: int,
        read_seconds: float,
        answered=lambda: None,
        holds: Holds | None = None,
        last=lambda: False,
    ):
        self.app, self.executor = app, executor
        self.log = log  # gunicorn's: the access log and the error log
        self.answered = answered  # told of each request answered (gunicorn's max_requests)
        self.last = last  # whether the next answer is the worker's last: it closes its connection
        self.buffer_limit = buffer_limit
        self.read_seconds = read_seconds
        self.in_flight = 0  # requests the app is answering or holding (a stop waits for them)
        self.holds = holds  # polls held on the loop (kiosk.server.loop_holds); None: none are
        # set by the worker (kiosk.server.loop_worker): whom its server admits, whose
        # credentials a head shows, and each page's body limit (None: the app decides)
        self.admission = None  # kiosk.server.admission.Admission
        self.credentials = None  # kiosk.server.credentials.Credentials
        self.body_limit = _the_apps_own

    def start_request(self, server_conn, request_conn) -> httputil.HTTPMessageDelegate:
        """Tornado's hook for each request on a connection."""
        return RequestReader(self, request_conn)

    async def handle_request(self, request: httputil.HTTPServerRequest) -> None:
        """Run the app in a thread and write its answer; never leave the client hanging."""
        self.in_flight += 1
        stream = request.connection.stream
        if self.admission is not None:
            self.admission.busy(stream, 1)  # never closed to make room meanwhile
        try:
            status = await self._answer(request)
        except Exception:  # before a byte of the answer was written (else _answer closed it)
            self.log.exception("The web app failed on %s %s", request.method, request.path)
            answer_plainly(request.connection, 503, "Service Unavailable", Phrase(FAILED),
                           request.path, False, asked(request))  # fmt: skip
            status = 503
        finally:
            self.in_flight -= 1
            if self.admission is not None:
                self.admission.busy(stream, -1)
        self._log(status, request)
        self.answered()

    async def _answer(self, request: httputil.HTTPServerRequest) -> int:
        """The app's answer, written as it comes: in one piece when it is short (the usual),
        else in pieces of FIRST_BYTES, each read in a thread and written before the next."""
        loop = IOLoop.current()
        answer = await self._app_answer(request)
        code, _, reason = answer.status.partition(" ")
        headers = httputil.HTTPHeaders()
        for name, value in answer.headers:
            headers.add(name, value)
        if "Server" not in headers:
            headers["Server"] = SERVER_SOFTWARE
        if "Date" not in headers:  # RFC 9110 6.6.1: an origin server with a clock sends it
            headers["Date"] = _http_date()
        # RFC 9110: no body to a HEAD, nor in a 1xx, 204 or 304, whatever the app yields; a
        # HEAD keeps the length the app gave (that of the GET), or none, never a made-up 0
        bodiless = request.method == "HEAD" or int(code) in (204, 304) or int(code) < 200
        body = _nothing if bodiless else b"".join
        if answer.ended and "Content-Length" not in headers and not bodiless:
            headers["Content-Length"] = str(answer.size)
        if request.version != "HTTP/1.1" and "Content-Length" not in headers and not bodiless:
            _close_after(request, headers)  # HTTP/1.0 has no chunks: the close ends it
        elif self.last():  # the worker stops after this answer: no request waits on its
            _close_after(request, headers)  # kept-alive connection for a worker gone
        connection = request.connection
        first = httputil.ResponseStartLine("HTTP/1.1", int(code), reason)
        written = None
        try:
            written = connection.write_headers(first, headers, body(answer.chunks))
            while not answer.ended:  # a long answer (a journal backup): never all in memory
                await written
                await loop.run_in_executor(self.executor, answer.read_on)
                written = connection.write(body(answer.chunks))
            connection.finish()
        except Exception as exc:
            await loop.run_in_executor(self.executor, answer.close)
            if written is None:  # nothing went out: handle_request answers a plain 503
                raise
            # its head went out: the client, gone, or the app, failing half-way or sending
            # less than its own Content-Length, cuts it short; the status sent is the one logged
            if isinstance(exc, httputil.HTTPOutputError):
                self.log.error("The web app's answer to %s was cut short: %s", request.path, exc)
            elif not isinstance(exc, iostream.StreamClosedError):
                self.log.exception("The web app failed while answering %s", request.path)
            connection.close()
        return int(code)

    async def _app_answer(self, request: httputil.HTTPServerRequest) -> Answer:
        """The app's answer, run in a thread; one it asks to hold (a poll finding nothing new)
        waits on the loop until what it waits on changes (the app is asked again) or its time
        is up (it is written as it is)."""
        loop = IOLoop.current()
        answer = await loop.run_in_executor(
            self.executor, Answer.start, self.app, self.environ(request)
        )
        answer.headers, hold = take_hold(answer.headers)
        while hold is not None and self.holds is not None and await self._held(request, hold):
            await loop.run_in_executor(self.executor, answer.close)
            answer = await loop.run_in_executor(
                self.executor, Answer.start, self.app, self.environ(request)
            )
            answer.headers, again = take_hold(answer.headers)
            hold = again and Hold(hold.until, again.key)  # held no longer than first asked
        return answer

    async def _held(self, request: httputil.HTTPServerRequest, hold: Hold) -> bool:
        """Hold the poll (`Holds.wait`), unless its kiosk has another held in this worker:
        then it is answered after SECOND_POLL_SECONDS, not held (kiosk.server.admission: one
        held poll a kiosk), so a page or a stolen token asking again at once spins slowly. A held
        poll whose connection closes (a kiosk page reloaded) is its kiosk's no longer."""
        if self.admission is None:
            return await self.holds.wait(hold)
        holder = holder_of(hold)
        if not self.admission.hold_begins(holder, request.connection.stream):
            await gen.sleep(SECOND_POLL_SECONDS)
            return False
        ended = []

        def release() -> None:
            if not ended:
                ended.append(True)
                self.admission.hold_ends(holder)

        request.connection.set_close_callback(release)
        try:
            return await self.holds.wait(hold)
        finally:
            release()

    def environ(self, request: httputil.HTTPServerRequest) -> dict[str, Any]:
        """The WSGI environ, as gunicorn made it (the peer's address, the scheme, RAW_URI)."""
        host, port = httputil.split_host_and_port(request.host.lower())
        pipe = getattr(request, "body_pipe", None)
        environ: dict[str, Any] = {
            "REQUEST_METHOD": request.method,
            "SCRIPT_NAME": "",
            "PATH_INFO": to_wsgi_str(url_unescape(request.path, encoding=None, plus=False)),
            "QUERY_STRING": request.query,
            "RAW_URI": request.uri,
            "REMOTE_ADDR": request.remote_ip,
            "SERVER_NAME": host,
            "SERVER_PORT": str(port or (443 if request.protocol == "https" else 80)),
            "SERVER_PROTOCOL": request.version,
            "SERVER_SOFTWARE": SERVER_SOFTWARE,
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": request.protocol,
            "wsgi.input": pipe if pipe is not None else BytesIO(request.body),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
        }
        if request.protocol == "https":
            environ["HTTPS"] = "on"
        if self.holds is not None and not self.holds.stopping:
            environ[CAN_HOLD] = True  # the app may ask to hold its answer (loop_holds)
        for name, value in request.headers.get_all():
            if "_" in name:
                continue
            key = name.upper().replace("-", "_")
            if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                key = "HTTP_" + key
            if key in environ:
                value = environ[key] + ("; " if key == "HTTP_COOKIE" else ",") + value
            environ[key] = value
        if pipe is None:  # the body is all here (a chunked one, de-chunked): say its length
            environ.pop("HTTP_TRANSFER_ENCODING", None)
            environ["CONTENT_LENGTH"] = str(len(request.body))
        elif "CONTENT_LENGTH" not in environ:  # chunked, still coming: the pipe ends it
            environ["wsgi.input_terminated"] = True
        return environ

    def _log(self, status_code: int, request: httputil.HTTPServerRequest) -> None:
        """The access log line, by gunicorn's logger (so `kiosk.server.access_log` redacts it)."""
        environ = {
            "REMOTE_ADDR": request.remote_ip,
            "REQUEST_METHOD": request.method,
            "RAW_URI": request.uri,
            "PATH_INFO": request.path,
            "QUERY_STRING": request.query,
            "SERVER_PROTOCOL": request.version,
        }
        answer = SimpleNamespace(status=status_code, headers=[], sent=None)
        took = timedelta(seconds=request.request_time())
        self.log.access(answer, request, environ, took)


_DATE = [0, ""]  # the second, and the Date header of that second (made once a second)


def _http_date() -> str:
    """Now, as an answer's Date header says it (RFC 9110 5.6.7), made once a second."""
    now = int(time.time())
    if _DATE[0] != now:
        _DATE[:] = [now, httputil.format_timestamp(now)]
    return _DATE[1]


def _the_apps_own(method: str, path: str) -> None:
    """Without the app's body limits: the app decides, as it reads."""
    return None


def _nothing(chunks: list[bytes]) -> bytes:
    """No body, whatever the app yielded (HEAD, 1xx, 204, 304)."""
    return b""


def _close_after(request: httputil.HTTPServerRequest, headers: httputil.HTTPHeaders) -> None:
    """Close the connection once this answer is written, even if an HTTP/1.0 client asked to
    keep it alive: an answer of unknown length ends only when its connection closes. Tornado
    decides keep-alive on the request's head, before the answer is known, so this changes its
    decision: the request's own headers (which Tornado reads to answer `Keep-Alive`), and the
    connection's flag to close when finished."""
    request.headers["Connection"] = headers["Connection"] = "close"
    # a piped body's request has its connection wrapped (`loop_requests._FinishAfterBody`)
    connection = getattr(request.connection, "connection", request.connection)
    connection._disconnect_on_finish = True  # Tornado's HTTP1Connection: no public setter


def deadline_server(
    bridge: ThreadedWSGI,
    ssl_options=None,
    keep_alive: bool = True,
    server_class=HTTPServer,
    **more,
) -> HTTPServer:
    """Tornado's HTTP server for `bridge`, with its deadline (`read_seconds`) on each whole
    head, TLS handshake included, on each wait between kept-alive requests, and on a small
    body; `more` goes to `server_class`."""
    return server_class(
        bridge,
        ssl_options=ssl_options,
        idle_connection_timeout=bridge.read_seconds,  # Tornado's deadline for every head
        body_timeout=bridge.read_seconds,
        max_body_size=UNLIMITED,
        no_keep_alive=not keep_alive,
        **more,
    )


class Answer:
    """The app's answer as a thread reads it: its status and headers, the pieces read so far."""

    def __init__(self):
        self.result = None
        self.pieces = iter(())
        self.status, self.headers = "", []
        self.written: list[bytes] = []  # by WSGI's old write(), if an app uses it
        self.chunks: list[bytes] = []
        self.size = 0
        self.ended = False
        self.sent = False

    @classmethod
    def start(cls, app, environ) -> Answer:
        """In a thread: call the app and read the first FIRST_BYTES of its answer."""
        answer = cls()
        answer.result = app(environ, answer.start_response)
        try:
            answer.pieces = iter(answer.result)
            answer.read_on()  # an app may start its answer only once it is iterated
            if not answer.status:
                raise RuntimeError("the app gave no status")
        except BaseException:
            answer.close()
            raise
        answer.sent = True
        return answer

    def start_response(self, status, headers, exc_info=None):
        """WSGI's start_response (the headers are sent only once `start` returns)."""
        if exc_info and self.sent:
            raise exc_info[1].with_traceback(exc_info[2])
        self.status, self.headers = status, headers
        return self.written.append

    def read_on(self) -> None:
        """In a thread: the next pieces, up to FIRST_BYTES; at the end, close the answer."""
        self.chunks, self.written, size = self.written, [], sum(map(len, self.written))
        for chunk in self.pieces:
            if chunk:
                self.chunks.append(chunk)
                size += len(chunk)
            if size >= FIRST_BYTES:
                break
        else:
            self.ended = True
            self.close()
        self.size += size

    def close(self) -> None:
        """In a thread: the WSGI answer's close() (once read, or cut short)."""
        close, self.result = getattr(self.result, "close", None), None
        if close is not None:
            close()
