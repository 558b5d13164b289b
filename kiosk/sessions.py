"""Flask's signed-cookie sessions, with the signing serializer built once per key.

Flask builds a new serializer on every request, and building one serializes a test object to
learn whether the serializer is text: about a tenth of the CPU a kiosk's adjudication costs.
The keys do not change while a worker runs, so one serializer per set of keys does the same.
A request with no cookie at all (a kiosk's API call with its bearer token) gets its empty
session without the cookies being parsed, and an empty session left unchanged is saved
without the cookie's settings being read: what Flask does then, less the work.
"""

from __future__ import annotations

from flask import Flask, Request, Response
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface, SessionMixin
from itsdangerous import URLSafeTimedSerializer


class SessionInterface(SecureCookieSessionInterface):
    """SecureCookieSessionInterface, reusing the serializer while the keys stay the same."""

    def __init__(self) -> None:
        self._cached: tuple[tuple, URLSafeTimedSerializer | None] | None = None

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        keys = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        if self._cached is None or self._cached[0] != keys:
            self._cached = (keys, super().get_signing_serializer(app))
        return self._cached[1]

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if app.secret_key and not request.environ.get("HTTP_COOKIE"):
            return self.session_class()  # no cookie: what Flask opens then
        return super().open_session(app, request)

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        if not session and not session.modified:  # nothing to set or delete
            if session.accessed:
                response.vary.add("Cookie")
            return
        super().save_session(app, session, response)


def init_app(app: Flask) -> None:
    app.session_interface = SessionInterface()
