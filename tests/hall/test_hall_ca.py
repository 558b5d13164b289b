"""The hall's CA signs only names a hall uses: its constraints read back with `cryptography`,
certificates its key signs for other names refused by cryptography's verifier and by OpenSSL
(a real TLS handshake), the hall's own server certificate accepted by both, no CA below it, and
a CA made before the constraints replaced with a notice."""

from __future__ import annotations

import ipaddress
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError

from adjudicator.hall.network import hall_ca, hall_tls

from support.certificates import (
    issue,
    load,
    load_key,
    tls_handshake,
    write_pair,
    write_unconstrained_ca,
)

THIS_NETWORK = ipaddress.ip_network("192.0.2.0/24")  # TEST-NET-1: not a private range


def ca_key(tls: hall_tls.HallTls):
    return load_key(tls.folder / "ca.key")


def verify(ca: x509.Certificate, leaf: x509.Certificate, host: str, chain=()) -> None:
    """cryptography's own path validation (the web PKI profile), trusting only `ca`."""
    subject = (
        x509.IPAddress(ipaddress.ip_address(host)) if host[0].isdigit() else x509.DNSName(host)
    )
    verifier = PolicyBuilder().store(Store([ca])).build_server_verifier(subject)
    verifier.verify(leaf, list(chain))


def handshake(cafile: Path, cert, key, host: str, chain=()) -> None:
    """A real TLS handshake (OpenSSL): a server presenting `cert` (and `chain`), a client
    trusting only `cafile` and checking `host`. Raises what the client raises."""
    leaf, leaf_key = cafile.parent / "test-leaf.crt", cafile.parent / "test-leaf.key"
    write_pair(leaf, leaf_key, cert, key, chain)
    tls_handshake(cafile, leaf, leaf_key, host)


@pytest.fixture
def tls(home) -> hall_tls.HallTls:
    return hall_tls.ensure("club", ["192.0.2.2"], own_networks=[THIS_NETWORK])


def test_the_ca_is_marked_critical_with_the_names_a_hall_uses_and_no_ca_below_it(tls):
    ca = load(tls.ca_cert)
    basic = ca.extensions.get_extension_for_class(x509.BasicConstraints)
    assert basic.critical and basic.value.ca and basic.value.path_length == 0
    names = ca.extensions.get_extension_for_class(x509.NameConstraints)
    assert names.critical and names.value.excluded_subtrees is None
    permitted = names.value.permitted_subtrees
    assert {n.value for n in permitted if isinstance(n, x509.DNSName)} == {"local", "localhost"}
    ranges = {n.value for n in permitted if isinstance(n, x509.IPAddress)}
    assert ranges == {
        ipaddress.ip_network(r)
        for r in (
            "127.0.0.0/8",
            "::1/128",
            "10.0.0.0/8",
            "172.16.0.0/12",
            "192.168.0.0/16",
            "fc00::/7",
            "169.254.0.0/16",
            "fe80::/10",
            "192.0.2.0/24",  # this machine's own network when the CA was made
        )
    }
    assert hall_ca.is_constrained(ca)
    assert "club hall CA" in ca.subject.rfc4514_string()


def test_a_ca_made_here_takes_this_machines_own_networks_with_their_netmasks(home):
    from adjudicator.hall.network import lan

    made = hall_tls.ensure("club", ["192.0.2.2"])  # own networks read from the interfaces
    ranges = hall_ca.ca_networks(load(made.ca_cert))
    for interface in lan.interface_networks():
        network = interface.network
        assert any(network.subnet_of(r) for r in ranges if r.version == network.version)


def test_an_interface_claiming_every_address_does_not_widen_the_ca(home):
    vpn = [ipaddress.ip_interface("203.0.113.5/0"), ipaddress.ip_interface("2001:db8::5/1")]
    tls = hall_tls.ensure("club", ["203.0.113.5"], own_networks=vpn)
    ranges = hall_ca.ca_networks(load(tls.ca_cert))
    assert ipaddress.ip_network("203.0.113.0/24") in ranges  # its own address's /24
    assert ipaddress.ip_network("2001:db8::/64") in ranges
    assert not any(r.prefixlen < 7 for r in ranges)
    ca = load(tls.ca_cert)
    verify(ca, load(tls.cert), "203.0.113.5")  # the hall's own address still works
    leaf, key = issue(ca, ca_key(tls), ["8.8.8.8"])
    with pytest.raises(VerificationError, match="name constraint"):
        verify(ca, leaf, "8.8.8.8")


@pytest.mark.parametrize(
    "names",
    [
        ["bank.example.com"],
        ["mail.example.org"],
        ["8.8.8.8"],  # an address outside every permitted range
        ["203.0.113.9"],
        ["club.local", "bank.example.com"],  # one name outside is enough to refuse it all
        ["club.local", "8.8.4.4"],
    ],
)
def test_a_certificate_the_ca_key_signs_for_another_name_does_not_verify(tls, names):
    ca = load(tls.ca_cert)
    leaf, key = issue(ca, ca_key(tls), names)
    host = names[-1]
    with pytest.raises(VerificationError, match="name constraint"):
        verify(ca, leaf, host)
    with pytest.raises(ssl.SSLCertVerificationError, match="subtree|name constraint"):
        handshake(tls.ca_cert, leaf, key, host)


