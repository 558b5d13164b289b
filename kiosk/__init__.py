"""The kiosk web app: the challenge page players use, the JSON API, and pairing.

Built by `create_app()` from defaults, then the test config; blueprints are registered here,
and each resource module (hall, errors, security) owns its lifecycle through `init_app(app)`.
The director's and judges' pages are in `director/`; the server in front of the app (gunicorn's
worker, the loop's bridge, the WSGI entry) in `server/`.

May import: the library (its hall, judging, record and words) and the shared leaves.
"""

from __future__ import annotations

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from adjudicator import settings

MAX_REQUEST_BYTES = 64 * 1024  # any request's body, at most (each page's own: body_limits)


def create_app(test_config: dict | None = None) -> Flask:
    """Build the Flask app; `test_config` overrides settings (HALL, RATE_LIMIT, ...)."""
    app = Flask(__name__)
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=MAX_REQUEST_BYTES,
        VERDICT_SECONDS=settings.get_int("verdict_seconds", 1),
        CLEAR_SECONDS=settings.get_int("clear_seconds", 5),
        REQUEST_TIMEOUT_SECONDS=settings.get_int("request_timeout_seconds", 1),
    )
    from kiosk.strict_json import StrictJSONProvider

    app.json = StrictJSONProvider(app)
    if test_config:
        app.config.update(test_config)
    proxies = app.config.get("TRUSTED_PROXIES", settings.get_int("trusted_proxies", 0))
    if proxies:  # only then is X-Forwarded-For the client's address; else anyone could forge it
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)

    from kiosk import (
        body_limits,
        errors,
        filters,
        hall,
        i18n,
        kiosk_poll,
        nul_guard,
        secret_key,
        security,
        sessions,
        staff_web,
    )

    secret_key.init_app(app)
    i18n.init_app(app)
    sessions.init_app(app)
    filters.init_app(app)
    hall.init_app(app)
    errors.init_app(app)
    security.init_app(app)
    body_limits.init_app(app)  # before staff_web's hooks, which read the body (CSRF)
    staff_web.init_app(app)
    nul_guard.init_app(app)
    kiosk_poll.init_app(app)

    from kiosk import api, director, hall_trust, judges, pages, table_api

    app.register_blueprint(api.bp)
    app.register_blueprint(table_api.bp)
    app.register_blueprint(pages.bp)
    director.init_app(app)
    app.register_blueprint(judges.bp)
    app.register_blueprint(hall_trust.bp)
    staff_web.csrf.exempt(api.bp)  # JSON only, bearer token or pairing cookie
    staff_web.csrf.exempt(table_api.bp)
    staff_web.csrf.exempt(hall_trust.peer)  # JSON signed with the hall's key, no session
    return app
