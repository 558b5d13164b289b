"""Marker files that say which copy of a mirrored journal was lost, kept beside the survivor.

`<survivor>.copy-lost` holds JSON: the lost copy's path, why, and since when. Every process
serving the journal reads the markers at each transaction (two stat calls), so all of them drop
the same copy; a restarted server knows which copy is stale; `journal resync` removes them.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from adjudicator.durable import open_owner_only

SUFFIX = ".copy-lost"


def marker_path(copy_path: str) -> Path:
    return Path(str(copy_path) + SUFFIX)


def write(survivors: Iterable[str], role: str, lost_path: str, reason: str, since: str) -> bool:
    """Write the marker beside each survivor (durably, all or nothing per file); True if any
    was written."""
    body = json.dumps({"lost": lost_path, "role": role, "reason": reason, "since": since})
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


def read_all(copy_paths: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The lost copies named by markers beside any of `copy_paths`: lost path -> marker."""
    found: dict[str, dict[str, Any]] = {}
    for path in copy_paths:
        target = marker_path(path)
        try:
            body = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # none (the usual case), or half-written: the writer's own state holds
        if isinstance(body, dict) and isinstance(body.get("lost"), str):
            body.setdefault("reason", "")
            body.setdefault("since", "")
            found[body["lost"]] = body
    return found


def remove_all(copy_paths: Iterable[str]) -> None:
    """Remove every marker beside `copy_paths` (after a resync)."""
    for path in copy_paths:
        try:
            marker_path(path).unlink()
        except FileNotFoundError:
            pass
