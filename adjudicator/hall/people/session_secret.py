"""The web app's session secret: made on first run, kept in the data home, owner-only.

It signs the cookies of paired kiosks and signed-in staff, so a second laptop that takes the
hall over (`adjudicator kit open`) needs the same one: it is in the hall's kit.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from adjudicator import settings

FILE_NAME = "secret_key"


def path() -> Path:
    """`secret_key` in the data home."""
    return settings.data_home() / FILE_NAME


def load_or_create(where: Path | None = None) -> str:
    """Read the secret, creating it (mode 0600, exclusively) if no process has yet."""
    where = where or path()
    try:
        descriptor = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return where.read_text().strip()
    with os.fdopen(descriptor, "w") as out:
        out.write(secrets.token_hex(32))
        out.flush()
        os.fsync(out.fileno())
    return where.read_text().strip()
