"""The director's hall map at /director/hall (`?tournament=SLUG` for one tournament): one tile
per table, refreshing itself every few seconds; a refresh that finds nothing new is a 304."""

from __future__ import annotations

from flask import make_response, render_template, request

from adjudicator.hall.director import hall_map
from kiosk import conditional
from kiosk.director.blueprint import bp, director_only
from kiosk.hall import get_hall
from kiosk.i18n import language

REFRESH_SECONDS = 5  # a change shows within 10 s: the next refresh, at most this far away


def _tournament() -> str | None:
    return request.args.get("tournament", "").strip()[:100] or None


def _tag(tournament: str | None) -> str:
    """The tiles' ETag: what the map is made of, in the language it is written in."""
    return conditional.etag(hall_map.version(get_hall().db, tournament), language())


@bp.get("/hall")
@director_only
def hall_page():
    """The map, with its tiles; an unknown tournament is refused (400) naming those there are."""
    tournament = _tournament()
    tag = _tag(tournament)  # before the map is read: a change in between shows next time
    return render_template(
        "director/hall.html",
        hall=hall_map.build(get_hall().db, tournament),
        tournament=tournament,
        refresh=REFRESH_SECONDS,
        version=tag,
    )


@bp.get("/hall/tiles")
@director_only
def hall_tiles():
    """The tiles alone, for the map's refresh: 304 while nothing they show has changed."""
    tournament = _tournament()
    tag = _tag(tournament)
    if conditional.client_holds(tag):
        return conditional.not_modified(tag)
    page = render_template(
        "director/hall_tiles.html", hall=hall_map.build(get_hall().db, tournament)
    )
    return conditional.tagged(make_response(page), tag)
