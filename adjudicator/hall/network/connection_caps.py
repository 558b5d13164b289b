"""What each server worker refused or closed to keep room for the kiosks, by kind and by the
client address at fault, shared with the director's overview, /healthz and the log.

Each worker admits connections as kiosk/server/admission.py says: those that show no credential
share a bounded part of it, ADJUDICATOR_CONNECTIONS_PER_ADDRESS of them from one client address
(an IPv6 address counts by its /64, which one device can fill with addresses of its own), past
which a connection has a second to show a paired kiosk's credential; each request's head and
body arrive in time; a kiosk holds a few connections and one held poll. What a worker refused or
closed it notes here (`Refusals.note`, one of KINDS): it logs what it noted once a minute (with
the addresses at fault), and writes its counts to connection-caps/PID.json in the data home
(whole, then renamed: never half a file) at most every WRITE_SECONDS while they grow. The
overview and /healthz read every live worker's file: the counts since the workers started
(`totals`), the addresses noted lately (`recent`), and the addresses at their cap now (`current`).
"""

from __future__ import annotations

import ipaddress
import json
import os
import time
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from adjudicator import settings
from adjudicator.hall.network.name_claims import process_running
from adjudicator.wording import N_, NP_, Phrase

LOG_SECONDS = 60.0  # what a worker noted is logged at most this often
WRITE_SECONDS = 5.0  # a worker writes its file at most this often
SHOWN_SECONDS = 30.0  # noted within this long: an address at fault now
MOST_KEPT = 128  # (kind, address) notes a worker keeps (a flood from many is many lines anyway)
MOST_SHOWN = 8
ADDRESS_CAP = "address_cap"
NEW_CONNECTIONS = "new_connections"
# Every kind of refusal or closure, in the order the overview and /healthz give them; what each
# is, in the log's words.
KINDS = {
    ADDRESS_CAP: "past their address's cap, showing no kiosk's credential in time",
    "anonymous_full": (
        "showing no credential, closed to make room (such connections filled their share)"
    ),
    "kiosk_connections": (
        "showing a kiosk's credential already on as many connections as a kiosk opens"
    ),
    "held_poll": "held polls answered after a second, not held: their kiosk already had one held",
    NEW_CONNECTIONS: (
        "new, past the connections a second one address (or all) may open, closed before TLS"
    ),
    "slow_request": "with a request's head or body arriving too slowly",
    "too_large": "with a body larger than the page it was sent to accepts (413)",
    "answered_early": "answered before their body arrived, closed with it unread",
}
_SAID = {
    ADDRESS_CAP: NP_(
        "{n} connection past its address's cap showed no kiosk's credential within a second "
        "and was closed.",
        "{n} connections past their address's cap showed no kiosk's credential within a "
        "second and were closed.",
    ),
    "anonymous_full": NP_(
        "{n} connection showing no credential was closed to make room: such connections had "
        "filled their share of a server process.",
        "{n} connections showing no credential were closed to make room: such connections "
        "had filled their share of a server process.",
    ),
    "kiosk_connections": NP_(
        "{n} connection was refused: the kiosk's credential it showed already held as many "
        "connections as a kiosk opens.",
        "{n} connections were refused: the kiosk's credential they showed already held as "
        "many connections as a kiosk opens.",
    ),
    "held_poll": NP_(
        "{n} status poll was answered after a second, not held: its kiosk already had a poll held.",
        "{n} status polls were answered after a second, not held: their kiosk already had a "
        "poll held.",
    ),
    NEW_CONNECTIONS: NP_(
        "{n} new connection was closed before its TLS handshake: its address (or every "
        "address together) had opened more connections a second than the hall takes.",
        "{n} new connections were closed before their TLS handshake: their address (or every "
        "address together) had opened more connections a second than the hall takes.",
    ),
    "slow_request": NP_(
        "{n} connection was closed: a request's head or body came too slowly.",
        "{n} connections were closed: a request's head or body came too slowly.",
    ),
    "too_large": NP_(
        "{n} request was refused at once: its body was larger than the page it was sent to "
        "accepts.",
        "{n} requests were refused at once: their bodies were larger than the pages they were "
        "sent to accept.",
    ),
    "answered_early": NP_(
        "{n} connection was closed with its request's body unread: the request was refused "
        "before its body arrived.",
        "{n} connections were closed with their request's body unread: the request was "
        "refused before its body arrived.",
    ),
}
_FROM = N_("{said} Lately from {addresses}.")
_AT_CAP = N_(
    "{address} holds as many connections as one address may ({limit} in each server process): "
    "its connections past that are closed unless they show a paired kiosk's credential within "
    "a second ({count} so far, from {first} to {last} UTC). A laptop flooding the hall does "
    "this; so do many unpaired tablets behind one NAT address, and then "
    "ADJUDICATOR_CONNECTIONS_PER_ADDRESS must be raised. Paired kiosks and kiosks at other "
    "addresses are served as usual."
)
_MORE = NP_(
    "{n} more address is at its connection cap too.",
    "{n} more addresses are at their connection cap too.",
)
_MORE_ADDRESSES = NP_("{addresses} and {n} more", "{addresses} and {n} more")


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
    """An address noted for one kind: when it was first and last noted, and how often."""

    address: str
    first: float  # time.time()
    last: float
    count: int
    kind: str = ADDRESS_CAP

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
    """What one worker refused or closed: by kind since it started, by kind and address lately;
    when to log it, and its file for the overview."""

    def __init__(self, pid: int | None = None):
        self.pid = pid or os.getpid()
        self.totals: Counter[str] = Counter()
        self.found: dict[tuple[str, str], AtCap] = {}
        self.unlogged: Counter[tuple[str, str]] = Counter()  # since the last log line
        self.logged = -LOG_SECONDS
        self.dirty = False
        self.written = 0.0

    def note(self, address: str, now: float | None = None, kind: str = ADDRESS_CAP) -> None:
        """Note one connection (or poll) of `address` refused or closed, of `kind`."""
        now = time.time() if now is None else now
        self.totals[kind] += 1
        self.unlogged[kind, address] += 1
        seen = self.found.get((kind, address))
        if seen is None or now - seen.last > SHOWN_SECONDS:  # a new flood
            if len(self.found) >= MOST_KEPT:
                self._forget(now)
            seen = self.found[kind, address] = AtCap(address, now, now, 0, kind)
        seen.last, seen.count = now, seen.count + 1
        self.dirty = True

    def log_line(self, now: float | None = None) -> str | None:
        """What was noted since the last line, with the addresses at fault, once LOG_SECONDS
        have passed since that line (else None: it waits for the next)."""
        now = time.time() if now is None else now
        if not self.unlogged or now - self.logged < LOG_SECONDS:
            return None
        by_kind: dict[str, Counter[str]] = {}
        for (kind, address), count in self.unlogged.items():
            by_kind.setdefault(kind, Counter())[address] = count
        self.unlogged.clear()
        self.logged = now
        said = []
        for kind in KINDS:
            if kind in by_kind:
                addresses = by_kind[kind]
                named = ", ".join(f"{a} {n:,}" for a, n in addresses.most_common(MOST_SHOWN))
                more = len(addresses) - MOST_SHOWN
                named += f" and {more} more" if more > 0 else ""
                said.append(f"{sum(addresses.values()):,} {KINDS[kind]} ({named})")
        return "Connections this worker refused or closed to keep room for the kiosks: " + (
            "; ".join(said) + "."
        )

    def next_log(self, now: float | None = None) -> float:
        """Seconds until the log may be told again (0: now)."""
        now = time.time() if now is None else now
        return max(0.0, self.logged + LOG_SECONDS - now)

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
        kept = {"totals": dict(self.totals), "recent": [asdict(x) for x in self.found.values()]}
        tmp.write_text(json.dumps(kept) + "\n")
        os.replace(tmp, path)
        self.dirty, self.written = False, now

    def remove(self) -> None:
        """Take this worker's file away (it stops)."""
        (_folder() / f"{self.pid}.json").unlink(missing_ok=True)

    def _forget(self, now: float) -> None:
        """Drop the notes of addresses not noted lately (the oldest too, past MOST_KEPT)."""
        keep = sorted(
            (seen for seen in self.found.values() if now - seen.last <= SHOWN_SECONDS),
            key=lambda seen: seen.last,
        )[-(MOST_KEPT - 1) :]
        self.found = {(seen.kind, seen.address): seen for seen in keep}


