"""This machine's addresses on the hall's network, read from its interfaces (no packet sent)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class HallAddresses:
    """Where the hall serves: its LAN addresses, or loopback alone with the reason why."""

    addresses: tuple[str, ...]
    note: str = ""

    @property
    def on_lan(self) -> bool:
        return self.addresses != (LOOPBACK,)


def interface_addresses() -> list[str]:
    """Every IPv4 address of every interface of this machine (ifaddr)."""
    import ifaddr

    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):  # IPv4; IPv6 comes as a (address, flow, scope) tuple
                found.append(ip.ip)
    return found


def interface_networks() -> list[ipaddress.IPv4Interface | ipaddress.IPv6Interface]:
    """Every address of every interface with its netmask (ifaddr), such as 192.0.2.2/24: IPv4
    and IPv6, loopback and link-local included."""
    import ifaddr

    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            address = ip.ip if isinstance(ip.ip, str) else ip.ip[0]  # IPv6: (address, flow, scope)
            try:
                found.append(ipaddress.ip_interface(f"{address.split('%')[0]}/{ip.network_prefix}"))
            except ValueError:
                continue
    return found


def own_addresses() -> frozenset[str]:
    """Every address of this machine, IPv4 and IPv6, as text (ifaddr; no packet sent)."""
    import ifaddr

    found = set()
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            try:
                found.add(str(ipaddress.ip_address(text.split("%")[0])))
            except ValueError:
                continue
    return frozenset(found)


def lan_addresses(found: Iterable[str]) -> list[str]:
    """The addresses a tablet can reach: IPv4, neither loopback nor link-local, sorted."""
    chosen = set()
    for text in found:
        try:
            address = ipaddress.IPv4Address(text)
        except ValueError:
            continue
        if address.is_loopback or address.is_link_local or address.is_unspecified:
            continue
        if address.is_multicast or address.is_reserved:
            continue
        chosen.add(address)
    return [str(a) for a in sorted(chosen)]


def hall_addresses(found: Iterable[str] | None = None) -> HallAddresses:
    """The LAN addresses to serve on; with none, loopback alone and a note saying why."""
    addresses = lan_addresses(interface_addresses() if found is None else found)
    if addresses:
        return HallAddresses(tuple(addresses))
    return HallAddresses(
        (LOOPBACK,),
        "No network address found: this laptop is on no network (is the Wi-Fi on, and the "
        "router connected?). Serving on this laptop only, where no tablet can reach it; "
        "join the hall's network and start `adjudicator hall` again.",
    )
