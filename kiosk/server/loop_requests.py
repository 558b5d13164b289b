"""One request as Tornado's loop reads it, before (and while) a thread runs the app.

`RequestReader` is Tornado's delegate for one request. Its head has arrived in time (Tornado
read it, the admission timed it: kiosk/server/admission.py); the head shows who sent it (a
paired kiosk's credential, a staff session, or nobody: kiosk/server/credentials.py), and a
request that may not go on is refused here, at its head: on a connection past its address's
cap showing no credential (503, and the connection closes), or with a credential already on as
many connections as a kiosk opens (429; the connection counts as one showing none).
Then its body, bounded by what the page it was sent to can use (the app's `body_limits`):

- declared larger than that: answered 413 from the head, the connection closed, not a byte of
  the body read;
- a page that takes no body (a GET), or one whose limit the app keeps (the director's upload),
  or a body past `buffer_limit`: it goes to the app at once through a `BodyPipe`; the app may
  answer before reading a byte (the page, a 404, a 413, the sign-in page);
- else read whole on the loop, then the app runs.

A body must arrive at MIN_BODY_BYTES_PER_SECOND after the deadline of a head (all of it by
then, or the connection closes), and each read of a piped body within the deadline too. An
answer given before the body has all arrived closes its connection as soon as it is written:
the rest of the body is never read (only a paired kiosk's or a staff member's connection has
the rest read and thrown away, within that same deadline, so the director's browser still
sending an upload over the limit shows the 413). A chunked body (browsers send none) is read
on the loop up to its page's limit (then refused with a 413) or `buffer_limit` (then handed
over the same way).
"""

from __future__ import annotations

import json
import time
from urllib.parse import unquote

from gunicorn.util import split_request_uri
from tornado import httputil
from tornado.ioloop import IOLoop

from adjudicator.wording import N_, Phrase
from kiosk.errors import answers_in_json, error_body
from kiosk.i18n import said_in
from kiosk.server.admission import GO, OVER_QUOTA
from kiosk.server.body_pipe import BodyPipe

SERVER_SOFTWARE = "adjudicator"
OVER_QUOTA_SECONDS = 5.0  # a kiosk's credential on one connection too many waits this long
MIN_BODY_BYTES_PER_SECOND = 16 * 1024  # past a head's deadline, a body arrives at least this fast
BAD_HOST = b"Bad request: send one valid Host header (the address you opened).\n"
BAD_TARGET = b"Bad request: the address in the request line could not be read.\n"
# What a kiosk may meet here is also said in its language (`shown_error`, as the app says its
# own errors: the page sends its language as Accept-Language).
AT_CAP = N_(
    "This network address holds as many connections as one address may: try again in a "
    "moment. A paired kiosk is let in; if many tablets share this address, tell the director."
)
OVER_QUOTA_TEXT = N_(
    "This kiosk has as many connections open as a kiosk may: close its other pages or "
    "devices, then try again."
)
TOO_LARGE = N_("The request is too large: send at most {kb} KB.")


