"""The hall's name on the network: NAME.local and an `_https._tcp` service, by mDNS (zeroconf).

A network that blocks multicast (some guest Wi-Fi does) only means tablets type the address:
`announce` then returns the reason instead of raising, and serving goes on.
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass, field

from adjudicator.errors import AdjudicatorError

SERVICE_TYPE = "_https._tcp.local."
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


class HallNameError(AdjudicatorError):
    """The hall's name cannot be a network name."""


def check_name(name: str) -> str:
    """A hall name is one DNS label: lower-case letters, digits and '-', as in NAME.local."""
    if not _LABEL.fullmatch(name or ""):
        raise HallNameError(
            f"Invalid hall name {name!r}: use 1 to 63 lower-case letters, digits or '-' "
            "(not first or last), such as --name scrabble-hall; tablets open NAME.local."
        )
    return name


@dataclass
class Announcement:
    """NAME.local and its service, announced until `withdraw()`."""

    name: str
    port: int
    addresses: tuple[str, ...]
    error: str = ""
    _zeroconf: object = field(default=None, repr=False)
    _info: object = field(default=None, repr=False)

    @property
    def host(self) -> str:
        return f"{self.name}.local"

    @property
    def active(self) -> bool:
        return self._info is not None

    def withdraw(self) -> None:
        """Say goodbye on the network (tablets forget NAME.local), then close the sockets."""
        zc, info = self._zeroconf, self._info
        self._zeroconf = self._info = None
        if zc is None:
            return
        try:
            if info is not None:
                zc.unregister_service(info)
        except Exception:  # noqa: BLE001 - a network gone at shutdown must not stop the stop
            pass
        finally:
            zc.close()


def announce(name: str, port: int, addresses: tuple[str, ...]) -> Announcement:
    """Announce NAME.local -> `addresses` and an `_https._tcp` service on `port`."""
    from zeroconf import IPVersion, ServiceInfo, Zeroconf

    found = Announcement(check_name(name), port, tuple(addresses))
    info = ServiceInfo(
        SERVICE_TYPE,
        f"{name}.{SERVICE_TYPE}",
        port=port,
        addresses=[socket.inet_aton(a) for a in addresses],
        server=f"{name}.local.",
        properties={"path": "/", "about": "challenge adjudicator"},
    )
    zc = None
    try:
        zc = Zeroconf(interfaces=list(addresses), ip_version=IPVersion.V4Only)
        zc.register_service(info, allow_name_change=False)
    except Exception as exc:  # noqa: BLE001 - OSError, or zeroconf's own (a name taken, ...)
        if zc is not None:
            zc.close()
        found.error = _reason(exc)
        return found
    found._zeroconf, found._info = zc, info
    return found


def _reason(exc: Exception) -> str:
    kind = type(exc).__name__
    if kind == "NonUniqueNameException":
        return "another machine on this network already announces that name"
    text = str(exc) or kind
    return f"the network refused multicast ({text})"
