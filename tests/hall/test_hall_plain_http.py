"""Issue 36, papercuts 3, 4 and 10, with a real `adjudicator hall` on a network of the test's own
(support.netns: the hall's namespace with two LAN addresses, the tablets' namespace beside it;
nothing either sends leaves them): the trust page and the CA certificate, and nothing else,
over plain HTTP on port 8080 by default, everything else redirected to HTTPS at the hall's
recorded URL whatever Host the request names; the address printed at the start and on the
sheet; a busy port a warning, never a stop, and `--http-port 0` none; lingering connections from
sixteen addresses keeping no tablet from the trust page, styled, with no HSTS over plain HTTP
(issue 42); the first start saying it made the hall's CA; and the fingerprint printed as the
pages show it."""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import signal
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from adjudicator.hall import sheet_page
from adjudicator.hall.network import hall_tls
from kiosk.server.loop_worker import PLAIN_PER_ADDRESS

from support.attacks import staffed_home
from support.browser import TABLET, browser_missing_reason, launched_chromium, open_page
from support.certificates import load
from support.floods import Flood
from support.netns import HallNetwork, require_namespaces
from support.running_hall import RunningHall, run_cli

pytestmark = pytest.mark.slow
KIOSK_CSS = Path(__file__).resolve().parents[2] / "kiosk" / "static" / "kiosk.css"
SECOND_ADDRESS = "192.0.2.3"  # the hall's, beside 192.0.2.1

# One request, run in the tablets' namespace: scheme address port method target Host [cafile].
# It prints the answer as JSON (status, headers, body in base64), or the error it met.
REQUEST = r"""
import base64, http.client, json, ssl, sys
scheme, address, port, method, target, host = sys.argv[1:7]
if scheme == "https":
    context = ssl.create_default_context(cafile=sys.argv[7] if len(sys.argv) > 7 else None)
    connection = http.client.HTTPSConnection(address, int(port), context=context, timeout=60)
else:
    connection = http.client.HTTPConnection(address, int(port), timeout=60)
headers = {"Host": host, "Cookie": "session=from-another-page"}
body = b'{"words": ["QI"]}' if method == "POST" else None
try:
    connection.request(method, target, body=body, headers=headers)
    answer = connection.getresponse()
    print(json.dumps({"status": answer.status, "headers": answer.getheaders(),
                      "body": base64.b64encode(answer.read()).decode()}))
except Exception as exc:
    print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
"""


@pytest.fixture(scope="module")
def lan():
    """The hall's network: the hall's namespace with two addresses, the tablets' with two."""
    require_namespaces()
    with HallNetwork() as network:
        network.hall.add_address(SECOND_ADDRESS)
        yield network


def ask(lan: HallNetwork, scheme: str, address: str, port: int, method: str, target: str,
        host: str = "evil.example", cafile: Path | None = None) -> dict:  # fmt: skip
    """One request from a tablet (the tablets' namespace) to the hall at `address`."""
    args = [scheme, address, str(port), method, target, host] + ([str(cafile)] if cafile else [])
    answer = json.loads(lan.devices.python(REQUEST, *args))
    if "body" in answer:
        answer["body"] = base64.b64decode(answer["body"])
        answer["headers"] = {name.lower(): value for name, value in answer["headers"]}
    return answer


def opened_at(hall: RunningHall) -> str:
    return re.search(r"The hall is open at (https://\S+)", hall.output()).group(1)


def stop(hall: RunningHall) -> None:
    os.kill(hall.process.pid, signal.SIGTERM)
    assert hall.process.wait(timeout=30) == 0


