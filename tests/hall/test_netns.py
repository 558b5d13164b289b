"""The tests' own network for the hall (support.netns) and the watch that no mDNS datagram
leaves the machine (support.mdns_watch): two namespaces joined by a veth pair with no end in the
machine's own namespace, multicast carried between them, deleted even when a test fails; the
watch sees an mDNS datagram leave an interface, and nothing else.

Under CI these fail rather than skip when namespaces or packet sockets cannot be made."""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import threading

import pytest

from adjudicator.hall.network import lan

from support import mdns_watch, netns
from support.mdns_watch import Datagram, DnsLeftWarning, MdnsLeftWarning, MdnsWatch
from support.netns import HallNetwork

MDNS_GROUP = "224.0.0.251"


def links(namespace: str | None = None) -> dict[str, dict]:
    """Every link of a namespace (the machine's own when None), by name, as `ip -j` shows it."""
    where = ["-n", namespace] if namespace else []
    shown = subprocess.run(
        ["ip", *where, "-j", "-d", "link", "show"], capture_output=True, text=True, check=True
    ).stdout
    return {link["ifname"]: link for link in json.loads(shown)}


def namespaces() -> list[str]:
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in listing.splitlines() if line.strip()]


def this_threads_namespace() -> int:
    return os.stat("/proc/thread-self/ns/net").st_ino


def test_the_halls_network_is_namespaces_joined_by_veths_with_no_end_here(
    hall_network: HallNetwork,
):
    hall, devices = hall_network.hall, hall_network.devices
    laptop = hall_network.add_machine("b", "192.0.2.12")
    assert {hall.name, devices.name, laptop.name} <= set(namespaces())
    assert not any(  # no end of a veth in the machine's own namespace
        link.get("linkinfo", {}).get("info_kind") == "veth" for link in links().values()
    )
    on_the_bridge = links(devices.name)
    assert set(on_the_bridge) == {"lo", "br0", "port1", "port2"}
    for port in ("port1", "port2"):
        assert on_the_bridge[port]["linkinfo"]["info_kind"] == "veth"
        assert on_the_bridge[port]["master"] == "br0" and "UP" in on_the_bridge[port]["flags"]
    for namespace in (hall, devices, laptop):
        inside = links(namespace.name)
        assert "UP" in inside["lo"]["flags"]
        link = inside[namespace.interface]
        assert {"UP", "MULTICAST"} <= set(link["flags"]) and "NO-CARRIER" not in link["flags"]
        with namespace.entered():
            assert lan.hall_addresses().addresses == (namespace.address,)
            assert "127.0.0.1" in lan.interface_addresses()
    assert set(links(hall.name)) == {"lo", "eth0"} == set(links(laptop.name))
    assert links(hall.name)["eth0"]["linkinfo"]["info_kind"] == "veth"
    addresses = [hall.address, devices.address, laptop.address]
    assert all(a.startswith("192.0.2.") for a in addresses) and len(set(addresses)) == 3


def test_a_device_gets_an_address_of_its_own(hall_network: HallNetwork):
    spoofer = hall_network.devices.add_address("192.0.2.66")
    with hall_network.devices.entered():
        assert spoofer in lan.own_addresses()
    with hall_network.hall.entered():
        assert spoofer not in lan.own_addresses()
    assert spoofer not in lan.own_addresses()


def test_multicast_crosses_the_network_and_the_watch_sees_it_leave(hall_network: HallNetwork):
    """The watch, run inside the hall's namespace, sees the mDNS datagram sent there leave its
    eth0, and the devices and another laptop receive it; a datagram to another port, and one
    over loopback, are not counted, nor even let through by the kernel's filter."""
    hall, devices = hall_network.hall, hall_network.devices
    laptop = hall_network.add_machine("b", "192.0.2.12")
    listeners = []
    for namespace in (devices, laptop):
        with namespace.entered():
            listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("", 5353))
        group = socket.inet_aton(MDNS_GROUP) + socket.inet_aton(namespace.address)
        listener.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, group)
        listener.settimeout(5)
        listeners.append(listener)
    with hall.entered():
        watch = MdnsWatch()
        sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with watch, sender:
        sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(hall.address))
        sender.sendto(b"not mdns", (MDNS_GROUP, 5354))
        sender.sendto(b"on loopback", ("127.0.0.1", 5353))
        sender.sendto(b"an mdns datagram", (MDNS_GROUP, 5353))
        for listener in listeners:
            with listener:
                data, (source, _) = listener.recvfrom(100)
            assert (data, source) == (b"an mdns datagram", hall.address)
        seen = watch.take()
        assert [str(d) for d in seen] == [
            f"{hall.address}:{sender.getsockname()[1]} -> {MDNS_GROUP}:5353 on {hall.interface}"
        ]
        assert watch.frames == 1
        assert watch.take() == []  # each datagram is taken once


