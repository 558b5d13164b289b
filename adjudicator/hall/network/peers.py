"""Two laptops of one hall hear each other: the note one laptop sends another it heard answer for
the hall's name with the hall's own CA, and the notes a hall was sent.

A laptop that hears another answer for NAME.local and serve the hall's port with a certificate
the hall's CA signed tells it so directly: `POST /hall/peer` at that address, over HTTPS checked
against the hall's CA, a note signed with the hall's key (hall/hall_peers.py signs and checks;
nothing here knows the key). The laptop told keeps what it heard in `hall/peers.json` in its
data home (written whole, then renamed), where /healthz, the overview and the log read it
(name_claims.py): so both laptops warn, whichever started first, and whichever was silent on
the name. A note is shown while it is fresh (FRESH_SECONDS: the teller repeats itself while it
serves), and the file is cleared at each start and stop of the hall.
"""

from __future__ import annotations

import json
import os
import socket
import ssl
import threading
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adjudicator import settings

PATH = "/hall/peer"
FRESH_SECONDS = 120  # a note not repeated for this long is no longer shown
MOST_BYTES = 16 * 1024  # a note or its answer
MOST_KEPT = 8  # a flood of notes from many addresses is one conflict, not a thousand lines
_lock = threading.Lock()


@dataclass(frozen=True)
class Peer:
    """Another laptop of this hall that told this one it serves too: where, who, since when."""

    address: str
    install: str
    host: str
    judging: bool
    first_heard: str  # ISO times, UTC
    last_heard: str


def state_path() -> Path:
    return Path(settings.get("home")).expanduser() / "hall" / "peers.json"


_cache: tuple[tuple, dict[str, dict[str, Any]]] = ((), {})


def _read() -> dict[str, dict[str, Any]]:
    """The notes kept (a stat per read: the file is parsed again only when it changed)."""
    global _cache
    path = state_path()
    try:
        st = path.stat()
    except OSError:
        return {}
    signature = (str(path), st.st_ino, st.st_mtime_ns, st.st_size)
    if _cache[0] == signature:
        return dict(_cache[1])
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    found = found if isinstance(found, dict) else {}
    _cache = (signature, found)
    return dict(found)


def heard(address: str, install: str, host: str, judging: bool) -> bool:
    """Keep a note another laptop sent; True if that laptop was not heard (freshly) before."""
    now = time.time()
    with _lock:
        known = {a: p for a, p in _read().items() if isinstance(p, dict)}
        earlier = known.get(address)
        fresh = earlier is not None and now - float(earlier.get("last", 0)) <= FRESH_SECONDS
        known[address] = {
            "install": install,
            "host": host,
            "judging": judging,
            "first": float(earlier.get("first", now)) if fresh else now,
            "last": now,
        }
        newest = sorted(known.items(), key=lambda item: -float(item[1].get("last", 0)))
        _write(dict(newest[:MOST_KEPT]))
    return not fresh


def _write(found: dict[str, Any]) -> None:
    path = state_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
    partial.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)


def current(now: float | None = None) -> tuple[Peer, ...]:
    """The laptops that told this one they serve the hall, heard within FRESH_SECONDS."""
    now = time.time() if now is None else now
    found = []
    for address, note in sorted(_read().items()):
        try:
            first, last = float(note["first"]), float(note["last"])
            if now - last > FRESH_SECONDS:
                continue
            found.append(
                Peer(
                    str(address),
                    str(note["install"]),
                    str(note["host"]),
                    note.get("judging") is True,
                    _iso(first),
                    _iso(last),
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    return tuple(found)


def clear() -> None:
    """Forget what an earlier run was told (at the hall's start and stop)."""
    state_path().unlink(missing_ok=True)


def tell(
    address: str, port: int, ca_cert: Path, note: dict[str, Any], timeout: float = 3.0
) -> dict[str, Any] | None:
    """Send `note` (signed) to the laptop at `address`:`port`, trusting only the hall's CA;
    its answer (a JSON object), or None when it did not take the note."""
    import http.client

    context = ssl.create_default_context(cafile=str(ca_cert))
    context.check_hostname = False  # its certificate names its own addresses: the CA decides
    body = json.dumps(note).encode("utf-8")
    try:
        raw = socket.create_connection((address, port), timeout=timeout)
        connection = http.client.HTTPSConnection(address, port, timeout=timeout, context=context)
        connection.sock = context.wrap_socket(raw)
        try:
            connection.request(
                "POST", PATH, body=body, headers={"Content-Type": "application/json"}
            )
            response = connection.getresponse()
            answer = response.read(MOST_BYTES + 1)
        finally:
            connection.close()
    except (OSError, http.client.HTTPException, ValueError):
        return None
    if response.status != 200 or len(answer) > MOST_BYTES:
        return None
    try:
        found = json.loads(answer)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds")


def to_dict(peer: Peer) -> dict[str, Any]:
    return asdict(peer)