class RequestReader(httputil.HTTPMessageDelegate):
    """Tornado's delegate for one request: its head, then its body (buffered, or piped)."""

    def __init__(self, bridge, connection):  # bridge: kiosk.server.loop_bridge.ThreadedWSGI
        self.bridge, self.connection = bridge, connection
        self.request: httputil.HTTPServerRequest | None = None
        self.chunks = bytearray()
        self.pipe: BodyPipe | None = None
        self.body_done = False
        self.limit: int | None = None  # the page's body limit (0: none; None: the app's)
        self.pending_finish = None  # a known connection's early answer, ended once its body came
        self.stream = connection.stream
        if bridge.admission is not None:
            bridge.admission.waiting(self.stream)  # the next head's deadline

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
        if not self._admitted(headers):
            return
        declared = headers.get("Content-Length", "").strip()
        chunked = "Transfer-Encoding" in headers
        if chunked and declared:
            return  # both: Tornado refuses it with a 400
        size = int(declared) if declared.isdigit() else 0
        if not chunked and not size:
            return  # no body: the app runs once Tornado calls finish
        self.limit = limit = self.bridge.body_limit(self.request.method, self.request.path)
        if limit and size > limit:
            self._refuse(413, "Payload Too Large", Phrase.of(TOO_LARGE, kb=limit // 1024))
            return
        if limit == 0 or size > self.bridge.buffer_limit:
            self._hand_over()  # read as it comes, or not at all (the app answers first)
        self._body_due(size or max(limit or 0, self.bridge.buffer_limit))

    def data_received(self, chunk: bytes):
        if self.request is None:  # refused at its head: the connection closes after the answer
            return None
        if self.pipe is not None:
            return self.pipe.feed(chunk)
        self.chunks += chunk
        if self.limit and len(self.chunks) > self.limit:  # a chunked body past its page's limit
            self._refuse(413, "Payload Too Large", Phrase.of(TOO_LARGE, kb=self.limit // 1024))
        elif len(self.chunks) > self.bridge.buffer_limit:  # a chunked body past the small limit
            self._hand_over()  # the director's upload reads on
        return None

    def finish(self) -> None:
        self.body_done = True
        admission = self.bridge.admission
        if admission is not None:
            admission.body_done(self.stream)
        if self.request is None:
            return
        if self.pipe is None:
            self.request.body = bytes(self.chunks)
            self.chunks = bytearray()
            self._run()
            return
        self.pipe.end()
        if self.pending_finish is not None:  # answered early, the rest read and thrown away
            finish, self.pending_finish = self.pending_finish, None
            finish()

    def on_connection_close(self) -> None:
        if self.pipe is not None:
            self.pipe.break_off()
        self.chunks = bytearray()

    def answered(self, finish) -> None:
        """The app's answer is written; `finish` ends it. Before the body has all come, the
        connection closes with it (Tornado closes a connection whose body is unread), unless
        it is a paired kiosk's or a staff member's: then the rest of the body is read and
        thrown away first, within the body's deadline, so a browser still sending (the
        director's upload over the limit) shows the answer rather than a broken connection."""
        if self.body_done:
            finish()
            return
        self.pipe.break_off()  # the app reads no more
        admission = self.bridge.admission
        if admission is not None and admission.credited(self.stream):
            self.pending_finish = finish  # once the body has come (finish, below)
            return
        if admission is not None:
            admission.note_on(self.stream, "answered_early")
        finish()

    def _admitted(self, headers) -> bool:
        """Whether the admission lets this request on (else it is refused, and its
        connection closed)."""
        admission = self.bridge.admission
        if admission is None:
            return True
        credentials = self.bridge.credentials
        verdict = admission.head(
            self.stream, lambda: credentials.who(headers) if credentials is not None else None
        )
        if verdict == GO:
            return True
        if verdict == OVER_QUOTA:  # the connection goes on, as one that shows no credential
            IOLoop.current().call_later(  # a stolen token's loop slows to an ask in 5 s
                OVER_QUOTA_SECONDS,
                answer_plainly,
                self.connection,
                429,
                "Too Many Requests",
                Phrase(OVER_QUOTA_TEXT),
                self.request.path,
                False,
                asked(self.request),
            )
        else:
            answer_plainly(
                self.connection,
                503,
                "Service Unavailable",
                Phrase(AT_CAP),
                self.request.path,
                True,
                asked(self.request),
            )
        self.request = None
        return False

    def _refuse(self, status: int, reason: str, said: Phrase) -> None:
        """A body too large, answered from the head (the app never sees it), noted; the
        connection closes."""
        if self.bridge.admission is not None:
            self.bridge.admission.note_on(self.stream, "too_large")
        request, self.request = self.request, None
        answer_plainly(self.connection, status, reason, said, request.path, True, asked(request))

    def _body_due(self, size: int) -> None:
        """The body's deadline: a head's, and then MIN_BODY_BYTES_PER_SECOND."""
        seconds = self.bridge.read_seconds + size / MIN_BODY_BYTES_PER_SECOND
        if self.bridge.admission is not None:
            self.bridge.admission.body_due(self.stream, seconds)
        else:
            self.connection.set_body_timeout(seconds)

    def _hand_over(self) -> None:
        self.pipe = BodyPipe(self.bridge.read_seconds, IOLoop.current().add_callback)
        self.pipe.feed(bytes(self.chunks))
        self.chunks = bytearray()
        self.request.body_pipe = self.pipe
        self.request.connection = _FinishAfterBody(self.connection, self)
        self._run()

    def _run(self) -> None:
        IOLoop.current().spawn_callback(self.bridge.handle_request, self.request)


def _path(start_line) -> str:
    """The path of a request's target (as `headers_received` splits it), or "" if unreadable."""
    try:
        return split_request_uri(start_line.path).path
    except ValueError:
        return ""


class _FinishAfterBody:
    """A request's connection whose body is piped: its `finish` closes the connection if
    the body has not all come."""

    def __init__(self, connection, reader: RequestReader):
        self.connection, self._reader = connection, reader  # Tornado's HTTP1Connection

    def finish(self) -> None:
        self._reader.answered(self.connection.finish)

    def __getattr__(self, name):
        return getattr(self.connection, name)


def asked(request: httputil.HTTPServerRequest) -> str:
    """The language a request asks for (its Accept-Language, as the app reads it)."""
    return request.headers.get("Accept-Language", "")


def answer_plainly(
    connection,
    status: int,
    reason: str,
    said: bytes | Phrase,
    path: str = "",
    close: bool = False,
    language: str | None = None,
) -> None:
    """An answer written by the server itself (no traceback, no app): plain text, or under
    /api/ and at /healthz the JSON error the app gives there (`kiosk.errors`), with a Phrase
    also said in the `language` asked (Accept-Language) as `shown_error`; with `close`, its
    connection closes once it is written."""
    content_type = "text/plain; charset=utf-8"
    english = said.render(str, None) if isinstance(said, Phrase) else said.decode().strip()
    text = english.encode() + b"\n"
    if answers_in_json(unquote(path)):
        error = error_body(status, english)
        if isinstance(said, Phrase) and language is not None:
            error["shown_error"] = said_in(language, said)
        text, content_type = json.dumps(error).encode() + b"\n", "application/json"
    headers = httputil.HTTPHeaders(
        {
            "Content-Type": content_type,
            "Content-Length": str(len(text)),
            "Server": SERVER_SOFTWARE,
            "Date": httputil.format_timestamp(time.time()),
        }
    )
    if close:
        headers["Connection"] = "close"
        connection._disconnect_on_finish = True  # Tornado's HTTP1Connection: no public setter
    try:
        connection.write_headers(
            httputil.ResponseStartLine("HTTP/1.1", status, reason), headers, text
        )
        connection.finish()
    except Exception:  # already answered, or the client is gone
        connection.close()
