"""Which kiosk is asking: a bearer token (API clients) or a paired browser's signed cookie; and,
while the hall waits for the director, whether an unknown one must be told so instead of 401."""

from __future__ import annotations

from flask import Response, current_app, request
from itsdangerous import BadSignature, URLSafeSerializer

from adjudicator.hall import kiosks
from adjudicator.hall.kiosks import Kiosk
from kiosk.hall import get_hall

COOKIE = "kiosk_pairing"
COOKIE_DAYS = 400  # the most browsers keep a cookie


def pairing_serializer(secret_key: str) -> URLSafeSerializer:
    """What signs and reads a paired browser's cookie ({"k": kiosk name, "n": nonce})."""
    return URLSafeSerializer(secret_key, salt="kiosk-pairing")


def _serializer() -> URLSafeSerializer:
    return pairing_serializer(current_app.config["SECRET_KEY"])


def current_kiosk() -> Kiosk | None:
    """The active kiosk behind this request, or None."""
    db = get_hall().db
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        return kiosks.by_token(db, token.strip()) if scheme.lower() == "bearer" else None
    cookie = request.cookies.get(COOKIE)
    if not cookie:
        return None
    try:
        data = _serializer().loads(cookie)
    except BadSignature:
        return None
    if not isinstance(data, dict):
        return None
    return kiosks.by_session(db, str(data.get("k", "")), str(data.get("n", "")))


def presents_credential() -> bool:
    """Whether the request carries a kiosk's credential: a bearer token, or a pairing cookie
    this hall signed (with the session secret every laptop of the hall shares)."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return True
    cookie = request.cookies.get(COOKIE)
    if not cookie:
        return False
    try:
        _serializer().loads(cookie)
    except BadSignature:
        return False
    return True


def waiting_message() -> str | None:
    """Why the hall does not judge now, when a credential it cannot find was presented: a hall
    that waits for the director (a laptop taken over, a journal behind the laptop that judged
    meanwhile, where this kiosk was paired or added) cannot tell a paired kiosk from another,
    so it never sends one to the pairing page. None when it judges (then the credential is
    simply not a paired kiosk's)."""
    if not presents_credential():
        return None
    health = get_hall().journal_health()
    return None if health.ok else health.message


def set_pairing_cookie(response: Response, kiosk: Kiosk, nonce: str) -> None:
    """Bind this browser to `kiosk` with a long-lived, signed, HttpOnly cookie."""
    response.set_cookie(
        COOKIE,
        _serializer().dumps({"k": kiosk.name, "n": nonce}),
        max_age=COOKIE_DAYS * 86400,
        httponly=True,
        samesite="Strict",
        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")) or request.is_secure,
    )
