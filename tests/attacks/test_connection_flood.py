"""One address's connection flood against a real server (issue 33, item 5): a laptop holding
3,000 idle connections, reopening each as soon as it is closed, while kiosks at another address
judge. Each worker lets one address hold ADJUDICATOR_CONNECTIONS_PER_ADDRESS (64) connections
and closes the next ones within a second unless they show a paired kiosk's credential (before
TLS if they sent nothing; issue 42); the log names the address once a minute, the director's
overview names it while it is at its cap, and every other address is served.
(How fast the kiosks' verdicts come back is measured in benchmarks/connection_flood.py.)"""

from __future__ import annotations

import json
import re
import socket
import ssl
import time

import pytest

from adjudicator.hall.network import hall_tls

from support.attacks import cheaply_staffed_home, director
from support.http import Client, challenge_from
from support.idle_flood import IdleFlood
from support.servers import Server
from support.slow_clients import wait_for_close

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("enough_files")]

FLOOD = 3000
ATTACKER, KIOSKS, DIRECTOR = "127.0.0.1", "127.0.0.2", "127.0.0.3"
REFUSED = re.compile(
    r"Connections this worker refused or closed to keep room for the kiosks: ([\d,]+) past "
    r"their address's cap, showing no kiosk's credential in time \((\S+) [\d,]+\)"
)


def verdict_from(server: Server, source: str) -> dict:
    """A kiosk's challenge, sent from `source`: its answer, which must be a recorded verdict."""
    reply = challenge_from(server.url, source, server.home.token)
    assert reply.status == 201, (reply.status, reply.body[:300])
    answer = json.loads(reply.body)
    assert answer["verdict"] == "ACCEPTABLE" and answer["id"] > 0, answer
    return answer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    home = cheaply_staffed_home(tmp_path_factory.mktemp("flood") / "home")
    with Server(home, workers=2) as running:
        yield running


def test_a_laptop_holding_3000_idle_connections_leaves_kiosks_at_another_address_judging(server):
    before = verdict_from(server, KIOSKS)["id"]
    with IdleFlood("127.0.0.1", server.port, FLOOD, ATTACKER) as flood:
        time.sleep(3)  # every connection opened, the cap reached in both workers
        answers = [verdict_from(server, KIOSKS) for _ in range(20)]
        overview = director(server.url, DIRECTOR).get("/director/").body
        report = flood.stop()
    assert [answer["id"] for answer in answers] == list(range(before + 1, before + 21))
    assert (
        f"{ATTACKER} holds as many connections as one address may (64 in each server process)"
        in overview
    )
    assert KIOSKS not in overview and DIRECTOR not in overview
    # it held 3,000 open at once; the workers held 64 each and closed the rest, again and again
    assert report["most_held"] == FLOOD and report["closed"] > FLOOD, report
    refused = REFUSED.findall(server.read_log())
    assert refused and {address for _, address in refused} == {ATTACKER}
    assert len(refused) <= 2, refused  # once a minute in each worker: 2 workers
    assert "Traceback" not in server.read_log()
    reply = Client(server.url, ATTACKER).get("/healthz")  # the flood over, it is served again
    assert reply.status == 200


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory):
    """`serve` over TLS, one worker, 4 connections per address, a long header deadline (the
    connections held stay open while the test looks)."""
    home = cheaply_staffed_home(tmp_path_factory.mktemp("flood-tls") / "home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ADJUDICATOR_HOME", str(home.path))
        made = hall_tls.ensure("flood", ["127.0.0.1"], own_networks=[])
    env = {
        "ADJUDICATOR_CONNECTIONS_PER_ADDRESS": "4",
        "ADJUDICATOR_HEADER_TIMEOUT_SECONDS": "60",
    }
    with Server(home, workers=1, env=env, tls=(made.cert, made.key)) as running:
        running.ca = made.ca_cert
        yield running


def tls_connection(server: Server, source: str) -> ssl.SSLSocket:
    raw = socket.create_connection(
        ("127.0.0.1", server.port), timeout=10, source_address=(source, 0)
    )
    context = ssl.create_default_context(cafile=str(server.ca))
    return context.wrap_socket(raw, server_hostname="127.0.0.1")


def test_past_its_cap_an_address_is_closed_before_tls_and_others_are_served(tls_server):
    held = [tls_connection(tls_server, ATTACKER) for _ in range(4)]
    try:
        for _ in range(5):  # the fifth and every one after: closed within a second, no TLS
            assert refused_before_tls(tls_server) == "closed"
        assert healthz_over_tls(tls_server, KIOSKS, tries=1)  # another address: served
    finally:
        for connection in held:
            connection.close()
    refused = REFUSED.findall(tls_server.read_log())
    assert [address for _, address in refused] == [ATTACKER]  # five refused: one line
    assert healthz_over_tls(tls_server, ATTACKER)  # its own connections closed: served again


def refused_before_tls(server: Server) -> str:
    """What the attacker's next connection meets: "closed" when the server resets or closes it
    (within the second an address past its cap has to show a credential, or even before
    connect() returns: the reset can come back on loopback that fast)."""
    try:
        raw = socket.create_connection(
            ("127.0.0.1", server.port), timeout=10, source_address=(ATTACKER, 0)
        )
    except ConnectionResetError:
        return "closed"
    with raw:
        try:
            raw.sendall(b"\x16\x03\x01\x00\xc8\x01")  # the start of a ClientHello
        except OSError:
            pass
        return wait_for_close(raw, 10)


def healthz_over_tls(server: Server, source: str, tries: int = 20) -> bool:
    """/healthz over TLS from `source` answers 200 (tried again while the worker has not yet
    seen the address's last connections close: until then it is refused, or answered 503)."""
    for _ in range(tries):
        try:
            with tls_connection(server, source) as tls:
                tls.sendall(
                    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                )
                if tls.recv(12) == b"HTTP/1.1 200":
                    return True
        except OSError:
            pass
        time.sleep(0.25)
    return False
