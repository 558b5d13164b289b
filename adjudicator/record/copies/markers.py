"""Marker files that say which copy of a mirrored journal was lost, kept beside the survivor.

`<survivor>.copy-lost` holds the lost copy's path, its role, why, since when and (for a copy
that disagreed with the chain) the row where it parts, signed with the hall's key. Every
process serving the journal reads the markers at each transaction (two failed opens while
there are none), so all of them drop the same copy; a restarted server knows which copy is
stale; `journal resync` removes them. A marker that the hall's key did not sign (written by
hand on the stick) drops nothing: it is reported, as forged, and otherwise ignored.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from adjudicator.durable import open_owner_only
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok

SUFFIX = ".copy-lost"
TYPE = "copy-lost"
RESYNCED_SUFFIX = ".resynced"  # a copy rebuilt while serving: processes open it afresh
RESYNCED_TYPE = "copy-resynced"
_VERIFIED: dict[tuple[bytes, bytes], bool] = {}  # (public key, marker bytes) -> signed by it
_VERIFIED_LOCK = threading.Lock()


@dataclass
class Markers:
    """The markers beside the copies: those the hall signed (by the lost copy's path) and
    those it did not (by the marker's own path, with the copy they name as lost)."""

    signed: dict[str, dict[str, Any]] = field(default_factory=dict)
    forged: dict[str, str] = field(default_factory=dict)


def marker_path(copy_path: str) -> Path:
    return Path(str(copy_path) + SUFFIX)


def resynced_path(copy_path: str) -> Path:
    return Path(str(copy_path) + RESYNCED_SUFFIX)


def write_resynced(copy_paths: Iterable[str], key: SigningKey) -> None:
    """Say, signed, that the copies were just rebuilt (a new token each time): a serving
    process opens them afresh instead of taking the rebuilt file for one swapped under it."""
    body = key.sign({"type": RESYNCED_TYPE, "token": os.urandom(16).hex()})
    for path in copy_paths:
        try:
            target = resynced_path(path)
            partial = target.with_name(f"{target.name}.{os.getpid()}")
            fd = open_owner_only(partial, os.O_WRONLY | os.O_TRUNC)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(body, handle)
            os.replace(partial, target)
        except OSError:
            continue


def remove_resynced(copy_paths: Iterable[str]) -> None:
    """Remove the resync notes (when a server starts: its processes open the copies afresh)."""
    for path in copy_paths:
        resynced_path(path).unlink(missing_ok=True)


def resync_tokens(copy_paths: Iterable[str], public: Ed25519PublicKey | None) -> frozenset[str]:
    """The tokens of the signed resync notes beside the copies."""
    tokens = set()
    for path in copy_paths:
        raw = _read(path + RESYNCED_SUFFIX)
        if raw is None:
            continue  # none: the usual case
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        if isinstance(body, dict) and body.get("type") == RESYNCED_TYPE:
            if _signed(raw, body, public):
                tokens.add(str(body.get("token")))
    return frozenset(tokens)


def write(survivors: Iterable[str], fields: dict[str, Any], key: SigningKey) -> bool:
    """Write the signed marker beside each survivor (durably, all or nothing per file); True
    if any was written. `fields`: lost, role, reason, since, and row (or None)."""
    body = json.dumps(key.sign({"type": TYPE, **fields}), sort_keys=True)
    written = False
    for survivor in survivors:
        target = marker_path(survivor)
        partial = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}")
        try:
            fd = open_owner_only(partial, os.O_WRONLY | os.O_TRUNC)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(body)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(partial, target)
            written = True
        except OSError:
            continue
    return written


def read_all(copy_paths: Iterable[str], public: Ed25519PublicKey | None) -> Markers:
    """The markers beside any of `copy_paths`, signed or not."""
    found = Markers()
    for path in copy_paths:
        target = path + SUFFIX
        raw = _read(target)
        if raw is None:
            continue  # none: the usual case
        body = _parse(raw)
        if body is not None and _signed(raw, body, public):
            found.signed[body["lost"]] = body
        else:
            found.forged[target] = body["lost"] if body is not None else ""
    return found


def _read(path: str) -> bytes | None:
    """A small file's bytes, or None if there is none (one failed open: read at every
    transaction, so no pathlib and no buffered file object)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, 65536)
    except OSError:
        return None
    finally:
        os.close(fd)


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(body, dict) or not isinstance(body.get("lost"), str):
        return None
    body.setdefault("reason", "")
    body.setdefault("since", "")
    return body


def _signed(raw: bytes, body: dict[str, Any], public: Ed25519PublicKey | None) -> bool:
    """Whether the hall's key signed this marker (each text is verified once per process)."""
    if public is None:
        return False  # no key yet: the hall signed nothing
    cache_key = (public.public_bytes(Encoding.Raw, PublicFormat.Raw), raw)
    with _VERIFIED_LOCK:
        known = _VERIFIED.get(cache_key)
    if known is None:
        known = body.get("type") in (TYPE, RESYNCED_TYPE) and signature_ok(body, public)
        with _VERIFIED_LOCK:
            if len(_VERIFIED) > 64:
                _VERIFIED.clear()
            _VERIFIED[cache_key] = known
    return known


def forged_warning(marker: str, names: str) -> str:
    """What the director is told of a marker the hall's key did not sign."""
    return (
        f"The marker file {marker} says that the copy {names or '(none named)'} is lost, but it "
        "is not signed with this hall's key: it was ignored, and both copies are still "
        "written. It may have been written by hand (on the USB stick?): remove it, and find "
        "out who wrote it."
    )


def remove_all(copy_paths: Iterable[str]) -> None:
    """Remove every marker beside `copy_paths` (after a resync)."""
    for path in copy_paths:
        try:
            marker_path(path).unlink()
        except FileNotFoundError:
            pass