@dataclass(frozen=True)
class Seen:
    """What the live workers refused or closed: counts by kind, and the addresses noted lately."""

    totals: dict[str, int]
    recent: tuple[AtCap, ...]  # each (kind, address) once, merged across the workers

    def of(self, kind: str) -> tuple[AtCap, ...]:
        return tuple(x for x in self.recent if x.kind == kind)


def seen(now: float | None = None) -> Seen:
    """Every live worker's counts (since each started) and the addresses it noted within
    SHOWN_SECONDS, each (kind, address) once."""
    now = time.time() if now is None else now
    totals: Counter[str] = Counter()
    merged: dict[tuple[str, str], AtCap] = {}
    try:
        paths = list(_folder().glob("*.json"))
    except OSError:
        paths = []
    for path in paths:
        if not (path.stem.isdigit() and process_running(int(path.stem))):
            continue
        counts, recent = _read(path)
        totals.update(counts)
        for one in recent:
            if now - one.last > SHOWN_SECONDS:
                continue
            other = merged.get((one.kind, one.address))
            if other is None:
                merged[one.kind, one.address] = one
            else:
                other.first, other.last = min(other.first, one.first), max(other.last, one.last)
                other.count += one.count
    ordered = tuple(merged[key] for key in sorted(merged))
    return Seen({kind: totals.get(kind, 0) for kind in KINDS}, ordered)


