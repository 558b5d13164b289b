"""Slow clients against a real `adjudicator hall` over TLS (issue 26, item 1): forty connections
trickling their heads a byte a second and ten kept-alive connections sending half a second
request must not keep /healthz waiting, and each is closed within the header deadline; a slow
TLS handshake is closed within it too; the director's large upload still goes through, and an
upload over the limit still gets its clear 413.

The hall runs in a network namespace of the module's own (it announces its name by mDNS
there), and every test's clients connect from inside it, by loopback (support.netns)."""

from __future__ import annotations

import re
import secrets
import socket
import ssl
import time
import uuid

import pytest

from support.attacks import DIRECTOR_PASSWORD, cheaply_staffed_home
from support.netns import HallNetwork, require_namespaces
from support.running_hall import RunningHall, TlsClient
from support.servers import free_port
from support.slow_clients import SlowClients, tls_connector, wait_for_close

pytestmark = pytest.mark.slow

HEADER_SECONDS = 2
UPLOAD_LIMIT_MB = 3
LATE = 2.0  # the margin past the deadline a loaded test machine may take to close


@pytest.fixture(scope="module")
def network():
    require_namespaces()
    with HallNetwork() as network:
        yield network


@pytest.fixture(scope="module")
def hall(tmp_path_factory, network: HallNetwork):
    home = cheaply_staffed_home(tmp_path_factory.mktemp("slow-tls") / "home")
    env = {
        "ADJUDICATOR_HEADER_TIMEOUT_SECONDS": str(HEADER_SECONDS),
        "ADJUDICATOR_UPLOAD_LIMIT_MB": str(UPLOAD_LIMIT_MB),
        "ADJUDICATOR_KIOSK_RATE_LIMIT": "off",
    }
    name = f"adj-slow-{secrets.token_hex(3)}"
    running = RunningHall(home.path, name, free_port(), env, netns=network.hall)
    running.start()
    running.prepared = home
    yield running
    running.kill()


@pytest.fixture(autouse=True)
def on_the_halls_machine(network: HallNetwork):
    """Each test in the hall's namespace: its 127.0.0.1 is the hall's loopback, and the threads
    and sockets it makes stay there."""
    with network.hall.entered():
        yield


def client(hall: RunningHall) -> TlsClient:
    return TlsClient("127.0.0.1", hall.port, "127.0.0.1", hall.home / "hall" / "ca.crt")


def healthz_seconds(hall: RunningHall) -> float:
    """How long a new tablet's /healthz takes, its TLS handshake included (it must be 200)."""
    started = time.monotonic()
    status, _, body = client(hall).request("GET", "/healthz")
    assert status == 200 and b'"ok":true' in body.replace(b" ", b""), (status, body[:200])
    return time.monotonic() - started


def test_forty_tricklers_and_ten_half_requests_keep_no_one_waiting(hall):
    connect = tls_connector("127.0.0.1", hall.port, hall.home / "hall" / "ca.crt")
    waits = []
    with SlowClients(connect, tricklers=40, half_requests=10) as attack:
        time.sleep(1.5)  # every one of them connected and sending
        for _ in range(12):
            second = time.monotonic()
            waits.append(healthz_seconds(hall))
            time.sleep(max(0.0, 1 - (time.monotonic() - second)))
    assert max(waits) < 1.0, waits  # /healthz answered in under a second, every second
    assert not attack.answered, attack.answered[:3]
    assert not attack.failures, attack.failures[:3]
    # each trickler was cut at the deadline (its head would have taken minutes), and came back
    assert len(attack.trickle_cuts) >= 80, len(attack.trickle_cuts)
    assert max(attack.trickle_cuts) < HEADER_SECONDS + LATE, sorted(attack.trickle_cuts)[-5:]
    # each half request on a kept-alive connection was closed at the deadline too
    assert len(attack.half_request_cuts) >= 20, len(attack.half_request_cuts)
    assert max(attack.half_request_cuts) < HEADER_SECONDS + LATE, attack.half_request_cuts
    # the access log still names the request and its status, and nothing sent in a body
    assert re.search(r'127\.0\.0\.1 "GET /healthz HTTP/1\.1" 200 \d+ms', hall.output())