def test_the_halls_own_certificate_and_any_local_name_verify(tls):
    ca = load(tls.ca_cert)
    server = load(tls.cert)
    key = load_key(tls.key)
    for host in ("club.local", "localhost", "192.0.2.2", "127.0.0.1"):
        verify(ca, server, host)
        handshake(tls.ca_cert, server, key, host)
    # the constraint is the names a hall uses, not this hall's alone: another --name works
    other, other_key = issue(ca, ca_key(tls), ["other-hall.local", "192.168.1.20", "10.1.2.3"])
    verify(ca, other, "other-hall.local")
    handshake(tls.ca_cert, other, other_key, "192.168.1.20")


def test_no_ca_below_the_halls_ca_is_trusted(tls):
    ca = load(tls.ca_cert)
    middle, middle_key = issue(ca, ca_key(tls), ["club.local"], ca=True)
    leaf, key = issue(middle, middle_key, ["club.local"])
    with pytest.raises(VerificationError):
        verify(ca, leaf, "club.local", chain=[middle])
    with pytest.raises(ssl.SSLCertVerificationError):
        handshake(tls.ca_cert, leaf, key, "club.local", chain=[middle])


def test_a_ca_made_before_the_constraints_is_replaced_with_a_notice(home):
    folder = hall_tls.tls_folder()
    old_fingerprint = write_unconstrained_ca(folder)
    old_ca, old_key = load(folder / "ca.crt"), load_key(folder / "ca.key")
    # the hall served under it: a server certificate it signed
    served, served_key = issue(old_ca, old_key, ["club.local", "localhost", "127.0.0.1"])
    write_pair(folder / "server.crt", folder / "server.key", served, served_key)
    # what the old CA allowed: a certificate for any site at all
    verify(old_ca, issue(old_ca, old_key, ["bank.example.com"])[0], "bank.example.com")

    tls = hall_tls.ensure("club", ["192.0.2.2"], own_networks=[THIS_NETWORK])
    new_ca = load(tls.ca_cert)
    assert tls.ca_fingerprint != old_fingerprint
    assert hall_ca.is_constrained(new_ca)
    assert len(tls.notes) == 1
    note = tls.notes[0]
    assert "NEW CERTIFICATE AUTHORITY" in note and '"club hall CA"' in note
    assert "Every tablet and laptop must trust the new one" in note
    assert "print new pairing sheets" in note
    assert tls.made == "the hall's CA changed"  # the server certificate re-made under it
    verify(new_ca, load(tls.cert), "club.local")
    assert (folder / "ca.key").stat().st_mode & 0o777 == 0o600
    # the next start keeps the new CA, with nothing to say
    again = hall_tls.ensure("club", ["192.0.2.2"], own_networks=[THIS_NETWORK])
    assert again.notes == () and again.made == "" and again.ca_fingerprint == tls.ca_fingerprint


def test_an_address_outside_the_cas_networks_is_left_out_and_said(home):
    hall_tls.ensure("club", ["192.168.1.20"], own_networks=[])  # made on a private network
    moved = hall_tls.ensure("club", ["192.168.1.20", "192.0.2.2"], own_networks=[THIS_NETWORK])
    assert len(moved.notes) == 1
    assert "192.0.2.2 is outside the networks" in moved.notes[0]
    assert "https://club.local" in moved.notes[0] and "delete ca.crt and ca.key" in moved.notes[0]
    alt = load(moved.cert).extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert {str(a) for a in alt.get_values_for_type(x509.IPAddress)} == {
        "192.168.1.20",
        "127.0.0.1",
    }
    verify(load(moved.ca_cert), load(moved.cert), "192.168.1.20")


def test_links_point_at_an_address_the_certificate_names_and_the_start_waits_on_loopback(
    home, monkeypatch
):
    """A laptop that later also holds an address outside the CA's networks (a VPN's 100.64/10
    sorts first): pairing links and the "also at" lines use only addresses its certificate
    names, and the start's check of its own server asks loopback, always named, so the hall
    still starts."""
    import urllib.request

    from adjudicator.hall.network import hall_process
    from adjudicator.hall.network.lan import HallAddresses

    hall_tls.ensure("club", ["192.168.1.20"], own_networks=[])  # the CA: private networks
    where = HallAddresses(("100.64.0.5", "192.168.1.20"))
    tls = hall_tls.ensure("club", where.addresses, own_networks=[])
    assert tls.covered == ("192.168.1.20",)
    hall = hall_process.HallProcess("club", 8443, where, tls, [])
    assert hall.address_url == "https://192.168.1.20:8443"
    assert hall.reachable == ("192.168.1.20",)

    asked = []

    class Answer:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def urlopen(url, timeout, context):
        asked.append(url)
        return Answer()

    class Running:
        def poll(self):
            return None

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    hall._wait_until_serving(Running())
    assert asked == ["https://127.0.0.1:8443/healthz"]