_totals: tuple[float, dict[str, int]] = (-1.0, {})


def totals(fresh_seconds: float = 1.0) -> dict[str, int]:
    """The live workers' counts by kind (`seen`), read again at most every `fresh_seconds`
    (for /healthz, which anyone may ask for often)."""
    global _totals
    at, counts = _totals
    moment = time.monotonic()
    if moment - at >= fresh_seconds or at < 0:
        counts = seen().totals
        _totals = (moment, counts)
    return dict(counts)


def current(now: float | None = None) -> tuple[AtCap, ...]:
    """The addresses at their cap in any live worker now (noted within SHOWN_SECONDS), each
    once, by address."""
    return seen(now).of(ADDRESS_CAP)


def phrases(limit: int, now: float | None = None) -> tuple[Phrase, ...]:
    """The overview's lines on the addresses at their cap: one per address (at most
    MOST_SHOWN, then a count)."""
    found = current(now)
    said = [one.phrase(limit) for one in found[:MOST_SHOWN]]
    if len(found) > MOST_SHOWN:
        said.append(Phrase.counted(_MORE, len(found) - MOST_SHOWN))
    return tuple(said)


def count_phrases(now: float | None = None) -> tuple[Phrase, ...]:
    """The overview's lines on what the workers refused or closed since they started: one per
    kind that happened, with the addresses noted for it lately."""
    found = seen(now)
    said = []
    for kind, count in found.totals.items():
        if not count:
            continue
        what = Phrase.counted(_SAID[kind], count)
        addresses = [one.address for one in found.of(kind)]
        if not addresses:  # none lately: the counts since the start alone
            said.append(what)
            continue
        named: str | Phrase = ", ".join(addresses[:MOST_SHOWN])
        if len(addresses) > MOST_SHOWN:
            named = Phrase.counted(_MORE_ADDRESSES, len(addresses) - MOST_SHOWN, addresses=named)
        said.append(Phrase.of(_FROM, said=what, addresses=named))
    return tuple(said)


def _folder() -> Path:
    return Path(settings.get("home")).expanduser() / "connection-caps"


def _read(path: Path) -> tuple[dict[str, int], list[AtCap]]:
    try:
        kept = json.loads(path.read_text())
        counts = {str(k): int(v) for k, v in kept["totals"].items() if k in KINDS}
        recent = [
            AtCap(str(o["address"]), float(o["first"]), float(o["last"]), int(o["count"]), kind)
            for o in kept["recent"]
            if (kind := str(o.get("kind", ADDRESS_CAP))) in KINDS
        ]
        return counts, recent
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}, []


def _utc(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M:%S")
