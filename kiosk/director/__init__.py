"""The director's pages under /director, one module per resource (the way Datasette lays out
its views): sign_in, overview, hall_map (the hall at a glance), tournaments, lexicons, kiosks,
sheet (the printed pairing sheet), journal, flags, decisions (free challenges granted, the
challenges the director decides), integrity (checkpoints, alarms, receipts and the key),
review (voids and final rulings) and record (the players' record: an event's report, a
season's, and closing an event).

The resource modules add their routes to kiosk.director.blueprint.bp (review has its own
blueprint, "review"); `init_app` registers both once every route is on them.

May import: the rest of the kiosk app, the library and the shared leaves.
"""

from __future__ import annotations

from flask import Flask

from kiosk.director import (
    decisions,
    flags,
    hall_map,
    integrity,
    journal,
    kiosks,
    lexicons,
    overview,
    record,
    review,
    sheet,
    sign_in,
    tournaments,
)
from kiosk.director.blueprint import bp

RESOURCES = (
    sign_in,
    overview,
    hall_map,
    tournaments,
    lexicons,
    kiosks,
    sheet,
    journal,
    flags,
    decisions,
    integrity,
    record,
)


def init_app(app: Flask) -> None:
    """Register the director's blueprint, with every resource module's routes, and review's."""
    app.register_blueprint(bp)
    app.register_blueprint(review.bp)
