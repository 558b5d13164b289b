"""The bridge between Tornado's server and a WSGI app (kiosk/server/loop_bridge.py), served for
real on a loopback port in this process: the environ the app sees, small bodies read before the app
runs, large ones handed to it at once (refused before they arrive, or read as they come), a
stalled body, an app that raises, a missing Host, and gunicorn's access log line."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from email.utils import parsedate_to_datetime

import pytest
from gunicorn.config import Config
from werkzeug.exceptions import ClientDisconnected, RequestEntityTooLarge
from werkzeug.wrappers import Request, Response

from kiosk.server.access_log import RedactingLogger
from kiosk.server.loop_bridge import ThreadedWSGI, deadline_server

from support.slow_clients import read_answer, wait_for_close

SECONDS = 1.0  # the deadline for heads, small bodies and each read of a large one
SMALL = 1024  # bodies up to this are read whole before the app runs
LIMIT = 256 * 1024  # the app's own limit for the large bodies it reads

seen: list[str] = []  # what the app noticed about a body, or about its answer


def long_answer(path: str):
    """3 MB in 10 KB pieces (as a journal backup streams); "/long-fails" fails half-way."""
    try:
        for n in range(300):
            if n == 150 and path == "/long-fails":
                raise OSError("the disk went away")
            yield bytes([n % 256]) * 10_000
        seen.append("all sent")
    finally:
        seen.append("closed")


def echo(environ, start_response):
    """An app that answers with what it saw: the environ's strings and the body's size."""
    request = Request(environ)
    request.max_content_length = LIMIT
    if request.path in ("/raise", "/api/raise"):
        raise RuntimeError("a bug in the app")
    if request.path.startswith("/long"):
        return Response(long_answer(request.path), mimetype="application/octet-stream")(
            environ, start_response
        )
    if request.path == "/short":  # says 100 bytes, sends 10
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "100")])
        return [b"x" * 10]
    if request.path == "/dated":
        response = Response("dated", headers={"Date": "Sun, 06 Nov 1994 08:49:37 GMT"})
        return response(environ, start_response)
    if request.path == "/refuse":
        response = Response("refused before reading", status=403)
        return response(environ, start_response)
    try:
        body = request.get_data()
    except RequestEntityTooLarge:
        return Response("too large", status=413)(environ, start_response)
    except ClientDisconnected:
        seen.append("disconnected")
        return Response("short body", status=400)(environ, start_response)
    keys = {k: v for k, v in environ.items() if isinstance(v, str)}
    payload = {"environ": keys, "body": len(body)}
    return Response(json.dumps(payload), mimetype="application/json")(environ, start_response)


@pytest.fixture
def served(tmp_path):
    """The echo app behind ThreadedWSGI and deadline_server on a free loopback port."""
    config = Config()
    config.set("accesslog", str(tmp_path / "access.log"))
    config.set("access_log_format", '%(h)s "%(r)s" %(s)s %(M)sms')
    config.set("errorlog", str(tmp_path / "error.log"))
    log = RedactingLogger(config)
    ready = threading.Event()
    state: dict = {}

    async def main() -> None:
        executor = ThreadPoolExecutor(4)
        bridge = ThreadedWSGI(echo, executor, log, SMALL, SECONDS)
        server = deadline_server(bridge)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        sock.setblocking(False)
        server.add_socket(sock)
        state["port"] = sock.getsockname()[1]
        state["stop"] = asyncio.Event()
        state["loop"] = asyncio.get_running_loop()
        ready.set()
        await state["stop"].wait()
        server.stop()
        await server.close_all_connections()
        executor.shutdown(wait=False)

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    assert ready.wait(10)
    seen.clear()
    state["access_log"] = tmp_path / "access.log"
    state["error_log"] = tmp_path / "error.log"
    yield state
    state["loop"].call_soon_threadsafe(state["stop"].set)
    thread.join(10)


def request(port: int, method: str, path: str, body=None, **headers):
    """One request on a new connection; an iterator `body` is sent chunked."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        chunked = not isinstance(body, bytes | None)
        connection.request(method, path, body=body, headers=headers, encode_chunked=chunked)
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def access_lines(served) -> list[str]:
    """The access log's lines, once the line of the last answer is written (just after it)."""
    deadline = time.monotonic() + 5
    while not served["access_log"].read_text() and time.monotonic() < deadline:
        time.sleep(0.02)
    return served["access_log"].read_text().splitlines()


