"""Trust in the hall, with a real `adjudicator hall`: a device that answers for NAME.local (before
the start, or while the hall serves) is named in the log, /healthz and the director's overview,
and pairing links point at an address; the CA's fingerprint printed at start is the one served
and shown; a CA made before name constraints is replaced at start, saying so.

The hall runs in a network namespace of the test's own (192.0.2.1), the tablets in another
(192.0.2.2), joined by a veth pair (support.netns). The other device is python-zeroconf in the
tablets' namespace, on an address of its own (192.0.2.77), announcing NAME.local -> 192.0.2.77:
exactly what a laptop on the Wi-Fi claiming the name would send. Nothing reaches the machine's
own network."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import time
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from adjudicator.hall import sheet_page
from adjudicator.hall.network import hall_ca

from support.attacks import DIRECTOR_PASSWORD, staffed_home
from support.certificates import load, write_unconstrained_ca
from support.netns import HallNetwork
from support.running_hall import RunningHall, Spoofer, TlsClient, resolve_by_mdns, run_cli
from support.servers import free_port

pytestmark = pytest.mark.slow
SPOOF = "192.0.2.77"
GROUPS = r"(?:[0-9A-F]{2}:){3}[0-9A-F]{2}(?: (?:[0-9A-F]{2}:){3}[0-9A-F]{2}){3}"
# two lines of four groups of four pairs (issue 36): the fingerprint is their pairs, in order
FINGERPRINT = re.compile(rf"The hall's CA fingerprint \(SHA-256\):\n  ({GROUPS})\n  ({GROUPS})\n")


def printed_fingerprint(out: str) -> str:
    """The CA fingerprint the hall printed at start, as AB:CD:... (its groups joined)."""
    return " ".join(FINGERPRINT.search(out).groups()).replace(" ", ":")


@pytest.fixture
def spoof_address(hall_network: HallNetwork) -> str:
    """The other device's own address, on the tablets' side of the hall's network."""
    return hall_network.devices.add_address(SPOOF)


def served_fingerprint(client: TlsClient) -> str:
    status, _, pem = client.request("GET", "/hall/ca.crt")
    assert status == 200
    der = x509.load_pem_x509_certificate(pem).public_bytes(Encoding.DER)
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, 64, 2))


def health(client: TlsClient) -> dict:
    status, _, body = client.request("GET", "/healthz")
    assert status == 200, body
    return json.loads(body)


def tablet(hall: RunningHall, network: HallNetwork) -> TlsClient:
    """A tablet on the hall's network, by the hall's address, trusting the hall's CA."""
    address = network.hall.address
    return TlsClient(address, hall.port, address, hall.home / "hall" / "ca.crt", network.devices)


def overview(hall: RunningHall) -> str:
    """The director's overview, signed in on the hall's own machine (loopback)."""
    ca = hall.home / "hall" / "ca.crt"
    director = TlsClient("127.0.0.1", hall.port, "127.0.0.1", ca, hall.netns)
    director.sign_in("director", DIRECTOR_PASSWORD)
    status, _, page = director.request("GET", "/director/")
    assert status == 200
    return page.decode()


def stop(hall: RunningHall) -> None:
    os.kill(hall.process.pid, signal.SIGTERM)
    assert hall.process.wait(timeout=30) == 0


