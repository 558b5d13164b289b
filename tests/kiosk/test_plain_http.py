"""The hall's plain-HTTP port in front of the web app (kiosk/server/plain_http.py, issue 36 papercut
3), in-process: the trust page and the CA certificate alone pass, with no cookie either way;
everything else is redirected to the same path at the hall's recorded https URL, whatever the
request's Host says and whatever its path tries; with no recorded URL, 503, never a guess.
The same with a real hall, in a network namespace: tests/hall/test_hall_plain_http.py."""

from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest
from werkzeug.test import Client

from adjudicator.hall.network import hall_tls, hall_url
from kiosk.server.loop_worker import LoopWorker
from kiosk.server.plain_http import TrustOnly, https_location

HALL = "https://club.local:8443"


@pytest.fixture
def plain(app, setup):
    """A client of the app as the plain-HTTP port serves it, the hall's URL recorded and its
    CA made."""
    hall_url.record(hall_url.HallRecord(HALL, "club", 8443, ("192.168.1.20",), True))
    hall_tls.ensure("club", ["192.168.1.20"], own_networks=[])
    return Client(TrustOnly(app))


def test_the_trust_page_and_the_certificate_pass_without_cookies(plain):
    page = plain.get("/hall/trust", headers={"Host": "evil.example", "Cookie": "session=x"})
    assert page.status_code == 200
    assert "Trust this hall once" in page.get_data(as_text=True)
    assert "Set-Cookie" not in page.headers
    cert = plain.get("/hall/ca.crt")
    assert cert.status_code == 200 and cert.get_data() == hall_tls.ca_cert_path().read_bytes()
    assert plain.head("/hall/trust").status_code == 200


@pytest.mark.parametrize(
    "method, path, query, goes_to",
    [
        ("GET", "/director/login", "", "/director/login"),
        ("GET", "/", "", "/"),
        ("POST", "/api/v1/adjudications", "", "/api/v1/adjudications"),
        ("POST", "/hall/trust", "", "/hall/trust"),  # only reading is served in clear
        ("PUT", "/hall/ca.crt", "", "/hall/ca.crt"),
        ("GET", "/hall/trust/", "", "/hall/trust/"),
        ("GET", "/hall/ca.key", "", "/hall/ca.key"),
        ("GET", "/@evil.example", "", "/@evil.example"),
        ("GET", "/pair", "lang=pl", "/pair?lang=pl"),
        ("GET", "/pair", "a=<b>&c=%41", "/pair?a=%3Cb%3E&c=%41"),
    ],
)
def test_anything_else_goes_to_https_at_the_recorded_url(plain, method, path, query, goes_to):
    answer = plain.open(
        path,
        method=method,
        query_string=query or None,
        headers={"Host": "evil.example", "Cookie": "session=x"},
        data=b'{"words": ["QI"]}' if method in ("POST", "PUT") else None,
        content_type="application/json",
    )
    assert answer.status_code == 302
    assert answer.headers["Location"] == HALL + goes_to
    assert "Set-Cookie" not in answer.headers
    assert "ACCEPTABLE" not in answer.get_data(as_text=True)


@pytest.mark.parametrize(
    "path, query, goes_to",
    [
        ("//evil.example/x", "", "/evil.example/x"),  # never a scheme-relative URL
        ("http://evil.example/x", "", "/"),  # a target that is not a path: the front page
        ("*", "", "/"),
        ("/a b\r\nX: y", "", "/a%20b%0D%0AX:%20y"),  # nothing in it ends the Location
        ("/caf\xc3\xa9", "", "/caf%C3%A9"),  # PATH_INFO as WSGI gives it (bytes as latin-1)
        ("/100%", "", "/100%25"),
        ("/pair", "x=1#frag\r\n", "/pair?x=1%23frag%0D%0A"),
    ],
)
def test_the_location_keeps_to_the_halls_host_whatever_the_target(plain, path, query, goes_to):
    """What the worker's bridge can hand over (PATH_INFO decoded, QUERY_STRING raw), straight
    to the redirect: the host is always the recorded one."""
    assert https_location(path, query) == HALL + goes_to


def test_with_no_recorded_url_it_answers_503_and_sends_nowhere(app, setup):
    answer = Client(TrustOnly(app)).get("/director/", headers={"Host": "evil.example"})
    assert answer.status_code == 503 and "Location" not in answer.headers
    assert "starting" in answer.get_data(as_text=True)


def test_a_recorded_url_that_is_not_https_is_never_a_target(home):
    hall_url.record(hall_url.HallRecord("http://club.local:8000", "club", 8000, (), False))
    assert https_location("/director/") is None


def test_the_worker_serves_only_the_halls_plain_port_without_tls(monkeypatch):
    """kiosk/server/loop_worker.py: under TLS, the sockets on ADJUDICATOR_HTTP_PORT (which only
    `adjudicator hall` sets to a port) go to the plain server; none without TLS, none at 0."""
    with socket.socket() as secure, socket.socket() as plain:
        secure.bind(("127.0.0.1", 0))
        plain.bind(("127.0.0.1", 0))
        worker = SimpleNamespace(cfg=SimpleNamespace(is_ssl=True), sockets=[secure, plain])
        monkeypatch.setenv("ADJUDICATOR_HTTP_PORT", str(plain.getsockname()[1]))
        assert LoopWorker.split_sockets(worker) == ([secure], [plain])
        worker.cfg.is_ssl = False  # `serve` without TLS: the app alone, on every socket
        assert LoopWorker.split_sockets(worker) == ([secure, plain], [])
        worker.cfg.is_ssl = True
        monkeypatch.setenv("ADJUDICATOR_HTTP_PORT", "0")
        assert LoopWorker.split_sockets(worker) == ([secure, plain], [])