def test_the_trust_page_and_its_certificate_alone_are_served_over_plain_http(
    tmp_path: Path, lan: HallNetwork
):
    home = staffed_home(tmp_path / "home").path
    hall = RunningHall(home, "plainhall", 8443, http_port=None, netns=lan.hall).start()  # default
    try:
        out, err = hall.output(), hall.stderr()
        # papercut 10: the first start says it made the hall's CA, what tablets trust
        assert "Made the hall's certificate authority (CA) in" in err
        assert "it is what tablets trust, once, at /hall/trust" in err
        url = opened_at(hall)
        host = urlsplit(url).hostname
        trust = f"http://{host}:8080/hall/trust"
        assert f"Tablets: trust the hall once at {trust}, then pair them." in out
        assert "no certificate warning" in out
        assert json.loads((home / "hall" / "hall.json").read_text())["http_url"] == (
            f"http://{host}:8080"
        )
        # papercut 4: the fingerprint as the sheet and the pages show it, two lines of groups
        ca_file = home / "hall" / "ca.crt"
        fingerprint = hall_tls.fingerprint(load(ca_file))
        lines = hall_tls.fingerprint_lines(fingerprint)
        printed = "The hall's CA fingerprint (SHA-256):\n" + "".join(f"  {x}\n" for x in lines)
        assert printed in out

        assert lan.hall.addresses == [lan.hall.address, SECOND_ADDRESS]
        for address in lan.hall.addresses:
            page = ask(lan, "http", address, 8080, "GET", "/hall/trust")
            assert page["status"] == 200, page
            assert b"Trust this hall once" in page["body"]
            assert sheet_page.fingerprint_html(fingerprint).encode() in page["body"]
            assert "set-cookie" not in page["headers"]
            cert = ask(lan, "http", address, 8080, "GET", "/hall/ca.crt")
            assert cert["status"] == 200 and cert["body"] == ca_file.read_bytes()
            assert cert["headers"]["content-type"].startswith("application/x-x509-ca-cert")
            assert b"PRIVATE KEY" not in cert["body"]
            assert ask(lan, "http", address, 8080, "HEAD", "/hall/trust")["status"] == 200
            # anything else goes to HTTPS at the hall's recorded URL, never to the Host named
            for method, target, goes_to in (
                ("GET", "/director/login", "/director/login"),
                ("GET", "/", "/"),
                ("POST", "/api/v1/adjudications", "/api/v1/adjudications"),
                ("POST", "/hall/trust", "/hall/trust"),
                ("GET", "/hall/trust/", "/hall/trust/"),
                ("GET", "//evil.example/x", "/evil.example/x"),
                ("GET", "http://evil.example/director/", "/director/"),  # absolute-form
                ("GET", "/@evil.example", "/@evil.example"),
                ("GET", "/pair?lang=pl", "/pair?lang=pl"),
            ):
                sent = ask(lan, "http", address, 8080, method, target)
                assert sent["status"] == 302, (method, target, sent)
                assert sent["headers"]["location"] == url + goes_to, (method, target)
                assert b"ACCEPTABLE" not in sent["body"] and "set-cookie" not in sent["headers"]
            # HTTPS is as it was; the plain port speaks no TLS, the HTTPS port no plain HTTP
            health = ask(lan, "https", address, 8443, "GET", "/healthz", address, ca_file)
            assert health["status"] == 200
            assert "error" in ask(lan, "https", address, 8080, "GET", "/hall/trust", address)
            assert "error" in ask(lan, "http", address, 8443, "GET", "/hall/trust")
        # the page a redirect sends a browser to is served there
        login = ask(lan, "https", lan.hall.address, 8443, "GET", "/director/login", "x", ca_file)
        assert login["status"] == 200

        # the sheet printed now names the plain-HTTP trust page
        sheet = tmp_path / "sheet.html"
        args = ("kiosk", "sheet", "--tournament", "hall", "--tables", "1-2", "-o", str(sheet))
        done = run_cli(home, *args)
        assert done.returncode == 0, done.stderr
        assert f"Tablets first trust the hall at {trust} (the sheet says so)." in done.stdout
        assert f"<strong>{trust}</strong>: plain HTTP, so the browser shows no" in (
            sheet.read_text()
        )
        stop(hall)
    finally:
        hall.kill()

    # the next start keeps the CA, and says nothing of making one
    again = RunningHall(home, "plainhall", 8443, http_port=None, netns=lan.hall).start()
    try:
        assert "certificate authority" not in again.stderr()
        assert printed in again.output()
        stop(again)
    finally:
        again.kill()


def test_a_busy_http_port_is_a_warning_and_0_turns_it_off(tmp_path: Path, lan: HallNetwork):
    first_home = staffed_home(tmp_path / "first").path
    other_home = staffed_home(tmp_path / "other").path
    first = RunningHall(first_home, "first", 8443, http_port=None, netns=lan.hall).start()
    try:
        busy = RunningHall(other_home, "other", 9443, http_port=None, netns=lan.hall).start()
        try:
            err, out = busy.stderr(), busy.output()
            assert "WARNING: Port 8080 is already in use on" in err
            assert "choose another port with --http-port" in err
            assert "without its plain-HTTP trust page this time" in err
            url = opened_at(busy)
            assert f"Tablets: trust the hall once at {url}/hall/trust, then pair them." in out
            assert "A browser warns about the certificate on that first visit" in out
            assert json.loads((other_home / "hall" / "hall.json").read_text())["http_url"] == ""
            cafile = other_home / "hall" / "ca.crt"
            health = ask(lan, "https", lan.hall.address, 9443, "GET", "/healthz", "x", cafile)
            assert health["status"] == 200  # it serves all the same
            # port 8080 is still the first hall's: its certificate, not this one's
            cert = ask(lan, "http", lan.hall.address, 8080, "GET", "/hall/ca.crt")
            assert cert["body"] == (first_home / "hall" / "ca.crt").read_bytes()
            stop(busy)
        finally:
            busy.kill()
        off = RunningHall(other_home, "other", 9444, http_port=0, netns=lan.hall).start()
        try:
            assert "8080" not in off.stderr() + off.output()
            assert "A browser warns about the certificate on that first visit" in off.output()
            stop(off)
        finally:
            off.kill()
        stop(first)
    finally:
        first.kill()


