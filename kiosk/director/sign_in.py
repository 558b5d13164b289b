"""The director's sign-in and sign-out pages under /director."""

from __future__ import annotations

from flask_babel import gettext as _

from kiosk.director.blueprint import bp
from kiosk.staff_web import login_page, sign_out


@bp.route("/login", methods=["GET", "POST"])
def login():
    return login_page(_("Director: sign in"))


@bp.post("/logout")
def logout():
    return sign_out("director.login")


@bp.post("/logout-everywhere")
def logout_everywhere():
    """End every session of the signed-in account, on every device (a lost laptop)."""
    return sign_out("director.login", everywhere=True)
