"""The Hall (lexicons, tournaments, kiosks, journal) for this process, opened once per worker."""

from __future__ import annotations

from flask import Flask, current_app

from adjudicator.hall.hall import Hall
from adjudicator.hall.kit import refresh
from adjudicator.record.copies import background_check


def init_app(app: Flask) -> None:
    """Use the HALL from the test config, or open the configured one lazily in each worker."""
    app.extensions["hall"] = app.config.get("HALL")


def get_hall() -> Hall:
    hall = current_app.extensions.get("hall")
    if hall is None:
        hall = Hall()
        current_app.extensions["hall"] = hall
        background_check.watch(
            hall.db
        )  # a mirrored journal: both copies verified in the background
        refresh.watch(hall)  # the takeover kit on the stick kept current, in the background
    return hall