def test_the_watch_sees_mdns_over_ipv6_too(hall_network: HallNetwork):
    hall = hall_network.hall
    subprocess.run(
        ["ip", "-n", hall.name, "addr", "add", "2001:db8::1/64", "dev", hall.interface] + ["nodad"],
        check=True,
    )
    with hall.entered():
        watch = MdnsWatch()
        sender = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        scope = socket.if_nametoindex(hall.interface)
    with watch, sender:
        sender.sendto(b"an mdns datagram", ("ff02::fb", 5353, 0, scope))
        seen = watch.take()
    assert len(seen) == 1 and seen[0].destination == "[ff02::fb]:5353", seen


def test_the_namespaces_are_deleted_even_when_the_test_fails():
    netns.require_namespaces()
    with pytest.raises(RuntimeError, match="a failing test"):
        with HallNetwork() as network:
            network.add_machine("b", "192.0.2.12")
            names = [n.name for n in network.namespaces]
            assert len(names) == 3 and set(names) <= set(namespaces())
            raise RuntimeError("a failing test")
    assert not set(names) & set(namespaces())


def test_a_network_half_made_is_deleted(monkeypatch):
    """`ip` failing while the network is made (here: the hall's veth) leaves nothing behind."""
    netns.require_namespaces()
    made, real_ip = [], netns._ip

    def failing_ip(*args):
        if args[:2] == ("link", "add"):
            raise netns.NamespaceError("`ip link add` failed: no veth here")
        real_ip(*args)
        if args[:2] == ("netns", "add"):
            made.append(args[2])

    monkeypatch.setattr(netns, "_ip", failing_ip)
    with pytest.raises(netns.NamespaceError, match="no veth here"):
        HallNetwork().__enter__()
    assert made and not set(made) & set(namespaces())


def test_namespaces_a_killed_run_left_are_deleted_by_the_next():
    netns.require_namespaces()
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = f"{netns.PREFIX}-{gone.pid}-0abc12-hall"
    mine = f"{netns.PREFIX}-{os.getpid()}-0abc12-hall"
    for name in (stale, mine):
        subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        netns.remove_stale_namespaces()
        assert stale not in namespaces()
        assert mine in namespaces()  # this run's own: still in use
    finally:
        for name in (stale, mine):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


def test_entering_moves_only_this_thread_and_always_comes_back(hall_network: HallNetwork):
    home = this_threads_namespace()
    started_inside, meanwhile = [], []
    outside = threading.Event()

    def stay_out() -> None:
        outside.wait(10)
        meanwhile.append(this_threads_namespace())

    bystander = threading.Thread(target=stay_out)
    bystander.start()
    with pytest.raises(ValueError):
        with hall_network.hall.entered():
            inside = this_threads_namespace()
            assert inside != home
            other = threading.Thread(target=lambda: started_inside.append(this_threads_namespace()))
            other.start()
            other.join()
            outside.set()
            bystander.join()
            raise ValueError("the block fails")
    assert this_threads_namespace() == home
    assert started_inside == [inside]  # a thread started inside is inside too
    assert meanwhile == [home]  # a thread already running stays where it was
    with netns.entered(None):
        assert this_threads_namespace() == home


