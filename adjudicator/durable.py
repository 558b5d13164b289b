"""Durable file steps the journal's copies and the lexicon store share: fsync, quiet remove."""

from __future__ import annotations

import os
from pathlib import Path


def fsync_path(path: Path | str) -> None:
    """Flush a file's or a folder's entry to disk (a folder after a rename into it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_if_there(path: Path | str) -> None:
    """Remove a file; a file already gone is not an error."""
    Path(path).unlink(missing_ok=True)
