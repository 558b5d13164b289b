"""Watch that no mDNS datagram leaves the machine: a packet socket (AF_PACKET) on every interface
of the namespace it is made in, loopback aside, keeping each outgoing UDP datagram from or to
port 5353. A kernel filter (classic BPF) lets only those through, so the busy loopback of a test
costs nothing; the frames wait in the socket's buffer until `take()` reads them.

It also keeps each DNS query sent to port 53 (tests send nothing beyond this machine: a browser's
Google services, a look-up of a test's own address, a package index were each caught so), named
by the name it asks for; those are always a warning, never a failure, since the machine's own
programs may ask its resolver too.

`MdnsWatch()` needs root (CAP_NET_RAW); `MdnsWatch.missing_reason()` says why not. The fixtures
in tests/conftest.py watch every test with it, and `report` what they see: under CI (`CI` set,
where nothing else runs on the machine) a datagram fails the test; elsewhere it is a warning,
since the watch cannot tell the test's datagrams from those of another program on the same
machine (a desktop's avahi-daemon, another checkout's tests running at the same time).
"""

from __future__ import annotations

import ctypes
import os
import socket
import struct
import warnings
from dataclasses import dataclass

import pytest

MDNS_PORT = 5353
DNS_PORT = 53  # an ordinary DNS query may leave from port 5353 too: its source port is any free one
ETH_P_ALL = 0x0003
ETH_P_IP, ETH_P_IPV6 = 0x0800, 0x86DD
PACKET_OUTGOING = 4
SO_ATTACH_FILTER = 26
UDP = 17
# classic BPF: the instruction codes used below, and the kernel's ancillary fields
LD_W_ABS, LD_H_ABS, LD_B_ABS, LD_H_IND = 0x20, 0x28, 0x30, 0x48
LDX_B_MSH, JEQ_K, RET_K = 0xB1, 0x15, 0x06
AD_PROTOCOL, AD_PKTTYPE, AD_IFINDEX = 0xFFFFF000, 0xFFFFF004, 0xFFFFF008


@dataclass(frozen=True)
class Datagram:
    """One mDNS datagram seen leaving: the interface, and its addresses and ports; for a DNS
    query, the name it asks for (`asked`)."""

    interface: str
    source: str
    destination: str
    asked: str | None = None  # a DNS query's name; None: an mDNS datagram

    def __str__(self) -> str:
        said = f"{self.source} -> {self.destination} on {self.interface}"
        return said if self.asked is None else f"{said}, asking for {self.asked}"


def _endpoint(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def _program(loopback: int) -> list[tuple[int, int, int, int]]:
    """Accept outgoing UDP from or to port 5353, or to port 53, on any interface but `loopback`;
    drop the rest.
    (Loads are from the IP header: the socket is SOCK_DGRAM.)"""
    return _assemble(
        [
            (LD_W_ABS, None, None, AD_PKTTYPE),
            (JEQ_K, None, "drop", PACKET_OUTGOING),
            (LD_W_ABS, None, None, AD_IFINDEX),
            (JEQ_K, "drop", None, loopback),
            (LD_W_ABS, None, None, AD_PROTOCOL),
            (JEQ_K, "ipv4", None, ETH_P_IP),
            (JEQ_K, "ipv6", "drop", ETH_P_IPV6),
            "ipv4",
            (LD_B_ABS, None, None, 9),  # the protocol
            (JEQ_K, None, "drop", UDP),
            (LDX_B_MSH, None, None, 0),  # X = the header's length
            (LD_H_IND, None, None, 0),  # the source port
            (JEQ_K, "accept", None, MDNS_PORT),
            (LD_H_IND, None, None, 2),  # the destination port
            (JEQ_K, "accept", None, MDNS_PORT),
            (JEQ_K, "accept", "drop", DNS_PORT),
            "ipv6",
            (LD_B_ABS, None, None, 6),  # the next header (UDP right after the fixed header)
            (JEQ_K, None, "drop", UDP),
            (LD_H_ABS, None, None, 40),
            (JEQ_K, "accept", None, MDNS_PORT),
            (LD_H_ABS, None, None, 42),
            (JEQ_K, "accept", None, MDNS_PORT),
            (JEQ_K, "accept", "drop", DNS_PORT),
            "accept",
            (RET_K, None, None, 0x40000),
            "drop",
            (RET_K, None, None, 0),
        ]
    )


def _assemble(lines: list) -> list[tuple[int, int, int, int]]:
    """Classic BPF from instructions whose jumps name a label (None: the next instruction)."""
    labels, code = {}, []
    for line in lines:
        if isinstance(line, str):
            labels[line] = len(code)
        else:
            code.append(line)

    def offset(index: int, target: str | None) -> int:
        return 0 if target is None else labels[target] - index - 1

    return [(op, offset(i, jt), offset(i, jf), k) for i, (op, jt, jf, k) in enumerate(code)]


def _attach(sock: socket.socket, program: list[tuple[int, int, int, int]]) -> None:
    code = b"".join(struct.pack("HBBI", *line) for line in program)
    buffer = ctypes.create_string_buffer(code)
    fprog = struct.pack("HL", len(program), ctypes.addressof(buffer))
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)


