"""The signed takeover statement: which laptop serves this journal since a takeover.

`adjudicator kit open` on a second laptop records, beside each copy of the journal
(`journal.sqlite3.takeover`, on the laptop's disk and on the USB stick), a statement signed with
the hall's key: the journal was taken over at row N (its hash), by the data home with this
install id (its host name shown), at this time, the takeover's number `seq` (one more than the
last one on the stick). It takes no journal number. A laptop that finds, beside any copy it
serves, a newer statement by another install does not judge: it refuses to start, naming the
laptop that took over and when, until its own `kit open` takes the journal back. A statement
the hall's key did not sign counts for nothing.
"""

from __future__ import annotations

import json
import secrets
import socket
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator import settings
from adjudicator.durable import read_regular, write_whole
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok

TYPE = "takeover"
SUFFIX = ".takeover"
INSTALL_FILE = "install-id"
MOST_BYTES = 8192


class TakenOver(DatabaseUnavailable):
    """Another laptop took this journal over: this one does not judge (nor write to it)."""


def install_id(create: bool = True) -> str | None:
    """This data home's install id (random, made once): who a takeover statement names. None
    when it has none and `create` is False (a read makes nothing)."""
    path = Path(settings.get("home")).expanduser() / INSTALL_FILE
    try:
        found = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        found = ""
    if len(found) == 32 and all(c in "0123456789abcdef" for c in found):
        return found
    if not create:
        return None
    made = secrets.token_hex(16)
    write_whole(path, made.encode("ascii"))
    return made


def host_name() -> str:
    """This laptop's host name, as a statement shows it."""
    return socket.gethostname()[:64] or "unknown"


def beside(copy_path: str) -> Path:
    return Path(str(copy_path) + SUFFIX)


def statement(
    key: SigningKey, journal_id: str, row: int, row_hash: str, install: str, seq: int
) -> dict[str, Any]:
    """The key's signed statement that `install` took journal `journal_id` over at `row`."""
    return key.sign(
        {
            "type": TYPE,
            "journal": journal_id,
            "row": row,
            "row_hash": row_hash,
            "install": install,
            "host": host_name(),
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "seq": seq,
        }
    )


def write(copies: Iterable[str], signed: dict[str, Any]) -> None:
    """Keep the statement beside each copy (written whole, synced, then renamed)."""
    body = json.dumps(signed, sort_keys=True).encode("utf-8")
    for copy in copies:
        write_whole(beside(copy), body)


def read(path: Path, public: Ed25519PublicKey | None) -> dict[str, Any] | None:
    """The statement in `path` if the hall's key signed it."""
    try:
        found = json.loads(read_regular(path, MOST_BYTES).decode("utf-8"))  # a FIFO: refused
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if public is None or not isinstance(found, dict) or found.get("type") != TYPE:
        return None
    if not isinstance(found.get("seq"), int) or not signature_ok(found, public):
        return None
    return found


def newest(copies: Iterable[str], public: Ed25519PublicKey | None) -> dict[str, Any] | None:
    """The newest signed statement beside any of `copies` (the highest `seq`), if any."""
    found = [read(beside(copy), public) for copy in copies]
    signed = [each for each in found if each is not None]
    return max(signed, key=lambda each: (each["seq"], str(each.get("at", "")))) if signed else None


def refuse_if_taken_over(
    copies: Iterable[str], public: Ed25519PublicKey | None, install: str | None
) -> dict[str, Any] | None:
    """Raise TakenOver if the newest statement names another install; else that statement."""
    latest = newest(copies, public)
    if latest is not None and latest.get("install") != install:
        raise TakenOver(refusal(latest))
    return latest


def refusal(latest: dict[str, Any]) -> str:
    """What a laptop that was taken over tells the director."""
    host = str(latest.get("host", "another laptop"))
    return (
        f"THIS HALL WAS TAKEN OVER: the laptop {host!r} (install "
        f"{str(latest.get('install', ''))[:8]}) ran `adjudicator kit open` at "
        f"{str(latest.get('at', ''))[:19].replace('T', ' ')} UTC, after row "
        f"{latest.get('row')}, and judges from then on. This laptop does not judge: two "
        f"laptops must never issue the same numbers. Leave the USB stick with {host!r}. To "
        "judge on this laptop again (only once that one has stopped for good), run "
        "`adjudicator kit open DIR` here, with the stick."
    )
