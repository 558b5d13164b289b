"""A server told to stop (SIGTERM, as systemd and `adjudicator hall` send it) finishes what it is
answering: a director's upload still arriving when the stop comes is read to its end,
imported and answered, and then the server exits by itself."""

from __future__ import annotations

import itertools
import signal
import socket
import time
import uuid

import pytest

from support.attacks import cheaply_staffed_home, director
from support.servers import Server
from support.slow_clients import read_answer

pytestmark = pytest.mark.slow


def test_an_upload_under_way_when_the_server_stops_is_imported_and_answered(tmp_path):
    home = cheaply_staffed_home(tmp_path / "home")
    server = Server(home, workers=1).start()
    try:
        client = director(server.url)
        token = client.csrf("/director/lexicons")
        cookie = "; ".join(f"{k}={v}" for k, v in client.jar.items())
        boundary = uuid.uuid4().hex
        fields = "".join(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'
            for key, value in (("csrf_token", token), ("name", "LATE"), ("format", "auto"))
        )
        words = ("".join(letters) for letters in itertools.product("ABCDEFGHIJ", repeat=5))
        listing = "\n".join(itertools.islice(words, 20_000)).encode() + b"\n"  # 120 KB
        body = (
            fields.encode()
            + f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            'filename="late.txt"\r\nContent-Type: text/plain\r\n\r\n'.encode()
            + listing
            + f"\r\n--{boundary}--\r\n".encode()
        )
        head = (
            "POST /director/lexicons/import HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{server.port}\r\nCookie: {cookie}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
            sock.sendall(head + body[:1000])
            time.sleep(0.5)  # the app is reading the upload now
            server.process.send_signal(signal.SIGTERM)
            pieces = [body[n : n + 20_000] for n in range(1000, len(body), 20_000)]
            for piece in pieces:  # the rest over two seconds, past the stop
                sock.sendall(piece)
                time.sleep(2 / len(pieces))
            answer = read_answer(sock)
        server.process.wait(timeout=15)
    finally:
        server.kill()
    assert answer.startswith(b"HTTP/1.1 201"), answer[:300]
    assert b"Imported LATE from late.txt" in answer
    assert (home.path / "lexicons" / "LATE.json").exists()
