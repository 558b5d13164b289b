"""Client addresses at their connection cap, as each server worker found them, shared with the
director's overview.

Each worker lets one client address hold at most ADJUDICATOR_CONNECTIONS_PER_ADDRESS open
connections (kiosk/server/capped_server.py; an IPv6 address counts by its /64, which one device can
fill with addresses of its own) and closes the next ones at once. What a worker refused it notes
here (`Refusals`): the log hears of an address once a minute, and the worker writes what it
refused to connection-caps/PID.json in the data home (whole, then renamed: never half a file)
at most every WRITE_SECONDS while refusals go on. The overview reads every live worker's file
(`current`): an address refused within SHOWN_SECONDS is at its cap.
"""

from __future__ import annotations

import ipaddress
import json
import os
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from adjudicator import settings
from adjudicator.hall.network.name_claims import process_running
from adjudicator.wording import N_, NP_, Phrase

LOG_SECONDS = 60.0  # an address is logged at most this often, whatever it sends
WRITE_SECONDS = 5.0  # a worker writes its file at most this often
SHOWN_SECONDS = 30.0  # refused within this long: at its cap now
MOST_KEPT = 64  # addresses a worker keeps notes of (a flood from many is many lines anyway)
MOST_SHOWN = 8
_AT_CAP = N_(
    "{address} holds as many connections as one address may ({limit} in each server process): "
    "its connections past that are closed at once ({count} so far, from {first} to {last} UTC). "
    "A laptop flooding the hall does this; so do many tablets behind one NAT address, and then "
    "ADJUDICATOR_CONNECTIONS_PER_ADDRESS must be raised. Kiosks at other addresses are served "
    "as usual."
)
_MORE = NP_(
    "{n} more address is at its connection cap too.",
    "{n} more addresses are at their connection cap too.",
)


def address_key(host: str) -> str:
    """What one client is counted by: an IPv4 address, or an IPv6 address's /64 (an IPv4
    address mapped into IPv6 as IPv4; a zone such as `%eth0` dropped)."""
    try:
        found = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host or "local"  # a Unix socket's peer
    if isinstance(found, ipaddress.IPv6Address):
        if found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(ipaddress.IPv6Network((found, 64), strict=False))
    return str(found)


@dataclass
class AtCap:
    """An address at its cap: when its connections were first and last refused, and how many."""

    address: str
    first: float  # time.time()
    last: float
    count: int

    def phrase(self, limit: int) -> Phrase:
        return Phrase.of(
            _AT_CAP,
            address=self.address,
            limit=limit,
            count=self.count,
            first=_utc(self.first),
            last=_utc(self.last),
        )


class Refusals:
    """What one worker refused, by address: when to log it, and its file for the overview."""

    def __init__(self, pid: int | None = None):
        self.pid = pid or os.getpid()
        self.found: dict[str, AtCap] = {}
        self.logged: dict[str, float] = {}
        self.dirty = False
        self.written = 0.0

    def note(self, address: str, now: float | None = None) -> AtCap | None:
        """Note one refused connection; the address's notes when this one should be logged
        (its first, or LOG_SECONDS since it was last logged), else None."""
        now = time.time() if now is None else now
        seen = self.found.get(address)
        if seen is None or now - seen.last > SHOWN_SECONDS:  # a new flood
            if len(self.found) >= MOST_KEPT:
                self._forget(now)
            seen = self.found[address] = AtCap(address, now, now, 0)
        seen.last, seen.count = now, seen.count + 1
        self.dirty = True
        if now - self.logged.get(address, -LOG_SECONDS) >= LOG_SECONDS:
            self.logged[address] = now
            return seen
        return None

    def next_write(self, now: float | None = None) -> float:
        """Seconds until the file may be written again (0: now)."""
        now = time.time() if now is None else now
        return max(0.0, self.written + WRITE_SECONDS - now)

    def write(self, now: float | None = None) -> None:
        """Write this worker's file (whole, then renamed)."""
        now = time.time() if now is None else now
        self._forget(now)
        folder = _folder()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = folder / f"{self.pid}.json"
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps([asdict(seen) for seen in self.found.values()]) + "\n")
        os.replace(tmp, path)
        self.dirty, self.written = False, now

    def remove(self) -> None:
        """Take this worker's file away (it stops)."""
        (_folder() / f"{self.pid}.json").unlink(missing_ok=True)

    def _forget(self, now: float) -> None:
        """Drop the notes of addresses not refused lately (the oldest too, past MOST_KEPT)."""
        keep = sorted(
            (seen for seen in self.found.values() if now - seen.last <= SHOWN_SECONDS),
            key=lambda seen: seen.last,
        )[-(MOST_KEPT - 1) :]
        self.found = {seen.address: seen for seen in keep}
        self.logged = {address: at for address, at in self.logged.items() if now - at < LOG_SECONDS}


def current(now: float | None = None) -> tuple[AtCap, ...]:
    """The addresses at their cap in any live worker now (refused within SHOWN_SECONDS), each
    once, by address."""
    now = time.time() if now is None else now
    merged: dict[str, AtCap] = {}
    try:
        paths = list(_folder().glob("*.json"))
    except OSError:
        return ()
    for path in paths:
        if not (path.stem.isdigit() and process_running(int(path.stem))):
            continue
        for seen in _read(path):
            if now - seen.last > SHOWN_SECONDS:
                continue
            other = merged.get(seen.address)
            if other is None:
                merged[seen.address] = seen
            else:
                other.first, other.last = min(other.first, seen.first), max(other.last, seen.last)
                other.count += seen.count
    return tuple(merged[address] for address in sorted(merged))


def phrases(limit: int, now: float | None = None) -> tuple[Phrase, ...]:
    """The overview's lines: one per address at its cap (at most MOST_SHOWN, then a count)."""
    found = current(now)
    said = [seen.phrase(limit) for seen in found[:MOST_SHOWN]]
    if len(found) > MOST_SHOWN:
        said.append(Phrase.counted(_MORE, len(found) - MOST_SHOWN))
    return tuple(said)


def _folder() -> Path:
    return Path(settings.get("home")).expanduser() / "connection-caps"


def _read(path: Path) -> list[AtCap]:
    try:
        return [
            AtCap(str(o["address"]), float(o["first"]), float(o["last"]), int(o["count"]))
            for o in json.loads(path.read_text())
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _utc(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M:%S")
