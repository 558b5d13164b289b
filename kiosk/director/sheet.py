"""The pairing sheet from the director's Kiosks page: the same page `adjudicator kiosk sheet`
writes (adjudicator/hall/pairing_sheet.py, sheet_page.py), answered to print at once.

The sheet holds pairing codes: it is never cached, and its links follow the hall's URL.
"""

from __future__ import annotations

from flask import Response, flash, redirect, request, url_for
from flask_babel import get_translations

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import hall_url, pairing_sheet, sheet_page, tournaments
from kiosk.director.blueprint import bp, director_only
from kiosk.hall import get_hall
from kiosk.i18n import speak


@bp.context_processor
def _pairing_base():
    """`pairing_base()` in the director's templates: where pairing links point."""
    return {"pairing_base": lambda: hall_url.public_url(request.host_url)}


@bp.post("/kiosks/sheet")
@director_only
def kiosk_sheet():
    """Enrol (or re-pair) a kiosk per table and answer the printable sheet."""
    db = get_hall().db
    slug = request.form.get("tournament", "")
    try:
        numbers = pairing_sheet.tables(request.form.get("tables", ""))
        tournament = tournaments.get(db, slug)
        base = hall_url.public_url(request.host_url)
        sheet = pairing_sheet.enrol_tables(db, slug, numbers, base)
    except AdjudicatorError as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.kiosk_list"))
    speak(tournament.language)  # the cards are read at the tables: the tournament's language
    said = get_translations()
    page = sheet_page.render(
        tournament.title,
        slug,
        sheet,
        base,
        gettext=said.gettext,
        ngettext=said.ngettext,
        language=tournament.language,
    )
    return Response(page, mimetype="text/html", headers={"Cache-Control": "no-store"})
