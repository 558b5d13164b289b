"""The hall's addresses (LAN only, loopback with a reason when there is none), its name, and
mDNS that fails softly when the network will not carry it."""

from __future__ import annotations

import secrets

import pytest

from adjudicator.hall.network import hall_url, lan, mdns

from support.netns import HallNetwork


def test_lan_addresses_leave_out_loopback_link_local_and_ipv6():
    found = ["127.0.0.1", "169.254.3.4", "192.168.1.20", "fe80::1", "10.0.0.5", "192.168.1.20"]
    assert lan.lan_addresses(found) == ["10.0.0.5", "192.168.1.20"]


def test_no_lan_address_serves_on_loopback_and_says_why():
    where = lan.hall_addresses(["127.0.0.1", "169.254.9.9"])
    assert where.addresses == ("127.0.0.1",) and not where.on_lan
    assert "No network address found" in where.note and "Wi-Fi" in where.note


def test_this_machine_has_its_addresses_read_from_its_interfaces():
    assert "127.0.0.1" in lan.interface_addresses()


@pytest.mark.parametrize("name", ["My Hall", "-hall", "hall-", "hall.local", "", "x" * 64])
def test_a_hall_name_must_be_one_dns_label(name):
    with pytest.raises(mdns.HallNameError, match="lower-case letters"):
        mdns.check_name(name)


def test_mdns_on_a_network_that_refuses_it_reports_why_and_raises_nothing():
    # 203.0.113.7 (TEST-NET-3) is no address of this machine: no multicast socket can join there
    found = mdns.announce("blocked-hall", 8443, ("203.0.113.7",))
    assert not found.active
    assert "multicast" in found.error
    found.withdraw()  # harmless


def test_the_hall_says_to_use_the_address_when_mdns_fails(home, monkeypatch, capsys):
    from adjudicator.hall.network import hall_process

    failed = mdns.HallName("club", 8443, ("192.168.1.20",), error="the network refused it")
    monkeypatch.setattr(mdns, "open_name", lambda *a: failed)
    monkeypatch.delenv("ADJUDICATOR_PUBLIC_URL", raising=False)
    where = lan.HallAddresses(("192.168.1.20",))
    hall_process.HallProcess("club", 8443, where, None, [], say=print)._announce_and_record()
    out = capsys.readouterr().out
    assert "The hall is open at https://192.168.1.20:8443" in out
    assert "club.local will not open on tablets" in out
    assert "use the address https://192.168.1.20:8443" in out
    recorded = hall_url.recorded()
    assert recorded.url == "https://192.168.1.20:8443" and not recorded.mdns
    assert "Pairing links and sheets printed from now on point here" in out


def test_the_hall_warns_when_public_url_overrides_it(home, monkeypatch, capsys):
    from adjudicator.hall.network import hall_process

    monkeypatch.setenv("ADJUDICATOR_PUBLIC_URL", "http://old.example:8000")
    monkeypatch.setattr(mdns, "open_name", lambda *a: mdns.HallName("club", 8443, ()))
    where = lan.HallAddresses(("192.168.1.20",))
    hall_process.HallProcess("club", 8443, where, None, [], say=print)._announce_and_record()
    out = capsys.readouterr().out
    assert "ADJUDICATOR_PUBLIC_URL is set (http://old.example:8000)" in out
    assert "Unset it" in out


def test_pairing_links_follow_the_setting_then_the_record_then_the_fallback(home, monkeypatch):
    monkeypatch.delenv("ADJUDICATOR_PUBLIC_URL", raising=False)
    assert hall_url.public_url("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    hall_url.record(
        hall_url.HallRecord("https://club.local:8443", "club", 8443, ("10.0.0.5",), True)
    )
    assert hall_url.public_url("http://127.0.0.1:8000") == "https://club.local:8443"
    monkeypatch.setenv("ADJUDICATOR_PUBLIC_URL", "https://scrabble.example.org/")
    assert hall_url.public_url("http://127.0.0.1:8000") == "https://scrabble.example.org"
    hall_url.record_path().write_text("{not json")
    monkeypatch.delenv("ADJUDICATOR_PUBLIC_URL")
    assert hall_url.public_url("http://127.0.0.1:8000") == "http://127.0.0.1:8000"


@pytest.mark.slow
def test_a_device_announcing_the_halls_service_name_is_named_too(
    home, monkeypatch, hall_network: HallNetwork
):
    """Another device announcing the hall's own service (NAME._https._tcp) from its host, so
    zeroconf refuses the hall's: the hall names that device as it names one answering for
    NAME.local (real multicast between the hall's namespace and the devices' namespace)."""
    import socket

    from zeroconf import IPVersion, ServiceInfo, Zeroconf

    from adjudicator.hall.network import hall_process, name_claims

    other = hall_network.devices.add_address("192.0.2.78")
    monkeypatch.delenv("ADJUDICATOR_PUBLIC_URL", raising=False)
    name = f"svc-test-{secrets.token_hex(3)}"
    with hall_network.devices.entered():
        spoofer = Zeroconf(interfaces=[other], ip_version=IPVersion.V4Only)
    info = ServiceInfo(
        mdns.SERVICE_TYPE,
        f"{name}.{mdns.SERVICE_TYPE}",
        port=443,
        addresses=[socket.inet_aton(other)],
        server=f"not-{name}.local.",
    )
    spoofer.register_service(info)
    said, warned = [], []
    with hall_network.hall.entered():
        where = lan.hall_addresses()
        hall = hall_process.HallProcess(
            name, 8443, where, None, [], say=said.append, warn=warned.append
        )
        try:
            hall._announce_and_record()
            assert where.addresses == (hall_network.hall.address,)
            assert not hall.announcement.active
            first = f"https://{where.addresses[0]}:8443"
            assert said[0] == f"The hall is open at {first}"
            assert any(f"another device ({other})" in line for line in said)
            assert len(warned) == 1 and f"Another device ({other})" in warned[0]
            assert hall_url.recorded().url == first
            assert [o.address for o in name_claims.current().others] == [other]
        finally:
            hall._withdraw()
            spoofer.unregister_service(info)
            spoofer.close()
