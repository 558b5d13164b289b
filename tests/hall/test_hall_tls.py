"""The hall's CA and server certificate: made once, renewed when due or when the addresses
change, the CA kept; a damaged CA or a certificate that does not match its key refused."""

from __future__ import annotations

import datetime as dt
import ssl
from pathlib import Path

import pytest
from cryptography import x509

from adjudicator.hall.network import hall_tls
from adjudicator.hall.network.hall_tls import HallCertificateError

from support.certificates import load, tls_handshake


def names(path: Path) -> tuple[set[str], set[str]]:
    san = load(path).extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return (
        set(san.get_values_for_type(x509.DNSName)),
        {str(a) for a in san.get_values_for_type(x509.IPAddress)},
    )


def handshake(tls: hall_tls.HallTls, host: str) -> None:
    """A real TLS handshake: the server with the hall's certificate, the client trusting only
    the hall's CA and checking `host`."""
    tls_handshake(tls.ca_cert, tls.cert, tls.key, host)


def test_first_run_makes_a_ca_and_a_server_certificate_for_the_addresses_and_name(home):
    tls = hall_tls.ensure("club", ["192.168.1.20"])
    assert tls.made == "first run"
    dns, ips = names(tls.cert)
    assert dns == {"club.local", "localhost"}
    assert ips == {"192.168.1.20", "127.0.0.1"}
    for key in (tls.folder / "ca.key", tls.key):
        assert key.stat().st_mode & 0o777 == 0o600
    assert tls.folder.stat().st_mode & 0o777 == 0o700
    for host in ("club.local", "192.168.1.20", "127.0.0.1"):
        handshake(tls, host)
    with pytest.raises(ssl.SSLCertVerificationError):
        handshake(tls, "other.local")
    assert hall_tls.read_ca_fingerprint() == tls.ca_fingerprint


def test_a_second_run_keeps_both_and_new_addresses_renew_only_the_server_certificate(home):
    first = hall_tls.ensure("club", ["192.168.1.20"])
    ca_before, cert_before = first.ca_cert.read_bytes(), first.cert.read_bytes()
    again = hall_tls.ensure("club", ["192.168.1.20"])
    assert again.made == "" and again.cert.read_bytes() == cert_before
    moved = hall_tls.ensure("club", ["10.0.0.5"])
    assert moved.made == "the addresses or the name changed"
    assert moved.ca_cert.read_bytes() == ca_before  # tablets keep trusting the hall
    assert names(moved.cert)[1] == {"10.0.0.5", "127.0.0.1"}
    handshake(moved, "10.0.0.5")


def test_a_certificate_about_to_expire_is_renewed(home, monkeypatch):
    hall_tls.ensure("club", ["192.168.1.20"])
    later = dt.datetime.now(dt.UTC) + dt.timedelta(days=hall_tls.SERVER_DAYS - 10)
    monkeypatch.setattr(hall_tls, "now_utc", lambda: later)
    tls = hall_tls.ensure("club", ["192.168.1.20"])
    assert tls.made == "it was about to expire"
    assert load(tls.cert).not_valid_after_utc > later + dt.timedelta(days=300)


def test_an_unreadable_ca_is_a_clear_error_naming_what_to_do(home):
    tls = hall_tls.ensure("club", ["192.168.1.20"])
    (tls.folder / "ca.crt").write_text("garbage\n")
    with pytest.raises(HallCertificateError) as raised:
        hall_tls.ensure("club", ["192.168.1.20"])
    message = str(raised.value)
    assert "certificate authority cannot be read" in message
    assert "from a backup" in message and "delete both" in message


def test_a_ca_key_alone_missing_is_refused_not_replaced(home):
    tls = hall_tls.ensure("club", ["192.168.1.20"])
    (tls.folder / "ca.key").unlink()
    with pytest.raises(HallCertificateError, match="cannot be read"):
        hall_tls.ensure("club", ["192.168.1.20"])
    assert (tls.folder / "ca.crt").exists()


def test_a_certificate_that_does_not_match_its_key_is_refused(home):
    tls = hall_tls.ensure("club", ["192.168.1.20"])
    tls.key.write_bytes((tls.folder / "ca.key").read_bytes())  # some other key
    with pytest.raises(HallCertificateError) as raised:
        hall_tls.ensure("club", ["192.168.1.20"])
    assert "does not match its key" in str(raised.value)
    assert "Delete" in str(raised.value)


def test_a_ca_that_does_not_match_its_key_is_refused(home, tmp_path):
    tls = hall_tls.ensure("club", ["192.168.1.20"])
    (tls.folder / "ca.key").write_bytes(tls.key.read_bytes())
    with pytest.raises(HallCertificateError, match="CA certificate .* does not match its key"):
        hall_tls.ensure("club", ["192.168.1.20"])