def head_of(sock: socket.socket) -> bytes:
    """An answer's status line and headers, read from `sock` (its body left unread)."""
    data = b""
    while b"\r\n\r\n" not in data and (chunk := sock.recv(4096)):
        data += chunk
    return data.partition(b"\r\n\r\n")[0]


def test_the_app_sees_the_environ_gunicorn_gave_it(served):
    status, headers, body = request(
        served["port"],
        "GET",
        "/a%20b/c?x=1&y=%2F",
        **{"X-Forwarded-For": "10.9.9.9", "X_Forwarded_For": "6.6.6.6", "Cookie": "a=1"},
    )
    assert status == 200 and headers["Server"] == "adjudicator"
    environ = json.loads(body)["environ"]
    assert environ["REMOTE_ADDR"] == "127.0.0.1"
    assert environ["PATH_INFO"] == "/a b/c" and environ["QUERY_STRING"] == "x=1&y=%2F"
    assert environ["RAW_URI"] == "/a%20b/c?x=1&y=%2F"
    assert environ["wsgi.url_scheme"] == "http" and "HTTPS" not in environ
    assert environ["SERVER_NAME"] == "127.0.0.1" and environ["SERVER_PORT"] == str(served["port"])
    assert environ["HTTP_COOKIE"] == "a=1"
    # a header spelt with "_" cannot pose as the one with "-" (gunicorn drops it too)
    assert environ["HTTP_X_FORWARDED_FOR"] == "10.9.9.9"
    lines = access_lines(served)
    assert lines == [f'127.0.0.1 "GET /a%20b/c?x=1&y=%2F HTTP/1.1" 200 {lines[0].split()[-1]}']
    assert lines[0].split()[-1].endswith("ms")


def test_pairing_codes_are_redacted_in_the_access_log(served):
    request(served["port"], "GET", "/pair/SECRETCODE")
    lines = access_lines(served)
    assert len(lines) == 1 and '"GET /pair/<code> HTTP/1.1" 200' in lines[0]
    assert "SECRETCODE" not in served["access_log"].read_text()


def test_a_small_body_chunked_or_not_arrives_whole_with_its_length(served):
    status, _, body = request(served["port"], "POST", "/", b"x" * 500)
    assert status == 200 and json.loads(body)["body"] == 500
    chunks = iter([b"a" * 300, b"b" * 400])
    status, _, body = request(
        served["port"], "POST", "/", chunks, **{"Transfer-Encoding": "chunked"}
    )
    answer = json.loads(body)
    assert status == 200 and answer["body"] == 700
    assert answer["environ"]["CONTENT_LENGTH"] == "700"
    assert "HTTP_TRANSFER_ENCODING" not in answer["environ"]


def test_a_large_body_is_read_by_the_app_as_it_arrives(served):
    body = bytes(range(256)) * 1000  # 256 KB: past SMALL, within the app's LIMIT
    status, _, answer = request(served["port"], "POST", "/", body)
    assert status == 200 and json.loads(answer)["body"] == len(body)
    chunks = iter([b"z" * 700] * 300)  # 210 KB chunked: handed over once past SMALL
    status, _, answer = request(
        served["port"], "POST", "/", chunks, **{"Transfer-Encoding": "chunked"}
    )
    assert status == 200 and json.loads(answer)["body"] == 210_000


def test_a_large_body_refused_before_it_arrives_is_never_read_and_the_client_reads_the_answer(
    served,
):
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        head = b"POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n"
        sock.sendall(head + b"y" * 2000)
        started = time.monotonic()
        # a browser goes on sending its upload: none of it is read, the connection is closed
        with pytest.raises(OSError):
            for _ in range(50):
                sock.sendall(b"y" * 100_000)
                time.sleep(0.01)
        assert time.monotonic() - started < SECONDS
        answer = read_answer(sock)  # written before the close: the client still reads it
        assert answer.startswith(b"HTTP/1.1 403") and answer.endswith(b"refused before reading")
    status, _, answer = request(served["port"], "POST", "/", b"q" * (LIMIT + 10))
    assert status == 413  # the app's own limit, read from the declared length


