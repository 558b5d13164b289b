"""A takeover on the hall's network (issue 34), in network namespaces of the test's own
(support.netns): laptop A serves `adjudicator hall` as spring.local; a tablet trusts A's CA
once, pairs, judges. A dies; laptop B takes the hall over (`kit open`) and `adjudicator hall`
serves with the same name, port and CA, a server certificate from that CA for B's own address,
and the same pairings: the tablet reconnects by name, nothing touched. Then another laptop with
the hall's own CA answers for the name: B says so in /healthz's warnings and its log.

Laptop A is the hall's namespace, B and C machines of their own on the same network, and the
tablet the devices' namespace: it resolves and asks in-process, from there."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import sys
from pathlib import Path

import pytest

from support.kit import PASSPHRASE
from support.netns import HALL_ADDRESS, HallNetwork, Namespace
from support.running_hall import RunningHall, TlsClient, resolve_by_mdns
from support.servers import cli, prepare_home, run_cli

pytestmark = pytest.mark.slow

NAME, PORT = "spring", 8443
A_ADDRESS, B_ADDRESS, C_ADDRESS = HALL_ADDRESS, "192.0.2.11", "192.0.2.12"
SETTINGS = {"ADJUDICATOR_NAME_CHECK_SECONDS": "1", "ADJUDICATOR_KIOSK_RATE_LIMIT": "off"}


class LaptopHall(RunningHall):
    """`adjudicator hall ARGS` on one laptop: in its namespace, on its data home (no plain-HTTP
    trust page: the tablet here trusts the CA it was given)."""

    def __init__(self, laptop: Namespace, home: Path, env: dict, *args: str):
        super().__init__(home, laptop.name, 0, env, netns=laptop)
        self.args = args

    def command(self) -> list[str]:
        argv = [sys.executable, "-m", "adjudicator", "hall", *self.args, "--http-port", "0"]
        return self.netns.command(*argv)


def test_laptop_b_takes_the_hall_over_and_the_tablet_reconnects_by_name(
    hall_network: HallNetwork, tmp_path
):
    stick = tmp_path / "stick"
    stick.mkdir()
    env = {**SETTINGS, "ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3")}
    laptop_a, tablet = hall_network.hall, hall_network.devices
    laptop_b = hall_network.add_machine("b", B_ADDRESS)
    laptop_c = hall_network.add_machine("c", C_ADDRESS)
    a = prepare_home(tmp_path / "a" / "home", env=env)
    fingerprint = run_cli(a.path, "hall", "--fingerprint", env=env, netns=laptop_a).stdout.strip()
    cafile = str(a.path / "hall" / "ca.crt")  # what the tablet trusted, once, from A
    hall_a = LaptopHall(laptop_a, a.path, env, "--name", NAME, "--port", str(PORT)).start()
    try:
        assert f"The hall is open at https://{NAME}.local:{PORT}" in hall_a.output()
        cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env,
            stdin=PASSPHRASE + "\n")  # fmt: skip
        assert resolve_by_mdns(f"{NAME}.local", tablet, 4000) == [A_ADDRESS]
        paired = request(tablet, A_ADDRESS, cafile, "GET", "/api/v1/kiosk", code=a.pairing_code)
        assert paired["status"] == 200 and paired["body"]["kiosk"] == "k1", paired
        judged = judge(tablet, A_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 1), judged
    finally:
        hall_a.kill()  # the laptop dies

    b_home = tmp_path / "b" / "home"
    opened = run_cli(b_home, "kit", "open", str(stick), "--passphrase-stdin", env=env,
                     stdin=PASSPHRASE + "\n", netns=laptop_b)  # fmt: skip
    assert opened.returncode == 0, opened.stderr
    hall_b = LaptopHall(laptop_b, b_home, env).start()  # no --name, no --port: A's
    try:
        said = hall_b.output()
        assert f"The hall is open at https://{NAME}.local:{PORT}" in said
        assert all(line in said for line in fingerprint.splitlines())  # as A printed them
        assert "Made the hall's server certificate (the addresses or the name changed)" in (
            hall_b.stderr()
        )
        assert "The USB stick holds a current takeover kit" in hall_b.stderr()  # B's own, now
        # ... and straight after, with B's own addresses recorded: no "not current" (issue 44)
        status = run_cli(b_home, "journal", "status", env=env, netns=laptop_b)
        assert "holds a current takeover kit" in status.stdout, status.stdout
        # The tablet, untouched: the name now answers with B's address, A's CA trusts B, and
        # its pairing (the session secret) and the kiosk's token still work.
        assert resolve_by_mdns(f"{NAME}.local", tablet, 4000) == [B_ADDRESS]
        again = request(tablet, B_ADDRESS, cafile, "GET", "/api/v1/kiosk", jar=paired["jar"])
        assert again["status"] == 200 and again["body"]["kiosk"] == "k1", again
        judged = judge(tablet, B_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 2), judged
    finally:
        hall_b.kill()

    # Another laptop with the hall's own CA (a copy of A's data home) answers for the name
    # first; B, started again, hears it, does not announce, and says so. (A copy of A's
    # journal would be refused there, taken over: C is a laptop of its own, with no journal.)
    c_home = tmp_path / "c" / "home"
    shutil.copytree(a.path, c_home)
    for journal_file in c_home.glob("journal.sqlite3*"):
        journal_file.unlink()
    other = LaptopHall(laptop_c, c_home, {**SETTINGS, "ADJUDICATOR_JOURNAL_MIRROR": ""},
                       "--name", NAME, "--port", str(PORT)).start()  # fmt: skip
    hall_b = LaptopHall(laptop_b, b_home, env).start()
    try:
        health = request(tablet, B_ADDRESS, cafile, "GET", "/healthz")
        warnings = health["body"].get("warnings", [])
        assert any(
            f"Another laptop ({C_ADDRESS}) answers for spring.local with this hall's own "
            "certificate authority" in line
            for line in warnings
        ), health
        assert "with this hall's own certificate authority" in hall_b.stderr()
    finally:
        hall_b.kill()
        other.kill()


def judge(tablet: Namespace, address: str, cafile: str, token: str) -> dict:
    body = {"words": ["QI", "ZA"]}
    return request(tablet, address, cafile, "POST", "/api/v1/adjudications", token=token, body=body)


def request(tablet: Namespace, address: str, cafile: str, method: str, path: str,
            jar: dict | None = None, token: str | None = None, body: dict | None = None,
            code: str | None = None) -> dict:  # fmt: skip
    """One HTTPS request from the tablet to `address`, trusting only `cafile` and checking the
    certificate names NAME.local: with a kiosk's cookies (`jar`) or token; `code` pairs first
    (the jar comes back)."""
    host = f"{NAME}.local"
    client = TlsClient(address, PORT, host, Path(cafile), tablet)
    client.jar.update(jar or {})
    if code:
        status, page = client.pair(code)
        assert status == 200, page
    data = json.dumps(body).encode() if body is not None else None
    if token:
        with tablet.entered():
            raw = socket.create_connection((address, PORT), timeout=15)
        tls = client.context.wrap_socket(raw, server_hostname=host)
        connection = http.client.HTTPSConnection(host, PORT, context=client.context)
        connection.sock = tls
        connection.request(method, path, body=data, headers={
            "Authorization": f"Bearer {token}", "Content-Type": "application/json"})  # fmt: skip
        response = connection.getresponse()
        status, answer = response.status, response.read()
        connection.close()
    else:
        kind = "application/json" if body else None
        status, _, answer = client.request(method, path, body=data, content_type=kind)
    try:
        parsed = json.loads(answer)
    except ValueError:
        parsed = {"raw": answer.decode(errors="replace")[:2000]}
    return {"status": status, "body": parsed, "jar": dict(client.jar)}
