"""Flask's signed-cookie sessions, with the signing serializer built once per key.

Flask builds a new serializer on every request, and building one serializes a test object to
learn whether the serializer is text: about a tenth of the CPU a kiosk's adjudication costs.
The keys do not change while a worker runs, so one serializer per set of keys does the same.
"""

from __future__ import annotations

from flask import Flask
from flask.sessions import SecureCookieSessionInterface
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


def init_app(app: Flask) -> None:
    app.session_interface = SessionInterface()
