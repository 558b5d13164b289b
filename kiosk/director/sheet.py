"""The pairing sheet from the director's Kiosks page: the same page `adjudicator kiosk sheet`
writes (adjudicator/hall/pairing_sheet.py, sheet_page.py), answered to print at once.

The sheet holds pairing codes: it is never cached, and its links follow the hall's URL. Its
stylesheet is linked (`/director/kiosks/sheet.css`), never inline: the page's own
Content-Security-Policy allows styles from the hall only.
"""

from __future__ import annotations

from flask import Response, flash, redirect, request, url_for
from flask_babel import get_translations
from flask_babel import gettext as _

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import pairing_sheet, sheet_page, tournaments
from adjudicator.hall.network import hall_tls, hall_url
from kiosk.director.blueprint import bp, director_only
from kiosk.hall import get_hall
from kiosk.i18n import speak


@bp.context_processor
def _pairing_base():
    """`pairing_base()` in the director's templates: where pairing links point; the sheet
    form's hours."""
    return {
        "pairing_base": lambda: hall_url.public_url(request.host_url),
        "sheet_hours": (pairing_sheet.DEFAULT_HOURS, pairing_sheet.MAX_HOURS),
    }


@bp.post("/kiosks/sheet")
@director_only
def kiosk_sheet():
    """Enrol (or re-pair) a kiosk per table and answer the printable sheet."""
    db = get_hall().db
    slug = request.form.get("tournament", "")
    try:
        hours = pairing_sheet.valid_hours(request.form.get("valid_hours", ""))
    except pairing_sheet.SheetError:
        flash(_hours_refused(), "error")
        return redirect(url_for("director.kiosk_list"))
    try:
        numbers = pairing_sheet.tables(request.form.get("tables", ""))
        tournament = tournaments.get(db, slug)
        base = hall_url.public_url(request.host_url)
        sheet = pairing_sheet.enrol_tables(db, slug, numbers, base, hours)
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
        fingerprint=hall_tls.read_ca_fingerprint(),
        trust_url=hall_url.trust_address(base),
        stylesheet=url_for("director.kiosk_sheet_style"),
        gettext=said.gettext,
        ngettext=said.ngettext,
        language=tournament.language,
    )
    return Response(page, mimetype="text/html", headers={"Cache-Control": "no-store"})


def _hours_refused() -> str:
    return _(
        "A sheet's codes last from 1 to %(most)s whole hours (%(days)s days), such as "
        "%(usual)s: type a number of hours in that range.",
        most=pairing_sheet.MAX_HOURS,
        days=pairing_sheet.MAX_HOURS // 24,
        usual=pairing_sheet.DEFAULT_HOURS,
    )


@bp.get("/kiosks/sheet.css")
@director_only
def kiosk_sheet_style():
    """The sheet's stylesheet (the one `adjudicator kiosk sheet` puts in its file)."""
    return Response(sheet_page.STYLE, mimetype="text/css")
