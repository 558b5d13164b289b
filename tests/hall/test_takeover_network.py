"""A takeover on the hall's network (issue 34), in network namespaces of the test's own: laptop A
serves `adjudicator hall` as spring.local; a tablet trusts A's CA once, pairs, judges. A dies;
laptop B takes the hall over (`kit open`) and `adjudicator hall` serves with the same name,
port and CA, a server certificate from that CA for B's own address, and the same pairings: the
tablet reconnects by name, nothing touched. Then another laptop with the hall's own CA answers
for the name: B says so in /healthz's warnings and its log."""

from __future__ import annotations

import shutil

import pytest

from adjudicator.hall import hall_tls

from support.kit import PASSPHRASE
from support.lan_namespaces import HallLan, LaptopHall, skip_unless_possible
from support.servers import cli, prepare_home, run_cli

pytestmark = pytest.mark.slow

NAME, PORT = "spring", 8443
A_ADDRESS, B_ADDRESS = "192.0.2.1", "192.0.2.2"
SETTINGS = {"ADJUDICATOR_NAME_CHECK_SECONDS": "1", "ADJUDICATOR_KIOSK_RATE_LIMIT": "off"}


@pytest.fixture
def lan():
    skip_unless_possible()
    found = HallLan()
    yield found
    found.close()


def in_namespace(lan: HallLan, laptop: str, home, env: dict, *args: str, stdin=None):
    """`adjudicator ARGS` run on a laptop, in its namespace (so it sees that laptop's address)."""
    return run_cli(home, *args, env=env, stdin=stdin, netns=lan.members[laptop])


def test_laptop_b_takes_the_hall_over_and_the_tablet_reconnects_by_name(lan, tmp_path):
    stick = tmp_path / "stick"
    stick.mkdir()
    env = {**SETTINGS, "ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3")}
    lan.laptop("a", A_ADDRESS)
    lan.laptop("b", B_ADDRESS)
    lan.laptop("c", "192.0.2.3")
    a = prepare_home(tmp_path / "a" / "home", env=env)
    fingerprint = in_namespace(lan, "a", a.path, env, "hall", "--fingerprint").stdout.strip()
    cafile = str(a.path / "hall" / "ca.crt")  # what the tablet trusted, once, from A
    hall_a = LaptopHall(lan, "a", a.path, env, "--name", NAME, "--port", str(PORT)).start()
    try:
        assert f"The hall is open at https://{NAME}.local:{PORT}" in hall_a.output()
        cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env,
            stdin=PASSPHRASE + "\n")  # fmt: skip
        assert lan.tablet("resolve", host=f"{NAME}.local")["addresses"] == [A_ADDRESS]
        paired = lan.tablet("request", address=A_ADDRESS, port=PORT, host=f"{NAME}.local",
                            cafile=cafile, method="GET", path="/api/v1/kiosk",
                            code=a.pairing_code)  # fmt: skip
        assert paired["status"] == 200 and paired["body"]["kiosk"] == "k1", paired
        judged = judge(lan, A_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 1), judged
    finally:
        hall_a.kill()  # the laptop dies

    b_home = tmp_path / "b" / "home"
    opened = in_namespace(lan, "b", b_home, env, "kit", "open", str(stick), "--passphrase-stdin",
                          stdin=PASSPHRASE + "\n")  # fmt: skip
    assert opened.returncode == 0, opened.stderr
    hall_b = LaptopHall(lan, "b", b_home, env).start()  # no --name, no --port: A's
    try:
        said = hall_b.output()
        assert f"The hall is open at https://{NAME}.local:{PORT}" in said
        assert all(f"  {line}\n" in said for line in hall_tls.fingerprint_lines(fingerprint))
        assert "Made the hall's server certificate (the addresses or the name changed)" in (
            hall_b.stderr()
        )
        assert "The USB stick holds a current takeover kit" in hall_b.stderr()  # B's own, now
        # The tablet, untouched: the name now answers with B's address, A's CA trusts B, and
        # its pairing (the session secret) and the kiosk's token still work.
        assert lan.tablet("resolve", host=f"{NAME}.local")["addresses"] == [B_ADDRESS]
        again = lan.tablet("request", address=B_ADDRESS, port=PORT, host=f"{NAME}.local",
                           cafile=cafile, method="GET", path="/api/v1/kiosk",
                           jar=paired["jar"])  # fmt: skip
        assert again["status"] == 200 and again["body"]["kiosk"] == "k1", again
        judged = judge(lan, B_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 2), judged
    finally:
        hall_b.kill()

    # Another laptop with the hall's own CA (a copy of A's data home) answers for the name
    # first; B, started again, hears it, does not announce, and says so.
    c_home = tmp_path / "c" / "home"
    shutil.copytree(a.path, c_home)
    (c_home / "journal.sqlite3.mirrored").unlink()  # a laptop of its own, with no stick
    other = LaptopHall(lan, "c", c_home, {**SETTINGS, "ADJUDICATOR_JOURNAL_MIRROR": ""},
                       "--name", NAME, "--port", str(PORT)).start()  # fmt: skip
    hall_b = LaptopHall(lan, "b", b_home, env).start()
    try:
        health = lan.tablet("request", address=B_ADDRESS, port=PORT, host=f"{NAME}.local",
                            cafile=cafile, method="GET", path="/healthz")  # fmt: skip
        warnings = health["body"].get("warnings", [])
        assert any(
            "Another laptop (192.0.2.3) answers for spring.local with this hall's own "
            "certificate authority" in line
            for line in warnings
        ), health
        assert "with this hall's own certificate authority" in hall_b.stderr()
    finally:
        hall_b.kill()
        other.kill()


def judge(lan: HallLan, address: str, cafile: str, token: str) -> dict:
    return lan.tablet("request", address=address, port=PORT, host=f"{NAME}.local",
                      cafile=cafile, method="POST", path="/api/v1/adjudications", token=token,
                      body={"words": ["QI", "ZA"]})  # fmt: skip
