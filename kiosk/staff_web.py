"""What the director's and word judges' pages share: sign-in, the staff session, CSRF, uploads.

Staff sessions live on the server (adjudicator.hall.people.staff_sessions): the cookie (HttpOnly,
SameSite=Strict, Secure under TLS) holds only an opaque random session id beside the CSRF token,
so signing out, changing the password or "sign out everywhere" ends it for good, and a reader
of the cookie learns nothing else. Every form carries a CSRF token (Flask-WTF), the kiosks'
pairing form included (so another site cannot pair a screen to a kiosk of its choosing); only
the kiosks' JSON API is exempt (it accepts JSON only, with a bearer token or the pairing cookie).
An upload from anyone but the signed-in director is refused before its body is read.
"""

from __future__ import annotations

import tempfile
from datetime import timedelta
from functools import wraps
from urllib.parse import urlsplit

from flask import (
    Flask,
    Request,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import RequestEntityTooLarge

from adjudicator import settings
from adjudicator.hall.languages import LANGUAGES
from adjudicator.hall.people import attempts, staff, staff_sessions
from adjudicator.wording import N_
from kiosk.errors import ApiError, error_response
from kiosk.hall import get_hall
from kiosk.i18n import speak

csrf = CSRFProtect()
UPLOAD_ENDPOINTS = ("director.lexicon_import",)


class StaffRequest(Request):
    """Uploaded files spool to a temporary file in the data home (deleted when closed)."""

    def _get_file_stream(
        self, total_content_length, content_type, filename=None, content_length=None
    ):
        folder = settings.data_home() / "uploads"
        folder.mkdir(mode=0o700, exist_ok=True)
        return tempfile.TemporaryFile("wb+", dir=folder)


def upload_limit_bytes() -> int:
    return settings.get_int("upload_limit_mb", 1) * 1024 * 1024


def secure_cookies() -> bool:
    value = settings.get("secure_cookies").strip().lower()
    return value in ("on", "1", "true", "yes")


def init_app(app: Flask) -> None:
    """Session cookie settings, the larger upload limit, CSRF, and their error pages."""
    app.request_class = StaffRequest
    defaults = {
        "SESSION_COOKIE_NAME": "adjudicator_staff",
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Strict",
        "SESSION_COOKIE_SECURE": secure_cookies(),
        "PERMANENT_SESSION_LIFETIME": timedelta(hours=14),
        "WTF_CSRF_TIME_LIMIT": None,  # valid for the session's life
        "WTF_CSRF_SSL_STRICT": False,  # it wants a Referer, and we send none (no-referrer)
        "UPLOAD_LIMIT": upload_limit_bytes(),
    }
    for key, value in defaults.items():  # unless the test config set it
        if app.config.get(key, Flask.default_config.get(key)) == Flask.default_config.get(key):
            app.config[key] = value

    @app.before_request
    def larger_limit_for_uploads():
        # Registered before CSRFProtect's hook, which reads the form (and so the body): an
        # upload from anyone but the director is answered before a byte of it is read.
        if request.endpoint in UPLOAD_ENDPOINTS:
            refusal = refusal_for(("director",))
            if refusal is not None:
                return refusal
            request.max_content_length = current_app.config["UPLOAD_LIMIT"]

    csrf.init_app(app)
    app.context_processor(lambda: {"current_staff": current_staff})

    @app.errorhandler(CSRFError)
    def csrf_error(exc: CSRFError):
        if request.endpoint == "pages.pair":  # on a kiosk screen, often with no Back button
            language = request.form.get("lang", "")
            if language in LANGUAGES:
                speak(language)  # the pairing link's language, as on the pairing page
            return error_response(
                400,
                N_("Not paired: this pairing form has expired."),
                advice=N_(
                    "Nothing was changed on this screen. Reload the pairing page and try "
                    "again: tap the button below, then type the pairing code."
                ),
                link=(url_for("pages.pair_form"), N_("Open the pairing form")),
            )
        return error_response(
            400,
            N_(
                "This form has expired or did not come from this site's own page: go back, "
                "reload the page and submit it again."
            ),
        )

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(exc):
        if request.endpoint in UPLOAD_ENDPOINTS:
            limit = current_app.config["UPLOAD_LIMIT"] // (1024 * 1024)
            return error_response(
                413,
                f"The file is larger than the upload limit of {limit} MB "
                "(ADJUDICATOR_UPLOAD_LIMIT_MB): nothing was imported and the lexicons are "
                "unchanged. Compress it with gzip, or import it with `adjudicator lexicon import`.",
            )
        limit = max(1, (request.max_content_length or 0) // 1024)
        return error_response(413, f"The request is too large: send at most {limit} KB.")


def current_staff() -> staff.Staff | None:
    """The signed-in staff member, if this browser's session is live on the server."""
    if "staff" in g:
        return g.staff
    member = None
    session_id = session.get("sid")
    if isinstance(session_id, str):
        db = get_hall().db
        name = staff_sessions.member(db, session_id)
        member = staff.get(db, name) if name else None
    g.staff = member
    return member


def sign_in(member: staff.Staff) -> None:
    session.clear()  # no fixation: a fresh session for a fresh sign-in
    session.permanent = True
    lifetime = current_app.config["PERMANENT_SESSION_LIFETIME"]
    session["sid"] = staff_sessions.start(get_hall().db, member.name, lifetime)
    g.staff = member


def refusal_for(roles: tuple[str, ...]):
    """None if the signed-in staff member has one of `roles`; else the redirect or refusal."""
    if request.headers.get("Authorization"):
        raise ApiError(403, "A kiosk token cannot be used on the staff pages.")
    member = current_staff()
    if member is None:
        login = "judges.login" if request.blueprint == "judges" else "director.login"
        return redirect(url_for(login, next=request.full_path.rstrip("?")))
    if member.role not in roles:
        raise ApiError(403, "This page is for the tournament director only.")
    return None


def staff_required(*roles: str):
    """A view for signed-in staff of `roles`; anyone else is sent to sign in, or refused."""

    def decorate(view):
        @wraps(view)
        def wrapped(*args, **kwargs):
            return refusal_for(roles) or view(*args, **kwargs)

        return wrapped

    return decorate


def home_for(member: staff.Staff) -> str:
    return url_for("director.index") if member.is_director else url_for("judges.index")


def safe_next(target: str | None) -> str | None:
    """Only a path on this site: never another host (browsers read '/\\host' as '//host'
    and drop tabs and line breaks, so no backslash and no control character either)."""
    if not target or "\\" in target or any(ord(char) < 32 or ord(char) == 127 for char in target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return None
    return target


def login_page(title: str):
    """GET: the sign-in form; POST: check the password (with growing delays, then a lock-out)."""
    member = current_staff()
    if request.method == "GET":
        if member is not None:
            return redirect(home_for(member))
        # The director's form names the one account it signs in to: `director`.
        name = "director" if request.blueprint == "director" else ""
        return render_template("director/login.html", title=title, error=None, name=name)
    name = request.form.get("name", "").strip()
    try:
        member = staff.authenticate(
            get_hall().db, name, request.form.get("password", ""), client_address()
        )
    except staff.LoginRefused as refused:
        wait = refused.retry_after()
        status = 429 if wait else 401
        response = render_template(
            "director/login.html", title=title, error=str(refused), name=name
        )
        headers = {"Retry-After": str(wait)} if wait else {}
        return response, status, headers
    sign_in(member)
    return redirect(safe_next(request.args.get("next")) or home_for(member))


def sign_out(login_endpoint: str, everywhere: bool = False):
    """End this browser's session (with `everywhere`, every session of its account)."""
    member = current_staff()
    session_id = session.get("sid")
    if everywhere and member is not None:
        staff_sessions.end_all(get_hall().db, member.name)
    elif isinstance(session_id, str):
        staff_sessions.end(get_hall().db, session_id)
    session.clear()
    g.staff = None
    if everywhere and member is not None:
        flash("Signed out on every device.", "ok")
    return redirect(url_for(login_endpoint))


def client_address() -> str:
    """The client's address as attempts are counted (after any trusted proxies)."""
    return attempts.client_key(request.remote_addr)
