"""The pages: the kiosk screen for a paired browser, pairing for an unpaired one.

The kiosk screen speaks its tournament's language; the pairing pages the language of the
pairing link (`?lang=`, kept through the form), else the browser's (kiosk/i18n.py).

Wrong pairing codes are counted per address before a code is looked up (attempts.py): after
a few, each retry waits longer (429 with Retry-After), and after more the address waits
PAIRING_POLICY.lockout_seconds.
"""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.languages import LANGUAGES
from adjudicator.hall.people import attempts
from kiosk.auth import current_kiosk, set_pairing_cookie, waiting_message
from kiosk.errors import error_response
from kiosk.hall import get_hall
from kiosk.i18n import language, speak
from kiosk.kiosk_text import for_page
from kiosk.staff_web import client_address

bp = Blueprint("pages", __name__)
PAIRING_SCOPE = "pairing"
PAIRING_POLICY = attempts.Policy(free_attempts=5, lockout_after=20, lockout_seconds=900)


@bp.get("/")
def index():
    """The challenge screen on a paired kiosk; how to pair on any other browser."""
    kiosk = current_kiosk()
    if kiosk is None:
        _speak_as_linked()
        waiting = waiting_message()
        if waiting is not None:  # a paired tablet the waiting hall cannot tell: not unpaired
            return error_response(503, waiting)
        return render_template("unpaired.html", error=None), 200
    speak(tournaments.get(get_hall().db, kiosk.tournament).language)
    return render_template("kiosk.html", kiosk=kiosk, kiosk_text=for_page(language()))


@bp.get("/pair")
@bp.get("/pair/<code>")  # links printed before codes moved after '#': the access log hides it
def pair_form(code: str = ""):
    """Ask before pairing, so a link preview cannot use up the one-time code."""
    _speak_as_linked()
    return render_template("pair.html", code=code, error=None)


@bp.post("/pair")
def pair():
    _speak_as_linked()
    db = get_hall().db
    try:
        attempt = attempts.reserve(db, PAIRING_SCOPE, client_address(), "", PAIRING_POLICY)
    except attempts.TooManyAttempts as waiting:
        return _too_many(waiting.retry_at)
    try:
        redeemed = kiosks.redeem_pairing(db, request.form.get("code", ""))
    except kiosks.PairingExpired as expired:
        return _expired(expired.expires_at)
    if redeemed is None:
        error = _(
            "That pairing code is not valid, was already used, or has expired. "
            "Ask the director for a new one."
        )
        if attempt.retry_at <= attempt.now:
            return render_template("pair.html", code="", error=error), 400
        return _too_many(attempt.retry_at, error)
    attempts.forgive(db, attempt)
    kiosk, nonce = redeemed
    response = redirect(url_for("pages.index"))
    set_pairing_cookie(response, kiosk, nonce)
    return response


def _expired(expires_at: str):
    """A right code past its time: the card is dead, and a new one is the only way on (the
    attempt stays counted: guessing at expired cards is still guessing)."""
    error = _(
        "This card's code expired at %(time)s (the hall's clock). Ask the director for a new card.",
        time=kiosks.local_time(expires_at),
    )
    return render_template("pair.html", code="", error=error), 400


def _too_many(retry_at: datetime, first: str = ""):
    seconds = max(1, int((retry_at - datetime.now(UTC)).total_seconds() + 0.999))
    error = (
        first
        + " "
        + _(
            "Too many wrong pairing codes from this device: wait %(duration)s, then type the "
            "code again. Nothing was changed on this screen.",
            duration=_duration(seconds),
        )
    ).strip()
    page = render_template("pair.html", code="", error=error)
    return page, 429, {"Retry-After": str(seconds)}


def _duration(seconds: int) -> str:
    # Flask-Babel's ngettext fills %(num)s with its count itself (a `num=` keyword is a
    # TypeError): a wait of seconds or minutes never needs a group separator.
    if seconds < 120:
        return ngettext("%(num)s second", "%(num)s seconds", seconds)
    minutes = (seconds + 59) // 60
    return ngettext("%(num)s minute", "%(num)s minutes", minutes)


def _speak_as_linked() -> None:
    """The pairing link's language (`?lang=`, or the form's `lang`), when it names one."""
    asked = request.values.get("lang", "")
    if asked in LANGUAGES:
        speak(asked)
