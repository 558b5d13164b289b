"""The app's secret key: made on first run, kept in the data home, readable by its owner only
(adjudicator/hall/people/session_secret.py keeps it; the hall's kit carries it to a second
laptop)."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from adjudicator.hall.people import session_secret


def secret_key_path() -> Path:
    return session_secret.path()


def load_or_create_secret_key(path: Path | None = None) -> str:
    """Read the key, creating it (mode 0600, exclusively) if no process has yet."""
    return session_secret.load_or_create(path)


def init_app(app: Flask) -> None:
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = load_or_create_secret_key()