def client_hello() -> bytes:
    """The first flight of a real TLS client: its ClientHello."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


def held_for(hall: RunningHall, send) -> float:
    """Connect, run `send(sock)`, then send nothing: how long until the hall closes it."""
    with socket.create_connection(("127.0.0.1", hall.port), timeout=10) as sock:
        started = time.monotonic()
        send(sock)
        seen = wait_for_close(sock, HEADER_SECONDS + 10)
        held = time.monotonic() - started
    assert seen == "closed", seen
    return held


def trickle(data: bytes):
    def send(sock: socket.socket) -> None:
        for byte in data:
            try:
                sock.sendall(bytes([byte]))
            except OSError:  # cut between two bytes: a reset, as the hall closed it unread
                return
            if wait_for_close(sock, 0.5) != "open":
                return

    return send


def handshake_then_nothing(hall: RunningHall):
    context = ssl.create_default_context(cafile=str(hall.home / "hall" / "ca.crt"))
    raw = socket.create_connection(("127.0.0.1", hall.port), timeout=10)
    tls = context.wrap_socket(raw, server_hostname="127.0.0.1")
    started = time.monotonic()
    with tls:
        seen = wait_for_close(tls, HEADER_SECONDS + 10)
    assert seen == "closed", seen
    return time.monotonic() - started


@pytest.mark.parametrize(
    "how",
    ["nothing", "half a ClientHello", "a ClientHello a byte at a time", "a handshake, no request"],
)
def test_a_slow_tls_handshake_is_cut_at_the_deadline(hall, how):
    if how == "nothing":
        held = held_for(hall, lambda sock: None)
    elif how == "half a ClientHello":
        hello = client_hello()
        held = held_for(hall, lambda sock: sock.sendall(hello[: len(hello) // 2]))
    elif how == "a ClientHello a byte at a time":
        held = held_for(hall, trickle(client_hello()))
    else:
        held = handshake_then_nothing(hall)
    assert held < HEADER_SECONDS + LATE, held
    assert healthz_seconds(hall) < 1.0


def multipart_upload(tablet: TlsClient, name: str, listing: bytes) -> tuple[int, str]:
    """The director's lexicon import form, posted with `listing` as its file."""
    token = tablet.csrf("/director/lexicons")
    boundary = uuid.uuid4().hex
    parts = []
    for key, value in (("csrf_token", token), ("name", name), ("format", "auto")):
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'
        )
    body = (
        "".join(parts).encode()
        + f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        'filename="words.txt"\r\nContent-Type: text/plain\r\n\r\n'.encode()
        + listing
        + f"\r\n--{boundary}--\r\n".encode()
    )
    status, headers, page = tablet.request(
        "POST",
        "/director/lexicons/import",
        body=body,
        content_type=f"multipart/form-data; boundary={boundary}",
    )
    return status, page.decode(errors="replace")


def made_up_words(count: int) -> bytes:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    words = (
        a + b + c + d + e
        for a in letters
        for b in letters
        for c in letters
        for d in letters
        for e in "AEIOU"
    )
    return "\n".join(next(words) for _ in range(count)).encode() + b"\n"


def test_the_directors_large_upload_goes_through_and_one_over_the_limit_gets_its_413(hall):
    director = client(hall)
    director.sign_in("director", DIRECTOR_PASSWORD)

    listing = made_up_words(450_000)  # 2.7 MB: read in pieces as it arrives
    assert 2.5e6 < len(listing) < UPLOAD_LIMIT_MB * 1024 * 1024
    status, page = multipart_upload(director, "BIG", listing)
    assert status == 201, page[:500]
    assert "Imported BIG from words.txt" in page

    too_big = made_up_words(600_000)  # 3.6 MB, past the 3 MB limit
    status, page = multipart_upload(director, "HUGE", too_big)
    assert status == 413, page[:500]
    assert f"larger than the upload limit of {UPLOAD_LIMIT_MB} MB" in page
    assert "nothing was imported and the lexicons are unchanged" in page
    assert "Traceback" not in page and "Traceback" not in hall.stderr()
    assert not (hall.home / "lexicons" / "HUGE.json").exists()
    assert healthz_seconds(hall) < 1.0


def test_the_hall_serves_on_its_lan_address_too(hall, network: HallNetwork):
    """The hall listens on its LAN address as well as loopback: the new worker serves both."""
    address = network.hall.address
    ca = hall.home / "hall" / "ca.crt"
    tablet = TlsClient(address, hall.port, address, ca, network.devices)
    status, _, body = tablet.request("GET", "/healthz")
    assert status == 200