def test_a_process_runs_inside_with_command(hall_network: HallNetwork):
    done = subprocess.run(
        hall_network.hall.command("ip", "-4", "-o", "addr", "show"),
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"{hall_network.hall.address}/24" in done.stdout
    assert hall_network.devices.address + "/" not in done.stdout


@pytest.mark.parametrize("ci", ["", "true"])
def test_without_namespaces_the_tests_skip_saying_why_except_under_ci(monkeypatch, ci):
    monkeypatch.setattr(netns, "missing_reason", lambda: "network namespaces need root")
    monkeypatch.setenv("CI", ci)
    if ci:
        with pytest.raises(pytest.fail.Exception, match="CI must run .* need root"):
            netns.require_namespaces()
    else:
        with pytest.raises(pytest.skip.Exception, match="network namespaces need root"):
            netns.require_namespaces()


def test_the_suite_is_watched_for_mdns():
    """Every test is watched (tests/conftest.py) where a packet socket can be opened: say so
    where it cannot, and fail under CI, which runs as root."""
    reason = MdnsWatch.missing_reason()
    if reason and os.environ.get("CI"):
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)


@pytest.mark.parametrize("ci", ["", "true"])
def test_a_datagram_seen_fails_the_test_under_ci_and_warns_elsewhere(monkeypatch, ci):
    seen = [Datagram("eth0", "192.0.2.1:5353", "224.0.0.251:5353")]
    monkeypatch.setenv("CI", ci)
    said = "1 mDNS datagram.* left this machine during the test: 192.0.2.1:5353 -> 224.0.0.251"
    if ci:
        with pytest.raises(pytest.fail.Exception, match=said):
            mdns_watch.report(seen, "during the test")
    else:
        with pytest.warns(MdnsLeftWarning, match=said + ".*another program"):
            mdns_watch.report(seen, "during the test")
    mdns_watch.report([], "during the test")  # nothing seen: nothing said


def _dns_query(source: str, destination: str, name: str) -> bytes:
    """A DNS query for `name`'s address, as the watch reads it."""
    question = b"".join(bytes([len(part)]) + part.encode() for part in name.split("."))
    message = struct.pack("!HHHHHH", 1, 0x0100, 1, 0, 0, 0) + question + b"\0\0\1\0\1"
    return _udp_frame(source, destination, 40000, 53) + message


def test_a_dns_query_that_left_is_a_warning_naming_it_even_under_ci(monkeypatch):
    seen = [Datagram("eth0", "192.0.2.2:40000", "10.255.255.53:53", asked="pypi.org")]
    monkeypatch.setenv("CI", "true")
    with pytest.warns(DnsLeftWarning, match="1 DNS query left .*asking for pypi.org"):
        mdns_watch.report(seen, "during the test")


def _udp_frame(source: str, destination: str, source_port: int, destination_port: int) -> bytes:
    """An IPv4 UDP packet as the watch's packet socket reads it (its IP header first)."""
    header = bytes([0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0])
    header += socket.inet_aton(source) + socket.inet_aton(destination)
    return header + struct.pack("!HHHH", source_port, destination_port, 8, 0)


def test_a_dns_query_that_happens_to_leave_from_port_5353_is_not_mdns():
    """Stop 50's CI run: a resolver's query (to port 53) picked 5353 as its free source port,
    and the watch failed a browser test for it. mDNS never goes to or from port 53."""
    outgoing = ("eth0", 0x0800, mdns_watch.PACKET_OUTGOING)
    query = _udp_frame("192.0.2.2", "10.255.255.53", 5353, 53)  # a DNS query from port 5353
    assert str(mdns_watch.parse(query, outgoing)) == (
        "192.0.2.2:5353 -> 10.255.255.53:53 on eth0, asking for ?"
    )
    asked = mdns_watch.parse(_dns_query("192.0.2.2", "10.255.255.53", "pypi.org"), outgoing)
    assert asked is not None and asked.asked == "pypi.org"
    answered = _udp_frame("10.255.255.53", "192.0.2.2", 53, 5353)
    assert mdns_watch.parse(answered, outgoing) is None
    announced = _udp_frame("192.0.2.2", "224.0.0.251", 5353, 5353)
    assert str(mdns_watch.parse(announced, outgoing)) == (
        "192.0.2.2:5353 -> 224.0.0.251:5353 on eth0"
    )
    asked_once = _udp_frame("192.0.2.2", "224.0.0.251", 40000, 5353)  # a one-shot query
    assert mdns_watch.parse(asked_once, outgoing) is not None
