"""The director's kiosks page: enrol a kiosk and show its pairing code once, pair again,
revoke, move a kiosk to another tournament, and set how it shows its verdicts (spoken aloud,
large and high-contrast)."""

from __future__ import annotations

import segno
from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.network import hall_url
from kiosk.director.blueprint import bp, director_only
from kiosk.director.form_action import act_and_return
from kiosk.hall import get_hall


@bp.get("/kiosks")
@director_only
def kiosk_list():
    hall = get_hall()
    return render_template(
        "director/kiosks.html",
        kiosks=kiosks.list_all(hall.db),
        tournaments=tournaments.list_all(hall.db),
    )


@bp.post("/kiosks")
@director_only
def kiosk_add():
    hall = get_hall()
    try:
        enrolment = kiosks.add(
            hall.db,
            request.form.get("name", "").strip(),
            request.form.get("tournament", ""),
            table=request.form.get("table", ""),
        )
    except AdjudicatorError as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.kiosk_list"))
    return _pairing_page(enrolment)


@bp.post("/kiosks/<name>/pair")
@director_only
def kiosk_pair(name: str):
    try:
        enrolment = kiosks.new_pairing(get_hall().db, name)
    except AdjudicatorError as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.kiosk_list"))
    return _pairing_page(enrolment)


def _pairing_page(enrolment: kiosks.Enrolment):
    """The code, its link and its QR image, in this one page only: never in a cookie, a
    stored file or a URL the server sees (the link carries the code after '#')."""
    language = tournaments.get(get_hall().db, enrolment.kiosk.tournament).language
    link = _pairing_link(enrolment.pairing_code, language)
    return render_template(
        "director/kiosk_pairing.html", enrolment=enrolment, link=link, qr=_qr_data_uri(link)
    )


def _pairing_link(code: str, language: str = "en") -> str:
    """ADJUDICATOR_PUBLIC_URL, else the URL `adjudicator hall` recorded, else this request's:
    a director on the hall laptop's 127.0.0.1 still hands tablets the hall's address; the
    pairing page speaks the tournament's `language`."""
    return kiosks.pairing_link(hall_url.public_url(request.host_url), code, language)


def _qr_data_uri(link: str) -> str:
    """The link's QR code as an SVG data URI (the page's policy allows `data:` images)."""
    return segno.make(link, error="m").svg_data_uri(scale=8, omitsize=True)


@bp.post("/kiosks/<name>/revoke")
@director_only
def kiosk_revoke(name: str):
    if not request.form.get("confirm"):
        flash(_("Tick the box to confirm revoking %(name)s.", name=name), "error")
        return redirect(url_for("director.kiosk_list"))
    return act_and_return(
        lambda: kiosks.revoke(get_hall().db, name),
        lambda revoked: _(
            "Kiosk %(name)s revoked: its token and paired screens no longer work.", name=name
        ),
        url_for("director.kiosk_list"),
    )


@bp.post("/kiosks/<name>/move")
@director_only
def kiosk_move(name: str):
    return act_and_return(
        lambda: kiosks.move(get_hall().db, name, request.form.get("tournament", "")),
        lambda moved: _(
            "Kiosk %(name)s now judges for %(tournament)s. Its pairing code and paired screens "
            "no longer work: pair it again.",
            name=moved.name,
            tournament=moved.tournament,
        ),
        url_for("director.kiosk_list"),
    )


@bp.post("/kiosks/<name>/access")
@director_only
def kiosk_access(name: str):
    """A kiosk's verdict for a player who cannot see the screen well: spoken, large."""
    return act_and_return(
        lambda: kiosks.set_access(
            get_hall().db,
            name,
            speak=bool(request.form.get("speak")),
            large=bool(request.form.get("large")),
        ),
        lambda kiosk: _(
            "Kiosk %(name)s: saved how it shows its verdicts. Its screen follows within seconds.",
            name=kiosk.name,
        ),
        url_for("director.kiosk_list"),
    )