def test_a_stalled_large_body_is_cut_at_the_read_deadline(served):
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + b"s" * 5000)
        started = time.monotonic()
        answer = read_answer(sock)
        held = time.monotonic() - started
        assert wait_for_close(sock, 5) == "closed"
    assert answer.startswith(b"HTTP/1.1 400") and answer.endswith(b"short body")
    assert SECONDS * 0.9 < held < SECONDS + 2, held
    assert seen == ["disconnected"]


def test_a_slow_head_and_a_slow_small_body_are_cut_at_the_deadline(served):
    for sent in (
        b"GET / HTTP/1.1\r\nHost:",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12",
    ):
        with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
            sock.sendall(sent)
            started = time.monotonic()
            assert wait_for_close(sock, SECONDS + 5) == "closed"
            assert time.monotonic() - started < SECONDS + 2


def test_an_app_that_raises_gets_a_plain_503_and_no_traceback(served):
    status, headers, body = request(served["port"], "GET", "/raise")
    assert status == 503 and headers["Content-Type"].startswith("text/plain")
    assert b"could not answer this request" in body
    assert b"Traceback" not in body and b"RuntimeError" not in body and b"a bug" not in body


def test_a_request_without_a_host_gets_a_400_that_says_so(served):
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\n\r\n")
        answer = read_answer(sock)
    assert answer.startswith(b"HTTP/1.1 400") and b"Host header" in answer


def test_a_long_answer_is_streamed_whole_and_closed(served):
    status, headers, body = request(served["port"], "GET", "/long")
    assert status == 200 and len(body) == 3_000_000
    assert body[:10_000] == b"\0" * 10_000 and body[-10_000:] == bytes([299 % 256]) * 10_000
    assert headers["Transfer-Encoding"] == "chunked"  # written as it was read, never whole
    deadline = time.monotonic() + 5
    while "closed" not in seen and time.monotonic() < deadline:
        time.sleep(0.02)
    assert seen == ["all sent", "closed"]


def test_a_long_answer_to_a_client_gone_is_stopped_and_closed(served):
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(b"GET /long HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 200")
    deadline = time.monotonic() + 5
    while "closed" not in seen and time.monotonic() < deadline:
        time.sleep(0.02)
    assert seen == ["closed"]  # the app's answer was closed, not read to its end


def test_a_long_answer_that_fails_half_way_is_cut_short_without_a_traceback(served):
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        sock.sendall(b"GET /long-fails HTTP/1.1\r\nHost: x\r\n\r\n")
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert received.startswith(b"HTTP/1.1 200") and b"Traceback" not in received
    assert b"0\r\n\r\n" not in received[-10:]  # no last chunk: the client sees it cut short
    assert 1_000_000 < len(received) < 3_000_000
    assert seen == ["closed"]


def test_an_answer_shorter_than_its_length_is_cut_and_logged_once_as_sent(served):
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        sock.sendall(b"GET /short HTTP/1.1\r\nHost: x\r\n\r\n")
        received = b""
        while chunk := sock.recv(65536):
            received += chunk  # the server closes: the client sees the body cut short
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"Content-Length: 100" in head
    assert body == b"x" * 10 and b"503" not in received  # no second answer after the first
    lines = access_lines(served)
    assert len(lines) == 1 and '"GET /short HTTP/1.1" 200' in lines[0]  # the status sent
    errors = served["error_log"].read_text()
    assert errors.count("/short") == 1 and "less than Content-Length" in errors
    assert "Traceback" not in errors and "The web app failed" not in errors


def test_every_answer_has_a_date_the_apps_own_or_the_servers(served):
    def date_of(sock: socket.socket) -> float:
        head = head_of(sock).decode("latin1").split("\r\n")
        dates = [line.split(":", 1)[1] for line in head if line.lower().startswith("date:")]
        assert len(dates) == 1, head
        return parsedate_to_datetime(dates[0]).timestamp()

    sent = {}
    for path in ("/", "/raise", "/long", "/dated"):  # the app's answer, its failure, a stream
        with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            sent[path] = date_of(sock)
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\n\r\n")  # refused by the server itself: no Host
        sent["no host"] = date_of(sock)
    now = time.time()
    assert sent.pop("/dated") == 784111777  # the app's own Date is kept, not doubled
    for path, date in sent.items():
        assert now - 60 < date <= now + 1, (path, date, now)


