"""Pairing codes, cookies and uploads attacked against a real server (gunicorn, two workers):
wrong codes at speed, codes in the access log, cookies without Secure, a gzip bomb uploaded by
the director, and an anonymous upload that the server must not read."""

from __future__ import annotations

import gzip
import socket
import sqlite3
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from support.attacks import DIRECTOR_PASSWORD, cheaply_staffed_home, director, module_home
from support.http import Client
from support.servers import PreparedHome, Server, cli

pytestmark = pytest.mark.slow  # real servers (gunicorn) attacked under load

GUESSER, KIOSK_DESK = "127.0.0.1", "127.0.0.5"
BOMB_GIB = 1


home = module_home("attack-hall")
SERVER_WORKERS = 2  # `server` (tests/conftest.py) over this home


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    """About 1 MB of gzip that decompresses to 1 GiB of newlines (64 gzip members of 16 MiB:
    a gzip file may hold several, and every reader must read them all)."""
    path = tmp_path_factory.mktemp("bomb") / "words.txt.gz"
    member = gzip.compress(b"\n" * (16 * 1024 * 1024), 9)
    path.write_bytes(member * 64 * BOMB_GIB)
    assert path.stat().st_size < 2 * 1024 * 1024
    return path


@pytest.fixture(scope="module")
def word_bomb(tmp_path_factory) -> Path:
    """About 1 MB of gzip that decompresses to 1 GiB of "QI" lines: streamed, newlines cost
    nothing, but every word read is kept (repeats too) until the list is sorted."""
    path = tmp_path_factory.mktemp("word-bomb") / "words.txt.gz"
    member = gzip.compress(b"QI\n" * (16 * 1024 * 1024 // 3), 9)
    path.write_bytes(member * 64)
    assert path.stat().st_size < 2 * 1024 * 1024
    return path


def new_code(home: PreparedHome, kiosk: str | None = None) -> str:
    """A fresh pairing code for a new kiosk (from the CLI's pairing link)."""
    out = cli(
        home.path, "kiosk", "add", kiosk or f"k-{uuid.uuid4().hex[:6]}", "--tournament", "hall"
    )
    return out.split("/pair#")[1].split()[0]


def pair(client: Client, code: str):
    return client.post_form("/pair", {"code": code}, client.csrf("/pair"))


# ---------- pairing codes ----------


def test_wrong_pairing_codes_are_throttled_per_address(home, server):
    guesser = Client(server.url, GUESSER)
    token = guesser.csrf("/pair")
    replies = [guesser.post_form("/pair", {"code": f"WRONG{n:05d}"}, token) for n in range(40)]
    statuses = Counter(reply.status for reply in replies)
    assert statuses == {400: 5, 429: 35}, statuses  # 5 free, then waits, then a lock-out
    assert all(int(r.headers["Retry-After"]) >= 1 for r in replies if r.status == 429)
    assert (
        "wait 15 minutes" in replies[-1].body and "Too many wrong pairing codes" in replies[-1].body
    )
    with sqlite3.connect(home.path / "journal.sqlite3") as connection:
        counted = connection.execute(
            "SELECT failures FROM attempts WHERE scope = 'pairing' AND address = ?", (GUESSER,)
        ).fetchone()
    connection.close()
    assert counted == (40,)
    code = new_code(home)
    assert pair(guesser, code).status == 429  # even the right code, from the guessing address
    kiosk = Client(server.url, KIOSK_DESK)
    paired = pair(kiosk, code)  # while the kiosk's own screen pairs at once
    assert paired.status == 302 and "kiosk_pairing" in kiosk.jar


def test_pairing_codes_stay_out_of_the_access_log(home, server):
    old_link, new_link = new_code(home), new_code(home)
    kiosk = Client(server.url, KIOSK_DESK)
    assert kiosk.get(f"/pair/{old_link}").status == 200  # a link printed before the change
    assert pair(kiosk, old_link).status == 302
    assert kiosk.get("/pair").status == 200  # what a browser sends for /pair#CODE
    assert pair(Client(server.url, "127.0.0.6"), new_link).status == 302
    time.sleep(0.5)  # the access log is written after the response
    log = server.read_log()
    assert '"GET /pair/<code> HTTP/1.1" 200' in log
    assert old_link not in log and new_link not in log


# ---------- cookies ----------


def test_with_secure_cookies_on_every_cookie_is_secure(tmp_path):
    home = cheaply_staffed_home(tmp_path / "home")
    with Server(home, env={"ADJUDICATOR_SECURE_COOKIES": "on"}) as server:
        kiosk = Client(server.url, KIOSK_DESK)  # plain HTTP: TLS ends at a proxy in front
        token = kiosk.csrf("/pair")
        paired = kiosk.post_form("/pair", {"code": home.pairing_code}, token)
        assert paired.status == 302
        staff_page = Client(server.url).sign_in("director", DIRECTOR_PASSWORD)
        cookies = paired.cookies() + staff_page.cookies()
        assert {c.split("=")[0] for c in cookies} == {"kiosk_pairing", "adjudicator_staff"}
        for cookie in cookies:
            assert "; Secure" in cookie and "HttpOnly" in cookie, cookie


# ---------- uploads ----------


def worker_pids(server: Server) -> set[int]:
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children")
    return {int(pid) for pid in children.read_text().split()}


def upload(client: Client, path: Path, name: str):
    """POST the director's upload form with `path` as the file."""
    token = client.csrf("/director/lexicons")
    boundary = uuid.uuid4().hex
    parts = []
    for field, value in (("csrf_token", token), ("name", name), ("format", "auto")):
        disposition = f'Content-Disposition: form-data; name="{field}"'
        parts.append(f"--{boundary}\r\n{disposition}\r\n\r\n{value}\r\n".encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
        "Content-Type: application/gzip\r\n\r\n".encode()
        + path.read_bytes()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return client.request(
        "POST",
        "/director/lexicons/import",
        body=b"".join(parts),
        **{"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )


def kiosks_judge_during(server: Server, action) -> tuple[object, Counter]:
    """Run `action()` while a kiosk sends challenges; (its result, the challenges' statuses)."""
    statuses: Counter = Counter()
    done = threading.Event()

    def kiosk() -> None:
        while not done.is_set():
            status, _ = server.adjudicate(["QI", "ZA"])
            statuses[status] += 1
            time.sleep(0.05)

    thread = threading.Thread(target=kiosk)
    thread.start()
    try:
        result = action()
    finally:
        done.set()
        thread.join(30)
    return result, statuses


def test_a_gzip_bomb_upload_stops_at_the_import_limit_and_the_kiosks_judge_on(home, server, bomb):
    pids = worker_pids(server)
    client = director(server.url)
    reply, statuses = kiosks_judge_during(server, lambda: upload(client, bomb, "BOMB"))
    assert reply.status == 400
    assert "holds more than 256 MB once decompressed" in reply.body
    assert "ADJUDICATOR_IMPORT_LIMIT_MB" in reply.body and "nothing was imported" in reply.body
    assert set(statuses) == {201} and statuses[201] >= 3, statuses
    assert worker_pids(server) == pids  # no worker died or was replaced
    log = server.read_log()
    assert "MemoryError" not in log and "Traceback" not in log
    assert not (home.path / "lexicons" / "BOMB.json").exists()


def test_an_import_that_runs_out_of_memory_fails_alone(tmp_path, word_bomb):
    home = cheaply_staffed_home(tmp_path / "home")
    env = {"ADJUDICATOR_IMPORT_LIMIT_MB": "4096", "ADJUDICATOR_IMPORT_MEMORY_MB": "300"}
    with Server(home, env=env) as server:
        pids = worker_pids(server)
        client = director(server.url)
        reply, statuses = kiosks_judge_during(server, lambda: upload(client, word_bomb, "BOMB"))
        assert reply.status == 400
        assert "needed more memory than the import may use (300 MB" in reply.body
        assert "kiosks were not affected" in reply.body
        assert set(statuses) == {201}, statuses
        assert worker_pids(server) == pids
        assert server.adjudicate(["QI"])[0] == 201


def test_a_real_list_uploaded_gzipped_is_imported(home, server, tmp_path):
    listing = tmp_path / "list.txt.gz"
    listing.write_bytes(gzip.compress(b"qi\nza\ncat\ndog\n"))
    reply = upload(director(server.url), listing, "SMALL")
    assert reply.status == 201 and "Imported SMALL from list.txt.gz" in reply.body


def raw_upload_start(server: Server, cookie: str = "", length: int = 19 * 1024 * 1024):
    """Send an upload's headers and its first 64 KB only: the socket, to read the answer from."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    head = (
        "POST /director/lexicons/import HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{server.port}\r\n"
        "Content-Type: multipart/form-data; boundary=x\r\n"
        f"Content-Length: {length}\r\n" + (f"Cookie: {cookie}\r\n" if cookie else "") + "\r\n"
    )
    sock.sendall(head.encode() + b"--x\r\n" + b"A" * 64 * 1024)
    return sock


def answer_status(sock: socket.socket) -> int:
    """The status of the answer, read without sending the rest of the body (10 s at most)."""
    start = time.monotonic()
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    assert time.monotonic() - start < 10
    return int(data.split(b" ")[1])


def test_an_anonymous_upload_is_answered_before_its_body_is_read(home, server):
    sock = raw_upload_start(server)
    try:
        assert answer_status(sock) == 302  # to the sign-in page, without reading 19 MB
    finally:
        sock.close()
    judge = Client(server.url)
    assert judge.sign_in("alice", "the-judge-pw-12", "/judge/login").status == 302
    cookie = "; ".join(f"{k}={v}" for k, v in judge.jar.items())
    sock = raw_upload_start(server, cookie)
    try:
        assert answer_status(sock) == 403  # a word judge is not the director
    finally:
        sock.close()
    assert not list((home.path / "uploads").glob("import-*"))
