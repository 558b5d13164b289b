"""The director's overview at /director/: the whole hall at a glance, refreshing itself."""

from __future__ import annotations

from flask import render_template

from adjudicator.hall.director import hall_status
from kiosk.director.blueprint import bp, director_only
from kiosk.hall import get_hall

OVERVIEW_REFRESH = 20  # seconds


@bp.get("/")
@director_only
def index():
    """The overview: the whole hall at a glance, refreshing itself (director-refresh.js)."""
    return render_template(
        "director/index.html", status=hall_status.build(get_hall()), refresh=OVERVIEW_REFRESH
    )


@bp.get("/overview")
@director_only
def overview_part():
    """The overview's body alone, for its refresh."""
    return render_template("director/overview_body.html", status=hall_status.build(get_hall()))
