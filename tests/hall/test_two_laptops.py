"""Two laptops of one hall hear each other (issue 40), in network namespaces of the test's own
(support.netns): laptop B serves `adjudicator hall` as spring.local and judges; laptop A, with
the same hall's key and CA (a copy of the same data home), starts after it. A hears B answer for
the name with the hall's CA and tells B so directly (a note signed with the hall's key), so both
warn, in /healthz and the log; B, which judged first, keeps judging; A does not start judging.
A note not signed with the hall's key, sent by a device on the hall's Wi-Fi, changes nothing.
"""

from __future__ import annotations

import json
import shutil
import time

import pytest
from test_takeover_network import NAME, PORT, SETTINGS, LaptopHall, judge, request

from support.netns import HALL_ADDRESS, HallNetwork
from support.servers import prepare_home, run_cli

pytestmark = pytest.mark.slow

A_ADDRESS, B_ADDRESS = HALL_ADDRESS, "192.0.2.11"


def wait_for(check, seconds: float = 60):
    """Ask `check` until it answers something true (what it answered), or fail."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.25)


def warnings_naming(tablet, address: str, cafile: str, other: str) -> list[str]:
    """The /healthz warnings of the laptop at `address` that name the laptop at `other`."""
    health = request(tablet, address, cafile, "GET", "/healthz")
    return [line for line in health["body"].get("warnings", []) if f"({other}" in line]


def test_two_laptops_of_one_hall_each_warn_and_the_first_keeps_judging(
    hall_network: HallNetwork, tmp_path
):
    laptop_a, tablet = hall_network.hall, hall_network.devices
    laptop_b = hall_network.add_machine("b", B_ADDRESS)
    a = prepare_home(tmp_path / "a" / "home", env=SETTINGS)
    assert run_cli(a.path, "hall", "--fingerprint", env=SETTINGS, netns=laptop_a).returncode == 0
    cafile = str(a.path / "hall" / "ca.crt")
    b_home = tmp_path / "b" / "home"
    shutil.copytree(a.path, b_home)  # the same hall's key, CA and tokens on a second laptop
    (b_home / "install-id").unlink(missing_ok=True)

    hall_b = LaptopHall(laptop_b, b_home, SETTINGS, "--name", NAME, "--port", str(PORT)).start()
    hall_a = None
    try:
        judged = judge(tablet, B_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 1), judged
        assert not warnings_naming(tablet, B_ADDRESS, cafile, A_ADDRESS)

        hall_a = LaptopHall(laptop_a, a.path, SETTINGS, "--name", NAME, "--port", str(PORT))
        hall_a.start()
        # B, which A never answered for the name to, is told directly: it warns.
        told = wait_for(lambda: warnings_naming(tablet, B_ADDRESS, cafile, A_ADDRESS))
        assert "told this one that it serves this hall too" in told[0], told
        assert wait_for(lambda: "WARNING: Another laptop, " in hall_b.stderr())
        # A heard B as it started: it warns too, and does not start judging.
        heard = wait_for(lambda: warnings_naming(tablet, A_ADDRESS, cafile, B_ADDRESS))
        assert "with this hall's own certificate authority" in heard[0], heard
        assert "JUDGING HELD: Another laptop" in hall_a.stderr(), hall_a.stderr()[-3000:]
        assert f"at {B_ADDRESS}, serves this hall" in hall_a.stderr()
        health = request(tablet, A_ADDRESS, cafile, "GET", "/healthz")
        assert health["status"] == 503 and "waits for the director" in health["body"]["error"]
        refused = judge(tablet, A_ADDRESS, cafile, a.token)
        assert refused["status"] == 503 and "verdict" not in refused["body"], refused
        judged = judge(tablet, B_ADDRESS, cafile, a.token)  # B, judging first, judges on
        assert (judged["status"], judged["body"]["id"]) == (201, 2), judged
        status = run_cli(a.path, "journal", "status", env=SETTINGS)
        assert "HELD" in status.stdout and f"at {B_ADDRESS}" in status.stdout, status.stdout
    finally:
        if hall_a is not None:
            hall_a.kill()
        hall_b.kill()


def test_a_note_not_signed_with_the_halls_key_changes_nothing(hall_network: HallNetwork, tmp_path):
    """A device on the hall's Wi-Fi posts a note of its own making (signed with another key,
    or not at all): refused, nothing kept, no warning."""
    from adjudicator.hall import hall_peers
    from adjudicator.record.journal.receipt_key import SigningKey

    laptop_a, tablet = hall_network.hall, hall_network.devices
    a = prepare_home(tmp_path / "a" / "home", env=SETTINGS)
    run_cli(a.path, "hall", "--fingerprint", env=SETTINGS, netns=laptop_a)
    cafile = str(a.path / "hall" / "ca.crt")
    hall_a = LaptopHall(laptop_a, a.path, SETTINGS, "--name", NAME, "--port", str(PORT)).start()
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        stranger = SigningKey(Ed25519PrivateKey.generate(), tmp_path / "x.pem")
        forged = hall_peers.note(stranger, NAME, PORT, True)
        unsigned = {k: v for k, v in forged.items() if k != "signature"}
        for body in (forged, unsigned, {"type": "hall-peer"}, ["x"]):
            answer = request(tablet, A_ADDRESS, cafile, "POST", "/hall/peer", body=body)
            assert answer["status"] == 400, answer
            assert "not a note of this hall's laptops" in json.dumps(answer["body"]).lower()
        health = request(tablet, A_ADDRESS, cafile, "GET", "/healthz")
        assert health["status"] == 200 and health["body"]["warnings"] == [], health
        assert not (a.path / "hall" / "peers.json").exists()
    finally:
        hall_a.kill()
