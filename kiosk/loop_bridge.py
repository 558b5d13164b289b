"""The web app behind Tornado's HTTP server: each request read on the event loop, run in a thread.

Tornado's server reads a connection's TLS handshake, request line and headers on its event
loop, with a deadline for the whole head (and for each wait between kept-alive requests), so a
slow client costs a file descriptor, never a thread. `ThreadedWSGI` is what it hands the
request to: a small body (at most `buffer_limit`, the app's own limit for all but the
director's upload) is read whole on the loop too, with its own deadline; then the WSGI app runs
in the thread pool (`tornado.wsgi.WSGIContainer` with an executor). A body declared larger goes
to the app at once, so the app refuses it with its 413 before reading a byte (or, for the
director's upload, reads it through a `BodyPipe`, each read with the deadline). The access log
goes to gunicorn's logger, the same lines as before; headers named with `_` are dropped, as
gunicorn drops them, so `X_Forwarded_For` cannot pose as `X-Forwarded-For`.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from io import BytesIO
from types import SimpleNamespace
from typing import Any

from tornado import httputil
from tornado.escape import url_unescape
from tornado.httpserver import HTTPServer
from tornado.wsgi import WSGIContainer, to_wsgi_str

from kiosk.loop_requests import SERVER_SOFTWARE, RequestReader, answer_plainly

UNLIMITED = 1 << 62  # bodies are limited by the app's own checks (its 413s), not Tornado's 400
FAILED = (  # the app itself raised (Flask answers its own errors): no traceback to the client
    b"The server could not answer this request. Nothing was shown; try again, and tell the "
    b"director if it keeps happening.\n"
)


class ThreadedWSGI(WSGIContainer, httputil.HTTPServerConnectionDelegate):
    """A WSGI app run in `executor`'s threads, its requests read first on Tornado's loop."""

    def __init__(self, app, executor, log, buffer_limit: int, read_seconds: float):
        super().__init__(_with_server_header(app), executor=executor)
        self.log = log  # gunicorn's: the access log and the error log
        self.buffer_limit = buffer_limit
        self.read_seconds = read_seconds
        self.in_flight = 0  # requests the app is answering (a graceful stop waits for them)

    def start_request(self, server_conn, request_conn) -> httputil.HTTPMessageDelegate:
        """Tornado's hook for each request on a connection."""
        return RequestReader(self, request_conn)

    async def handle_request(self, request: httputil.HTTPServerRequest) -> None:
        """Run the app in a thread and write its answer; never leave the client hanging."""
        self.in_flight += 1
        try:
            await super().handle_request(request)
        except Exception:
            self.log.exception("The web app failed on %s %s", request.method, request.path)
            answer_plainly(request.connection, 503, "Service Unavailable", FAILED)
        finally:
            self.in_flight -= 1

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
        """The access log line, by gunicorn's logger (so `kiosk.access_log` redacts it)."""
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


def _with_server_header(app):
    """`app`, naming this server in a `Server` header (not Tornado's name and version)."""

    def named(environ, start_response):
        def start(status, headers, exc_info=None):
            if not any(name.lower() == "server" for name, _ in headers):
                headers.append(("Server", SERVER_SOFTWARE))
            return start_response(status, headers, exc_info)

        return app(environ, start)

    return named
