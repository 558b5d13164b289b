"""The hall's name on the network: NAME.local and an `_https._tcp` service, by mDNS (zeroconf).

python-zeroconf probes a service's name before announcing it, never a host's address records,
so another device could answer for NAME.local unseen. `HallName` therefore listens, for as long
as the hall serves, to every A and AAAA record for NAME.local on the network, and `ask()` sends
the question itself (at start, before announcing, and every few seconds after): the hall
compares the addresses it hears with its own (name_claims.py).

A network that blocks multicast (some guest Wi-Fi does) only means tablets type the address:
`open_name` and `announce` then return the reason instead of raising, and serving goes on.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from dataclasses import dataclass, field

from adjudicator.errors import AdjudicatorError

SERVICE_TYPE = "_https._tcp.local."
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
# DNS numbers (RFC 1035, 3596, 6762): a query's flags, the record types A and AAAA, class IN
_QUERY, _A, _AAAA, _IN = 0x0000, 1, 28, 1
MOST_KEPT = 64  # addresses heard for the name, at most


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
class HallName:
    """NAME.local on the network: who answers for it (heard since `open_name`), and the hall's
    own announcement of it once `register()` succeeds, until `withdraw()`."""

    name: str
    port: int
    addresses: tuple[str, ...]
    error: str = ""
    _zeroconf: object = field(default=None, repr=False)
    _info: object = field(default=None, repr=False)
    _heard: object = field(default=None, repr=False)

    @property
    def host(self) -> str:
        return f"{self.name}.local"

    @property
    def active(self) -> bool:
        """Whether the hall announces NAME.local now."""
        return self._info is not None

    @property
    def listening(self) -> bool:
        """Whether the hall hears the network (multicast works here)."""
        return self._zeroconf is not None

    def ask(self) -> None:
        """Ask the network who answers for NAME.local (A and AAAA); answers arrive in `heard`."""
        from zeroconf import DNSOutgoing, DNSQuestion

        if self._zeroconf is None:
            return
        query = DNSOutgoing(_QUERY)
        for kind in (_A, _AAAA):
            query.add_question(DNSQuestion(f"{self.host}.", kind, _IN))
        try:
            self._zeroconf.send(query)
        except Exception:  # noqa: BLE001 - a network gone for a moment: ask again next time
            pass

    def heard(self) -> dict[str, tuple[float, float]]:
        """Every address an answer for NAME.local has carried: (first, last) time heard."""
        return self._heard.snapshot() if self._heard is not None else {}

    def register(self) -> None:
        """Announce NAME.local -> the hall's addresses and its `_https._tcp` service."""
        from zeroconf import ServiceInfo

        if self._zeroconf is None or self._info is not None:
            return
        info = ServiceInfo(
            SERVICE_TYPE,
            f"{self.name}.{SERVICE_TYPE}",
            port=self.port,
            addresses=[socket.inet_aton(a) for a in self.addresses],
            server=f"{self.host}.",
            properties={"path": "/", "about": "challenge adjudicator"},
        )
        try:
            self._zeroconf.register_service(info, allow_name_change=False)
        except Exception as exc:  # noqa: BLE001 - zeroconf's own (a service name taken, ...)
            self.error = _reason(exc)
            if type(exc).__name__ == "NonUniqueNameException":
                self._note_service_owner(info.name)
            return
        self._info = info

    def _note_service_owner(self, service: str) -> None:
        """Another device announces the hall's service name: its addresses count as heard."""
        try:
            other = self._zeroconf.get_service_info(SERVICE_TYPE, service, timeout=2000)
        except Exception:  # noqa: BLE001 - no answer in time: the error already says why
            return
        for address in other.parsed_addresses() if other is not None else ():
            self._heard.note(address)

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


def open_name(name: str, port: int, addresses: tuple[str, ...]) -> HallName:
    """Listen on the hall's addresses for answers about NAME.local; announce nothing yet."""
    from zeroconf import IPVersion, Zeroconf

    found = HallName(check_name(name), port, tuple(addresses))
    zc = None
    try:
        zc = Zeroconf(interfaces=list(addresses), ip_version=IPVersion.V4Only)
        heard = _heard_listener(found.host)
        zc.add_listener(heard, None)
    except Exception as exc:  # noqa: BLE001 - OSError, or zeroconf's own
        if zc is not None:
            zc.close()
        found.error = _reason(exc)
        return found
    found._zeroconf, found._heard = zc, heard
    return found


def announce(name: str, port: int, addresses: tuple[str, ...]) -> HallName:
    """Announce NAME.local -> `addresses` and an `_https._tcp` service on `port`."""
    found = open_name(name, port, addresses)
    found.register()
    return found


def _heard_listener(host: str):
    """A zeroconf listener keeping every address an A or AAAA answer for `host` carries."""
    from zeroconf import RecordUpdateListener

    class Heard(RecordUpdateListener):
        def __init__(self) -> None:
            self.name = f"{host}.".lower()
            self.lock = threading.Lock()
            self.seen: dict[str, tuple[float, float]] = {}

        def async_update_records(self, zc, now, records) -> None:
            for update in records:
                record = update.new
                if record.type not in (_A, _AAAA) or record.name.lower() != self.name:
                    continue
                if not record.ttl:  # a goodbye: that device stops answering
                    continue
                family = socket.AF_INET if record.type == _A else socket.AF_INET6
                try:
                    address = socket.inet_ntop(family, record.address)
                except (OSError, ValueError):
                    continue
                self.note(address)

        def note(self, address: str) -> None:
            moment = time.time()
            with self.lock:
                if address not in self.seen and len(self.seen) >= MOST_KEPT:
                    return  # a flood of addresses: the ones kept already tell the story
                first = self.seen.get(address, (moment, moment))[0]
                self.seen[address] = (first, moment)

        def async_update_records_complete(self) -> None:
            return None

        def snapshot(self) -> dict[str, tuple[float, float]]:
            with self.lock:
                return dict(self.seen)

    return Heard()


def _reason(exc: Exception) -> str:
    kind = type(exc).__name__
    if kind == "NonUniqueNameException":
        return "another machine on this network already announces that name"
    text = str(exc) or kind
    return f"the network refused multicast ({text})"
