"""One request as Tornado's loop reads it, before (and while) a thread runs the app.

`RequestReader` is Tornado's delegate for one request. Its head has arrived (Tornado timed
it). A body of at most `buffer_limit` bytes is read whole on the loop (Tornado times it too),
then the app runs. A body declared larger goes to the app at once through a `BodyPipe`: the
app may refuse it before reading a byte (a 413, or the sign-in page for an upload by anyone
but the director). An answer given before the body has all arrived is written at once, and
the rest of the body is read and thrown away, each wait at most the read deadline and all of
it within LINGER_SECONDS, before the connection goes on (or closes): a browser still sending
its upload then shows the answer, not a reset connection. A chunked body (browsers send none)
is read on the loop until it passes `buffer_limit`, then handed over the same way; all of it
must arrive within the one deadline Tornado set when it began.
"""

from __future__ import annotations

import json
import time
from urllib.parse import unquote

from gunicorn.util import split_request_uri
from tornado import httputil
from tornado.ioloop import IOLoop

from kiosk.errors import answers_in_json, error_body
from kiosk.server.body_pipe import BodyPipe

SERVER_SOFTWARE = "adjudicator"
LINGER_SECONDS = 60.0  # an early answer's unread body is drained at most this long
BAD_HOST = b"Bad request: send one valid Host header (the address you opened).\n"
BAD_TARGET = b"Bad request: the address in the request line could not be read.\n"


class RequestReader(httputil.HTTPMessageDelegate):
    """Tornado's delegate for one request: its head, then its body (buffered, or piped)."""

    def __init__(self, bridge, connection):  # bridge: kiosk.server.loop_bridge.ThreadedWSGI
        self.bridge, self.connection = bridge, connection
        self.request: httputil.HTTPServerRequest | None = None
        self.chunks = bytearray()
        self.pipe: BodyPipe | None = None
        self.body_done = False
        self.pending_finish = None  # the app's answer is written; this ends it after the body
        self.linger_until = 0.0
        self.timer = None

    def headers_received(self, start_line, headers) -> None:
        try:
            self.request = httputil.HTTPServerRequest(
                connection=self.connection, start_line=start_line, headers=headers
            )
        except httputil.HTTPInputError:  # no Host header, or a malformed one
            answer_plainly(self.connection, 400, "Bad Request", BAD_HOST, _path(start_line))
            return
        try:  # as gunicorn took them: also from an absolute-form target (`GET http://h/p`)
            target = split_request_uri(self.request.uri)
        except ValueError:
            self.request = None
            answer_plainly(self.connection, 400, "Bad Request", BAD_TARGET)
            return
        self.request.path, self.request.query = target.path, target.query
        declared = headers.get("Content-Length", "").strip()
        if (
            declared.isdigit()
            and int(declared) > self.bridge.buffer_limit
            and "Transfer-Encoding" not in headers  # both: Tornado refuses it with a 400
        ):
            self.connection.set_body_timeout(None)  # the pipe times each read instead
            self._hand_over()

    def data_received(self, chunk: bytes):
        if self.request is None:  # refused at its head: the connection closes after the 400
            return None
        if self.pipe is not None:
            if self.pending_finish is not None:
                self._rearm()  # draining after an early answer: it keeps coming
            return self.pipe.feed(chunk)
        self.chunks += chunk
        if len(self.chunks) > self.bridge.buffer_limit:  # a chunked body past the small limit
            self._hand_over()  # the app refuses it (413), or the director's upload reads on
        return None

    def finish(self) -> None:
        self.body_done = True
        if self.request is None:
            return
        if self.pipe is None:
            self.request.body = bytes(self.chunks)
            self.chunks = bytearray()
            self._run()
            return
        self.pipe.end()
        if self.pending_finish is not None:
            self._end_answer()

    def on_connection_close(self) -> None:
        if self.pipe is not None:
            self.pipe.break_off()
        self._cancel_timer()
        self.chunks = bytearray()

    def answered(self, finish) -> None:
        """The app's answer is written; `finish` ends it, now or once the body is read."""
        if self.body_done:
            finish()
            return
        self.pending_finish = finish
        self.pipe.break_off()  # the app reads no more: what still comes is thrown away
        self.linger_until = time.monotonic() + LINGER_SECONDS
        self._rearm()

    def _hand_over(self) -> None:
        self.pipe = BodyPipe(self.bridge.read_seconds, IOLoop.current().add_callback)
        self.pipe.feed(bytes(self.chunks))
        self.chunks = bytearray()
        self.request.body_pipe = self.pipe
        self.request.connection = _FinishAfterBody(self.connection, self)
        self._run()

    def _run(self) -> None:
        IOLoop.current().spawn_callback(self.bridge.handle_request, self.request)

    def _end_answer(self) -> None:
        self._cancel_timer()
        finish, self.pending_finish = self.pending_finish, None
        finish()

    def _rearm(self) -> None:
        self._cancel_timer()
        left = min(self.bridge.read_seconds, self.linger_until - time.monotonic())
        self.timer = IOLoop.current().call_later(max(0.0, left), self._give_up)

    def _give_up(self) -> None:
        """The rest of the body stalled, or took too long: end the answer and close."""
        self.timer = None
        if self.pending_finish is not None:
            self._end_answer()  # with the body unread, Tornado closes the connection
        self.connection.close()

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            IOLoop.current().remove_timeout(self.timer)
            self.timer = None


def _path(start_line) -> str:
    """The path of a request's target (as `headers_received` splits it), or "" if unreadable."""
    try:
        return split_request_uri(start_line.path).path
    except ValueError:
        return ""


class _FinishAfterBody:
    """A request's connection, whose `finish` waits for the rest of a piped body."""

    def __init__(self, connection, reader: RequestReader):
        self.connection, self._reader = connection, reader  # Tornado's HTTP1Connection

    def finish(self) -> None:
        self._reader.answered(self.connection.finish)

    def __getattr__(self, name):
        return getattr(self.connection, name)


def answer_plainly(connection, status: int, reason: str, text: bytes, path: str = "") -> None:
    """An answer written by the server itself (no traceback, no app): plain text, or under
    /api/ and at /healthz the JSON error the app gives there (`kiosk.errors`)."""
    content_type = "text/plain; charset=utf-8"
    if answers_in_json(unquote(path)):
        error = error_body(status, text.decode("utf-8").strip())
        text, content_type = json.dumps(error).encode() + b"\n", "application/json"
    headers = httputil.HTTPHeaders(
        {
            "Content-Type": content_type,
            "Content-Length": str(len(text)),
            "Server": SERVER_SOFTWARE,
            "Date": httputil.format_timestamp(time.time()),
        }
    )
    try:
        connection.write_headers(
            httputil.ResponseStartLine("HTTP/1.1", status, reason), headers, text
        )
        connection.finish()
    except Exception:  # already answered, or the client is gone
        connection.close()