def test_a_name_another_device_answers_for_before_the_start_is_not_taken(
    tmp_path: Path, hall_network: HallNetwork, hall_name: str, spoof_address: str
):
    home = staffed_home(tmp_path / "home").path
    port = free_port()
    host = f"{hall_name}.local"
    tablets, lan_address = hall_network.devices, hall_network.hall.address
    with Spoofer(host, spoof_address, tablets):
        assert resolve_by_mdns(host, tablets) == [spoof_address]  # the other device answers
        hall = RunningHall(home, hall_name, port, netns=hall_network.hall).start()
        try:
            out, err = hall.output(), hall.stderr()
            assert f"The hall is open at https://{lan_address}:{port}" in out
            assert f"https://{host}" not in out
            assert f"{host} is NOT announced: another device ({spoof_address})" in out
            assert f"WARNING: Another device ({spoof_address}) answers for {host}" in err
            assert "does not announce that name" in err

            # the hall does not answer for the name: only the other device does
            assert resolve_by_mdns(host, tablets) == [spoof_address]
            by_address = tablet(hall, hall_network)
            warnings = health(by_address)["warnings"]
            assert len(warnings) == 1 and f"Another device ({spoof_address})" in warnings[0]
            assert f"point at https://{lan_address}:{port}" in warnings[0]

            # pairing links and sheets printed now point at the address, not the name
            pair = run_cli(home, "kiosk", "pair", "k1")
            assert f"https://{lan_address}:{port}/pair#" in pair.stdout, pair.stdout

            page = overview(hall)
            assert f"Another device ({spoof_address}) answers for {host}" in page
            printed = printed_fingerprint(out)
            assert printed == served_fingerprint(by_address)
            shown = sheet_page.fingerprint_html(printed)  # the same groups on the overview
            assert f'<code id="overview-ca-fingerprint">{shown}</code>' in page

            stop(hall)
            assert not (home / "hall" / "name-claims.json").exists()
            assert "Hall stopped." in hall.stderr() and "withdrawn" not in hall.stderr()
        finally:
            hall.kill()


def test_a_device_that_claims_the_name_while_the_hall_serves_is_named_within_30_s(
    tmp_path: Path, hall_network: HallNetwork, hall_name: str, spoof_address: str
):
    home = staffed_home(tmp_path / "home").path
    port = free_port()
    host = f"{hall_name}.local"
    lan_address = hall_network.hall.address
    hall = RunningHall(home, hall_name, port, netns=hall_network.hall).start()
    try:
        assert f"The hall is open at https://{host}:{port}" in hall.output()
        assert resolve_by_mdns(host, hall_network.devices) == [lan_address]
        client = tablet(hall, hall_network)
        time.sleep(7)  # more than one check (5 s): the hall's own answers are no conflict
        assert health(client)["warnings"] == []
        assert "WARNING" not in hall.stderr()

        with Spoofer(host, spoof_address, hall_network.devices):
            started = time.monotonic()
            warnings = []
            while not warnings and time.monotonic() - started < 30:
                time.sleep(1)
                warnings = health(client)["warnings"]
            named = time.monotonic() - started
            assert warnings, "the other device was not named within 30 s"
            assert f"Another device ({spoof_address}) answers for {host} too" in warnings[0]
            print(f"named after {named:.1f} s")
            assert f"WARNING: Another device ({spoof_address})" in hall.stderr()
            assert f"Another device ({spoof_address})" in overview(hall)
            # links printed from now on point at the address
            pair = run_cli(home, "kiosk", "pair", "k1")
            assert f"https://{lan_address}:{port}/pair#" in pair.stdout, pair.stdout
        stop(hall)
    finally:
        hall.kill()


def test_an_old_ca_is_replaced_at_start_and_the_printed_fingerprint_is_the_one_served(
    tmp_path: Path, hall_network: HallNetwork, hall_name: str
):
    home = staffed_home(tmp_path / "home").path
    port = free_port()
    old = write_unconstrained_ca(home / "hall", hall_name)
    hall = RunningHall(home, hall_name, port, netns=hall_network.hall).start()
    try:
        err, out = hall.stderr(), hall.output()
        assert "THE HALL HAS A NEW CERTIFICATE AUTHORITY" in err
        assert "Every tablet and laptop must trust the new one once" in err
        assert "Made the hall's server certificate" in err  # under the new CA
        printed = printed_fingerprint(out)
        assert printed != old
        ca_file = home / "hall" / "ca.crt"
        assert hall_ca.is_constrained(load(ca_file))
        client = tablet(hall, hall_network)  # verifies under the new CA
        assert printed == served_fingerprint(client)
        assert sheet_page.fingerprint_html(printed) in overview(hall)
        status, _, trust = client.request("GET", "/hall/trust")
        assert status == 200 and b"printed on the director's pairing sheet" in trust
        stop(hall)
    finally:
        hall.kill()
    # the next start keeps the new CA, and says nothing about it
    again = RunningHall(home, hall_name, free_port(), netns=hall_network.hall).start()
    try:
        assert "NEW CERTIFICATE AUTHORITY" not in again.stderr()
        assert printed_fingerprint(again.output()) == printed
    finally:
        again.kill()
