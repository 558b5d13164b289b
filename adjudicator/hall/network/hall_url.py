"""The address kiosks open, for pairing links: set by hand, recorded by `adjudicator hall`,
or the address the request came to.

`adjudicator hall` records its https URL in the data home (hall/hall.json), so a pairing link
or sheet printed later, from the command line or the director's page, points at the hall.
ADJUDICATOR_PUBLIC_URL, when set, wins over the record.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

from adjudicator import settings
from adjudicator.settings import data_home


@dataclass(frozen=True)
class HallRecord:
    url: str  # what pairing links use: https://NAME.local:PORT, or an address if mDNS failed
    name: str
    port: int
    addresses: tuple[str, ...]
    mdns: bool
    # the trust page over plain HTTP (`--http-port`): http://NAME.local:8080, "" when off
    http_url: str = ""
    # its port (0: off; None: not recorded, by an earlier version): the kit carries it, so a
    # laptop that takes the hall over serves the trust page where the sheets send tablets
    http_port: int | None = None

    def trust_url(self) -> str:
        """Where a tablet first trusts the hall: over plain HTTP where the hall serves it so
        (no certificate warning), else over HTTPS."""
        return f"{(self.http_url or self.url).rstrip('/')}/hall/trust"


def record_path():
    return data_home() / "hall" / "hall.json"


def record(entry: HallRecord) -> None:
    """Remember where the hall serves (written whole, then renamed: never half a file)."""
    path = record_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(entry), indent=2) + "\n")
    os.replace(tmp, path)


def recorded() -> HallRecord | None:
    """Where `adjudicator hall` last served, or None (never run, or an unreadable record)."""
    try:
        data = json.loads(record_path().read_text())
        return HallRecord(
            url=str(data["url"]),
            name=str(data["name"]),
            port=int(data["port"]),
            addresses=tuple(str(a) for a in data["addresses"]),
            mdns=bool(data["mdns"]),
            http_url=_plain_url(data.get("http_url")),
            http_port=_port(data.get("http_port")),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def trust_address(base: str) -> str:
    """Where a printed sheet sends a tablet to trust the hall, for pairing links at `base`:
    the hall's plain-HTTP trust page where it records one for that address (no certificate
    warning), else the HTTPS one."""
    found = recorded()
    if found is not None and found.url.rstrip("/") == base.rstrip("/"):
        return found.trust_url()
    return f"{base.rstrip('/')}/hall/trust"


def public_url(fallback: str) -> str:
    """The base of pairing links: ADJUDICATOR_PUBLIC_URL, else the hall's record, else
    `fallback` (the address `serve` binds, or the one a request came to)."""
    if settings.get("public_url"):
        return settings.get("public_url").rstrip("/")
    found = recorded()
    if found is not None:
        return found.url.rstrip("/")
    return fallback.rstrip("/")


def _port(value) -> int | None:
    """The recorded plain-HTTP port, or None (not recorded, or not a port)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        return None
    return value


def _plain_url(value) -> str:
    """The recorded plain-HTTP URL, or "" (none recorded, or not an http:// URL)."""
    return value if isinstance(value, str) and value.startswith("http://") else ""
