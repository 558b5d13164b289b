"""The pages: the kiosk screen for a paired browser, pairing for an unpaired one."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for

from adjudicator import kiosks
from kiosk.auth import current_kiosk, set_pairing_cookie
from kiosk.hall import get_hall

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    """The challenge screen on a paired kiosk; how to pair on any other browser."""
    kiosk = current_kiosk()
    if kiosk is None:
        return render_template("unpaired.html", error=None), 200
    return render_template("kiosk.html", kiosk=kiosk)


@bp.get("/pair")
@bp.get("/pair/<code>")
def pair_form(code: str = ""):
    """Ask before pairing, so a link preview cannot use up the one-time code."""
    return render_template("pair.html", code=code, error=None)


@bp.post("/pair")
def pair():
    code = request.form.get("code", "")
    redeemed = kiosks.redeem_pairing(get_hall().db, code)
    if redeemed is None:
        error = (
            "That pairing code is not valid, was already used, or has expired. "
            "Ask the director for a new one."
        )
        return render_template("pair.html", code="", error=error), 400
    kiosk, nonce = redeemed
    response = redirect(url_for("pages.index"))
    set_pairing_cookie(response, kiosk, nonce)
    return response