def test_a_head_gets_the_gets_length_or_none_and_no_body(served):
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        sock.sendall(b"HEAD /long HTTP/1.1\r\nHost: x\r\n\r\n")  # a stream: its length unknown
        streamed = head_of(sock)
        sock.sendall(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")  # the app gives the GET's length
        short = head_of(sock)
        sock.sendall(b"GET /refuse HTTP/1.1\r\nHost: x\r\n\r\n")  # the same connection goes on
        after = read_answer(sock)
    assert streamed.startswith(b"HTTP/1.1 200") and b"Content-Length" not in streamed
    assert b"Transfer-Encoding" not in streamed
    assert short.startswith(b"HTTP/1.1 200") and b"Content-Length: " in short
    assert b"Content-Length: 0\r" not in short + b"\r"
    assert after.startswith(b"HTTP/1.1 403") and after.endswith(b"refused before reading")


def test_an_http_1_0_stream_of_unknown_length_ends_with_its_connection(served):
    for sent in (  # and after a large body, piped to the app
        b"GET /long HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n",
        b"POST /long HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n"
        b"Content-Length: 5000\r\n\r\n" + b"p" * 5000,
    ):
        with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
            sock.sendall(sent)
            received = b""
            while chunk := sock.recv(65536):  # HTTP/1.0 has no chunks: the close ends the body
                received += chunk
        head, _, body = received.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and b"Keep-Alive" not in head
        assert b"Connection: close" in head and b"Transfer-Encoding" not in head
        assert len(body) == 3_000_000 and body[-10_000:] == bytes([299 % 256]) * 10_000
    # an answer with its length keeps an HTTP/1.0 client's connection alive, as it asked
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        for _ in range(2):
            sock.sendall(b"GET /refuse HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n")
            answer = read_answer(sock)
            assert b"Connection: Keep-Alive" in answer and answer.endswith(b"before reading")


def test_an_absolute_form_target_gives_the_app_its_path_and_query(served):
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        sock.sendall(b"GET http://x/a%20b/c?q=1#frag HTTP/1.1\r\nHost: x\r\n\r\n")
        environ = json.loads(read_answer(sock).partition(b"\r\n\r\n")[2])["environ"]
        assert environ["PATH_INFO"] == "/a b/c" and environ["QUERY_STRING"] == "q=1"
        assert environ["RAW_URI"] == "http://x/a%20b/c?q=1#frag"
        sock.sendall(b"GET http://[x/ HTTP/1.1\r\nHost: x\r\n\r\n")  # no address to read
        refused = read_answer(sock)
    assert refused.startswith(b"HTTP/1.1 400") and b"request line" in refused
    assert '"GET http://x/a%20b/c?q=1#frag HTTP/1.1" 200' in access_lines(served)[0]


def test_the_servers_own_503_is_said_in_the_language_asked(served):
    for asked, shown in [
        ("fr", "Le serveur n'a pas pu répondre à cette requête."),
        ("ca", "El servidor no ha pogut respondre aquesta petició."),
        ("", "The server could not answer this request."),
    ]:
        status, _, body = request(served["port"], "GET", "/api/raise", **{"Accept-Language": asked})
        answer = json.loads(body)
        assert status == 503 and answer["shown_error"].startswith(shown), answer
        assert answer["error"].startswith("The server could not answer this request.")


def test_the_servers_own_errors_are_json_under_api_and_at_healthz(served):
    status, headers, body = request(served["port"], "GET", "/api/raise")
    assert status == 503 and headers["Content-Type"] == "application/json"
    answer = json.loads(body)
    assert answer["ok"] is False and answer["status"] == 503
    assert "could not answer this request" in answer["error"] and "a bug" not in answer["error"]
    for target in (b"/healthz", b"/api/v1/adjudicate?x=1", b"http://x/%61pi/v1/adjudicate"):
        with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
            sock.sendall(b"GET " + target + b" HTTP/1.1\r\n\r\n")  # no Host
            head, _, body = read_answer(sock).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400") and b"Content-Type: application/json" in head
        answer = json.loads(body)
        assert answer == {"ok": False, "status": 400, "error": answer["error"]}, target
        assert "Host header" in answer["error"]
    with socket.create_connection(("127.0.0.1", served["port"]), timeout=10) as sock:
        sock.sendall(b"GET /director/ HTTP/1.1\r\n\r\n")  # a page: the plain text
        assert b"Content-Type: text/plain" in read_answer(sock)
