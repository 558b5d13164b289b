"""What a staff browser's cookie holds, read as anyone who copies it could read it."""

from __future__ import annotations

from flask import Flask
from flask.sessions import SecureCookieSessionInterface
from flask.testing import FlaskClient

STAFF_COOKIE = "adjudicator_staff"


def session_contents(app: Flask, client: FlaskClient) -> dict:
    """The decoded contents of the client's staff cookie ({} without one)."""
    cookie = client.get_cookie(STAFF_COOKIE)
    if cookie is None:
        return {}
    serializer = SecureCookieSessionInterface().get_signing_serializer(app)
    return dict(serializer.loads(cookie.value))
