"""GET /api/v1/table: the kiosk's game in the current round, as TSH pairs it (issue 29).

`{"round", "table", "division", "players": [{"id", "name", "first"}]}`, the first player
first; 404 when the kiosk has no game (no table of its own, a tournament not linked to TSH,
or no game at its table), with `linked` saying whether its tournament is linked, so the kiosk
page can say "no game at this table this round" and let the game be typed as before. Each
answer carries an ETag (of the link's contents, the kiosk's table and the language asked
for): a request that holds it gets an empty 304, the game not looked up.
"""

from __future__ import annotations

from flask import Blueprint, jsonify

from adjudicator.hall.tsh import games, links
from adjudicator.wording import N_, Phrase
from kiosk import conditional
from kiosk.api import _require_kiosk
from kiosk.hall import get_hall
from kiosk.i18n import language, say, speak_as_asked

bp = Blueprint("table_api", __name__)

_NO_TABLE = N_("This kiosk has no table of its own: the director seats it at one.")
_NOT_LINKED = N_("This tournament is not linked to TSH's pairings.")
_NO_GAME = N_("No game at table {table} this round.")


@bp.get("/api/v1/table")
def table_game():
    """The kiosk's game this round (its table's current round), or 404."""
    kiosk = _require_kiosk()
    db = get_hall().db
    speak_as_asked()
    link = links.get(db, kiosk.tournament)
    tag = conditional.etag(link and link.content_hash, kiosk.tournament, kiosk.table, language())
    if conditional.client_holds(tag):
        return conditional.not_modified(tag)
    return conditional.tagged(_answer(db, kiosk, link), tag)


def _answer(db, kiosk, link):
    if kiosk.table is None:
        return _none(Phrase(_NO_TABLE), linked=None)
    game = games.current_game(db, kiosk.tournament, kiosk.table) if link else None
    if game is not None:
        return jsonify(game.to_api())
    if link is None:
        return _none(Phrase(_NOT_LINKED), linked=False)
    return _none(Phrase.of(_NO_GAME, table=kiosk.table), linked=True, table=kiosk.table)


def _none(phrase: Phrase, linked: bool | None, table: str | None = None):
    body = {
        "ok": False,
        "status": 404,
        "error": phrase.render(_same, None),
        "shown_error": say(phrase),
        "linked": linked,
        "table": table,
    }
    response = jsonify(body)
    response.status_code = 404
    return response


def _same(text: str) -> str:
    return text