def test_lingering_connections_on_the_plain_port_keep_no_tablet_from_the_trust_page(
    tmp_path: Path, lan: HallNetwork
):
    """Issue 42, attack 5: sixteen addresses (on the hall's own loopback) holding nine lingering
    connections each, more than the plain port's whole room, again and again: a new tablet is
    answered the trust page every time, styled over plain HTTP (its stylesheet served there
    too), and nothing on that port carries Strict-Transport-Security; HTTPS is served."""
    home = staffed_home(tmp_path / "home").path
    hall = RunningHall(home, "slowhall", 8443, http_port=None, netns=lan.hall).start()
    sixteen = [f"127.0.6.{n}" for n in range(1, 17)]
    try:
        flood = Flood(
            "127.0.0.1", 8080, "linger", sixteen, PLAIN_PER_ADDRESS + 1, path="/hall/trust",
            wrap=lan.hall.command(),
        )  # fmt: skip
        with flood:
            time.sleep(3)
            with lan.hall.entered():
                pages = [trust_page_from(f"127.0.7.{n}") for n in range(1, 11)]
                css = plain_get("127.0.7.20", "/static/kiosk.css")
                cert = plain_get("127.0.7.21", "/hall/ca.crt")
                sent_on = plain_get("127.0.7.22", "/director/")
            report = flood.stop()
        assert [status for status, _, _ in pages] == [200] * 10, pages
        _, headers, body = pages[0]
        assert '<link rel="stylesheet" href="/static/kiosk.css">' in body.decode()
        assert css[0] == 200 and css[1]["content-type"].startswith("text/css")
        assert b".panel {" in css[2] and css[2] == (KIOSK_CSS).read_bytes()  # the page's rules
        assert cert[0] == 200 and sent_on[0] == 302
        for _, answered, _ in [*pages, css, cert, sent_on]:
            assert "strict-transport-security" not in answered, answered
        assert report["answers"].get("200", 0) >= 16 * PLAIN_PER_ADDRESS, report
        cafile = home / "hall" / "ca.crt"
        health = ask(lan, "https", SECOND_ADDRESS, 8443, "GET", "/healthz", "x", cafile)
        assert health["status"] == 200
        assert "strict-transport-security" in health["headers"]  # HTTPS keeps it
        if browser_missing_reason() is None:  # as a tablet's browser shows it: styled
            with lan.hall.entered(), launched_chromium() as chromium:
                page = open_page(chromium, TABLET)
                page.goto("http://127.0.0.1:8080/hall/trust")
                panel = "getComputedStyle(document.querySelector('#hall-trust')).backgroundColor"
                assert page.evaluate(panel) == "rgb(23, 42, 69)"  # kiosk.css's --panel
        stop(hall)
        log = hall.output() + hall.stderr()
        assert "refused or closed to keep room for the kiosks" in log, log[-3000:]
        assert "127.0.6." in log
    finally:
        hall.kill()


def plain_get(source: str, path: str) -> tuple[int, dict, bytes]:
    """GET `path` on the plain-HTTP port from `source` (in the hall's namespace): status,
    headers (lower-case names) and body."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", 8080, timeout=30, source_address=(source, 0)
    )
    try:
        connection.request("GET", path)
        answer = connection.getresponse()
        headers = {name.lower(): value for name, value in answer.getheaders()}
        return answer.status, headers, answer.read()
    finally:
        connection.close()


def trust_page_from(source: str) -> tuple[int, dict, bytes]:
    return plain_get(source, "/hall/trust")


def test_the_http_port_cannot_be_the_https_port(tmp_path: Path):
    done = run_cli(tmp_path / "home", "hall", "--port", "9443", "--http-port", "9443")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--http-port 9443 is the hall's HTTPS port too" in done.stderr
