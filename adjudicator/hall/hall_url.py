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
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def public_url(fallback: str) -> str:
    """The base of pairing links: ADJUDICATOR_PUBLIC_URL, else the hall's record, else
    `fallback` (the address `serve` binds, or the one a request came to)."""
    if settings.get("public_url"):
        return settings.get("public_url").rstrip("/")
    found = recorded()
    if found is not None:
        return found.url.rstrip("/")
    return fallback.rstrip("/")
