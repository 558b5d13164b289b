"""Other devices answering for the hall's name, as the running hall found them, shared with its
workers.

`adjudicator hall` hears every answer for NAME.local (mdns.py); an answer that carries an address
not of this machine is another device claiming the name. The supervising process writes what it
found to hall/name-claims.json in the data home (whole, then renamed: never half a file), and the
workers, where /healthz and the director's overview run, read it back: a stat per read, the file
parsed again only when it changed. A file left by a hall that is no longer running is ignored.
Another laptop of this hall that told this one directly that it serves too (peers.py) is named
beside them (`phrases_now`, `warnings_now`): so both laptops warn, whichever answers for the name.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from adjudicator import settings
from adjudicator.hall.network import peers
from adjudicator.settings import data_home
from adjudicator.wording import N_, Phrase, utc_time

MOST_SHOWN = 8
_NOT_ANNOUNCED = N_(
    "Another device ({address}) answers for {host} (heard {first} to {last} UTC), so the hall "
    "does not announce that name: pairing links and sheets point at {url}. Find that device, "
    "or restart the hall with another --name."
)
_ANSWERS_TOO = N_(
    "Another device ({address}) answers for {host} too (heard {first} to {last} UTC): a tablet "
    "that opens {host} may reach it instead of the hall. Pairing links and sheets printed from "
    "now on point at {url}. Find that device, or restart the hall with another --name."
)

_SAME_CA = N_(
    "Another laptop ({address}) answers for {host} with this hall's own certificate authority "
    "(heard {first} to {last} UTC): two laptops may be serving this hall, and only one may "
    "judge. Stop the one that should not: a laptop that was taken over judges again only "
    "through its own `adjudicator kit open`."
)


_TOLD_JUDGING = N_(
    "Another laptop ({address}, {laptop}) told this one that it serves this hall too, with the "
    "hall's own key (heard {first} to {last} UTC), and judges: two laptops may be serving this "
    "hall, and only one may judge. Stop the one that should not: a laptop that was taken over "
    "judges again only through its own `adjudicator kit open`."
)
_TOLD_WAITING = N_(
    "Another laptop ({address}, {laptop}) told this one that it serves this hall too, with the "
    "hall's own key (heard {first} to {last} UTC), but does not judge: two laptops may be "
    "serving this hall, and only one may judge. Stop the one that should not: a laptop that "
    "was taken over judges again only through its own `adjudicator kit open`."
)


@dataclass(frozen=True)
class OtherDevice:
    """An address that answered for the hall's name, and when it was first and last heard;
    `same_ca`: it serves the hall's port with a certificate this hall's own CA signed (another
    laptop of this hall: a takeover's first laptop, or its second)."""

    address: str
    first_heard: str  # ISO times, UTC
    last_heard: str
    same_ca: bool = False


@dataclass(frozen=True)
class NameClaims:
    """What the running hall (process `pid`) found about its name."""

    name: str
    announced: bool  # False: another device answered before the start, so the hall did not
    url: str  # where pairing links point now
    others: tuple[OtherDevice, ...]
    pid: int

    @property
    def host(self) -> str:
        return f"{self.name}.local"

    def phrases(self) -> tuple[Phrase, ...]:
        """One message per other device, for the overview (translated where it is shown)."""
        text = _ANSWERS_TOO if self.announced else _NOT_ANNOUNCED
        return tuple(
            Phrase.of(
                _SAME_CA if other.same_ca else text,
                address=other.address,
                host=self.host,
                first=utc_time(other.first_heard),
                last=utc_time(other.last_heard),
                url=self.url,
            )
            for other in self.others
        )

    def warnings(self) -> list[str]:
        """The same messages in English: /healthz's `warnings` and the hall's log."""
        return [phrase.render(_same, None) for phrase in self.phrases()]


def phrases_now() -> tuple[Phrase, ...]:
    """Every other device answering for the hall's name, and every other laptop of this hall
    that told this one it serves too (peers.py), one message each: the overview's."""
    claims = current()
    told = peers.current()
    addresses = {peer.address for peer in told}
    found = []
    if claims is not None:
        for other, phrase in zip(claims.others, claims.phrases(), strict=True):
            if other.address not in addresses:  # told directly: said once, below
                found.append(phrase)
    for peer in told:
        found.append(
            Phrase.of(
                _TOLD_JUDGING if peer.judging else _TOLD_WAITING,
                address=peer.address,
                laptop=_laptop(peer),
                first=utc_time(peer.first_heard),
                last=utc_time(peer.last_heard),
            )
        )
    return tuple(found)


def warnings_now() -> list[str]:
    """The same messages in English: /healthz's `warnings`."""
    return [phrase.render(_same, None) for phrase in phrases_now()]


def _laptop(peer: peers.Peer) -> str:
    """A laptop as the director is shown it: `'vm' (install 3f2a9c1e)` (record/journal/writer)."""
    shown = f"install {peer.install[:8] or 'unknown'}"
    return f"{peer.host!r} ({shown})" if peer.host else shown


def others_from(heard: dict[str, tuple[float, float]], own: frozenset[str]):
    """The devices among `heard` (address -> first, last time heard) that are not this machine,
    the first heard first (at most MOST_SHOWN: a device answering with a thousand addresses is
    one conflict, not a thousand lines)."""
    others = sorted(
        (first, address, last) for address, (first, last) in heard.items() if address not in own
    )
    return tuple(
        OtherDevice(address, _iso(first), _iso(last))
        for first, address, last in others[:MOST_SHOWN]
    )


def state_path() -> Path:
    """hall/name-claims.json in the data home (not made here: a read must cost a stat only)."""
    return _path_in(settings.get("home"))


@functools.lru_cache(maxsize=8)
def _path_in(home: str) -> Path:
    return Path(home).expanduser() / "hall" / "name-claims.json"


def write(claims: NameClaims) -> None:
    """Share what the hall found with its workers (written whole, then renamed)."""
    data_home()  # made if missing
    path = state_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    data = asdict(claims)
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


def clear() -> None:
    """Forget what an earlier run found (at the hall's start and stop)."""
    try:
        state_path().unlink()
    except FileNotFoundError:
        pass


_cache_lock = threading.Lock()
_cache: tuple[tuple, NameClaims | None] = ((), None)


def current() -> NameClaims | None:
    """What the running hall found about its name; None with no running hall (or no file)."""
    global _cache
    path = state_path()
    try:
        st = path.stat()
        signature = (st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        return None
    with _cache_lock:
        if _cache[0] != signature:
            _cache = (signature, _read(path))
        claims = _cache[1]
    if claims is None or not process_running(claims.pid):
        return None
    return claims


def _read(path) -> NameClaims | None:
    try:
        data = json.loads(path.read_text())
        return NameClaims(
            name=str(data["name"]),
            announced=bool(data["announced"]),
            url=str(data["url"]),
            others=tuple(
                OtherDevice(
                    str(o["address"]),
                    str(o["first_heard"]),
                    str(o["last_heard"]),
                    o.get("same_ca") is True,
                )
                for o in data["others"]
            ),
            pid=int(data["pid"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def process_running(pid: int) -> bool:
    """Whether process `pid` runs (a file it left is ignored once it is gone)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it runs, as another user
    return True


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds")


def _same(text: str) -> str:
    return text