def parse(frame: bytes, address: tuple) -> Datagram | None:
    """The mDNS datagram in an outgoing frame (an IP packet) not on loopback, else None."""
    interface, protocol, kind = address[0], address[1], address[2]
    if kind != PACKET_OUTGOING or interface == "lo":
        return None
    if protocol == ETH_P_IP and len(frame) >= 20 and frame[9] == UDP:
        header = (frame[0] & 0x0F) * 4
        ports = struct.unpack_from("!HH", frame, header) if len(frame) >= header + 4 else ()
        source, destination = socket.inet_ntoa(frame[12:16]), socket.inet_ntoa(frame[16:20])
    elif protocol == ETH_P_IPV6 and len(frame) >= 44 and frame[6] == UDP:
        header = 40
        ports = struct.unpack_from("!HH", frame, header)
        source = socket.inet_ntop(socket.AF_INET6, frame[8:24])
        destination = socket.inet_ntop(socket.AF_INET6, frame[24:40])
    else:
        return None
    if len(ports) != 2:
        return None
    endpoints = (interface, _endpoint(source, ports[0]), _endpoint(destination, ports[1]))
    if ports[1] == DNS_PORT:  # a query to a resolver (whatever its source port, 5353 too)
        return Datagram(*endpoints, asked=_asked(frame[header + 8 :]))
    if MDNS_PORT not in ports or DNS_PORT in ports:
        return None  # a resolver's answer, which a query sent first
    return Datagram(*endpoints)


def _asked(message: bytes) -> str:
    """The name a DNS query asks for ('?' where the message is cut short)."""
    labels, at = [], 12  # after the message's header
    while at < len(message) and message[at]:
        length = message[at]
        if length > 63 or at + 1 + length > len(message):
            return "?"
        labels.append(message[at + 1 : at + 1 + length].decode("ascii", "replace"))
        at += 1 + length
    return ".".join(labels) or "?"


class MdnsWatch:
    """Every mDNS datagram leaving this namespace's interfaces (loopback aside) from now on."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        _attach(self.sock, _program(socket.if_nametoindex("lo")))
        self.frames = 0
        self.early = self._read()  # frames that came in before the filter: kept if mDNS
        self.frames = 0  # every frame the filter let through since

    def take(self) -> list[Datagram]:
        """The mDNS datagrams seen leaving since the last `take()` (or since the start)."""
        found, self.early = self.early + self._read(), []
        return found

    def _read(self) -> list[Datagram]:
        found = []
        while True:
            try:
                frame, address = self.sock.recvfrom(65535, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return found
            self.frames += 1
            datagram = parse(frame, address)
            if datagram is not None:
                found.append(datagram)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> MdnsWatch:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @staticmethod
    def missing_reason() -> str | None:
        """Why no packet socket can be opened here (not root), or None when it can."""
        try:
            MdnsWatch().close()
        except OSError as exc:
            return f"no packet socket to watch for mDNS ({exc}): it needs root"
        return None


class MdnsLeftWarning(pytest.PytestWarning):
    """mDNS datagrams left the machine during a test, outside CI."""


class DnsLeftWarning(pytest.PytestWarning):
    """DNS queries left the machine during a test."""


def report(seen: list[Datagram], when: str) -> None:
    """Fail the test for the mDNS datagrams `seen` under CI; elsewhere, warn. Warn of the DNS
    queries."""
    queries = [datagram for datagram in seen if datagram.asked is not None]
    seen = [datagram for datagram in seen if datagram.asked is None]
    if queries:
        warnings.warn(
            DnsLeftWarning(
                f"{len(queries)} DNS quer{'y' if len(queries) == 1 else 'ies'} left this "
                f"machine {when}: " + "; ".join(map(str, queries[:5])) + ". Tests send nothing "
                "beyond this machine (unless another program on it asked)"
            ),
            stacklevel=2,
        )
    if not seen:
        return
    message = (
        f"{len(seen)} mDNS datagram(s) left this machine {when}: "
        + "; ".join(map(str, seen[:5]))
        + ". Run the hall's network in a namespace (support.netns)"
    )
    if os.environ.get("CI"):
        pytest.fail(message)
    warnings.warn(
        MdnsLeftWarning(message + ", unless another program on this machine sent them"),
        stacklevel=2,
    )
