"""The app's secret key: made on first run, kept in the data home, readable by its owner only."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask

from adjudicator import settings


def secret_key_path() -> Path:
    return settings.data_home() / "secret_key"


def load_or_create_secret_key(path: Path | None = None) -> str:
    """Read the key, creating it (mode 0600, exclusively) if no process has yet."""
    path = path or secret_key_path()
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(descriptor, "w") as out:
        out.write(secrets.token_hex(32))
        out.flush()
        os.fsync(out.fileno())
    return path.read_text().strip()


def init_app(app: Flask) -> None:
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = load_or_create_secret_key()
