"""What `adjudicator hall` says at its start, and what it records (issue 36 papercuts 3, 4 and
10), in-process: the trust page's plain-HTTP address (or the first visit's certificate warning
where there is none), the fingerprint as the sheet and the pages show it, the CA made on the
first start, and a busy plain-HTTP port as a warning, never a stop. The same with a real hall:
tests/hall/test_hall_plain_http.py."""

from __future__ import annotations

import socket

import pytest

from adjudicator.hall.network import hall_process, hall_tls, hall_url, lan, mdns


@pytest.fixture
def no_mdns(home, monkeypatch):
    monkeypatch.delenv("ADJUDICATOR_PUBLIC_URL", raising=False)
    monkeypatch.setattr(mdns, "open_name", lambda *a: mdns.HallName("club", 8443, ()))


def started(http_port: int, tls=None) -> list[str]:
    said: list[str] = []
    where = lan.HallAddresses(("192.168.1.20",))
    hall_process.HallProcess(
        "club", 8443, where, tls, [], say=said.append, http_port=http_port
    )._announce_and_record()
    return said


@pytest.mark.parametrize(
    "http_port, trust, note, plain",
    [
        (
            8080,
            "http://192.168.1.20:8080/hall/trust",
            "no certificate warning",
            "http://192.168.1.20:8080",
        ),
        (
            0,
            "https://192.168.1.20:8443/hall/trust",
            "A browser warns about the certificate on that first visit",
            "",
        ),
    ],
)
def test_the_trust_page_is_named_at_the_start_and_recorded_for_the_sheet(
    no_mdns, http_port, trust, note, plain
):
    """Over plain HTTP where the hall serves it so; else over HTTPS, with the first visit's
    certificate warning said."""
    said = started(http_port)
    assert f"Tablets: trust the hall once at {trust}, then pair them." in said
    assert any(note in line for line in said)
    record = hall_url.recorded()
    assert record.url == "https://192.168.1.20:8443" and record.http_url == plain
    assert hall_url.trust_address(record.url) == trust  # what the sheet prints
    # a sheet for links at another address (ADJUDICATOR_PUBLIC_URL) names that one's page
    assert hall_url.trust_address("https://x.example") == "https://x.example/hall/trust"


def test_an_older_record_without_the_plain_url_still_reads(home):
    hall_url.record_path().parent.mkdir(parents=True)
    hall_url.record_path().write_text(
        '{"url": "https://club.local:8443", "name": "club", "port": 8443, '
        '"addresses": ["10.0.0.5"], "mdns": true}'
    )
    assert hall_url.recorded().http_url == ""
    hall_url.record_path().write_text(
        '{"url": "https://club.local:8443", "name": "club", "port": 8443, '
        '"addresses": ["10.0.0.5"], "mdns": true, "http_url": "javascript:alert(1)"}'
    )
    assert hall_url.recorded().http_url == ""  # only an http:// URL is a trust address


def test_the_fingerprint_is_printed_in_eight_groups_of_four_pairs(no_mdns):
    tls = hall_tls.ensure("club", ["192.168.1.20"], own_networks=[])
    said = started(8080, tls)
    at = said.index("The hall's CA fingerprint (SHA-256):")
    lines = [line.strip() for line in said[at + 1 : at + 3]]
    assert lines == list(hall_tls.fingerprint_lines(tls.ca_fingerprint))
    groups = " ".join(lines).split(" ")
    assert len(groups) == 8 and all(len(group.split(":")) == 4 for group in groups)
    assert ":".join(groups) == tls.ca_fingerprint
    assert all(len(f"  {line}") < 80 for line in lines)  # a terminal never breaks a group


def test_the_first_start_makes_the_halls_ca_and_says_so_only_then(home):
    first = hall_tls.ensure("club", ["192.168.1.20"], own_networks=[])
    assert first.ca_made and first.made == "first run"
    again = hall_tls.ensure("club", ["192.168.1.20"], own_networks=[])
    assert not again.ca_made and again.made == ""


def test_a_busy_plain_port_is_a_warning_and_a_free_one_is_served():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        port, warning = hall_process.plain_port(["127.0.0.1"], busy)
        assert port == 0
        assert warning.startswith(f"WARNING: Port {busy} is already in use on 127.0.0.1")
        assert "--http-port" in warning and "certificate warning" in warning
    assert hall_process.plain_port(["127.0.0.1"], busy) == (busy, "")  # freed
    assert hall_process.plain_port(["127.0.0.1"], 0) == (0, "")  # turned off


def test_the_https_port_in_use_is_still_a_refusal():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        with pytest.raises(hall_process.HallServerError, match=f"Port {busy} is already in use"):
            hall_process.check_port_free(["127.0.0.1"], busy)


class AnsweredName:
    """NAME.local announced, and nobody else answering for it (no packet sent)."""

    listening = True
    active = False
    error = ""

    def ask(self) -> None:
        return None

    def heard(self) -> dict:
        return {}

    def register(self) -> None:
        self.active = True

    def withdraw(self) -> None:
        self.active = False


def test_by_name_the_trust_page_is_also_given_by_address(home, monkeypatch):
    """A browser that keeps NAME.local to HTTPS (HSTS) opens the plain page by address."""
    monkeypatch.delenv("ADJUDICATOR_PUBLIC_URL", raising=False)
    monkeypatch.setattr(mdns, "open_name", lambda *a: AnsweredName())
    monkeypatch.setattr(hall_process, "ASK_SECONDS", 0.0)
    monkeypatch.setattr(hall_process, "ASK_AGAIN_SECONDS", 0.0)
    said = started(8080)
    assert "The hall is open at https://club.local:8443" in said
    assert (
        "Tablets: trust the hall once at http://club.local:8080/hall/trust, then pair them." in said
    )
    assert "  or at http://192.168.1.20:8080/hall/trust, by address." in said
    assert hall_url.recorded().http_url == "http://club.local:8080"
