"""How large a request body each page accepts: no more than it can use.

A kiosk's JSON (a challenge's words, a receipt) fits in API_BYTES, a sign-in or pairing form in
SIGN_IN_BYTES, any other form of the director's or the judges' in FORM_BYTES; only the
director's word-list upload takes more (ADJUDICATOR_UPLOAD_LIMIT_MB, kiosk/staff_web.py), and a
page that takes no body (every GET) takes none. The app refuses a larger body with a 413
before reading it (`request.max_content_length`, set before any other hook reads the body), and
the loop worker, asking `BodyLimits` by method and path, answers that 413 itself from the
request's head and closes the connection, so a body declared too large is never read at all
(kiosk/server/loop_requests.py).
"""

from __future__ import annotations

from flask import Flask, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import RequestRedirect

API_BYTES = 8 * 1024
SIGN_IN_BYTES = 4 * 1024
FORM_BYTES = 16 * 1024
EXTENSION = "body_limits"  # app.extensions: this app's BodyLimits
SMALL = {  # the forms anyone may send (signing in, pairing, signing out): a few fields each
    "director.login",
    "director.logout",
    "director.logout_everywhere",
    "judges.login",
    "judges.logout",
    "pages.pair",
}
THE_APPS_OWN = {"director.lexicon_import"}  # the upload: its limit is the director's (staff_web)
NO_BODY = frozenset({"GET", "HEAD", "OPTIONS"})
MOST_REMEMBERED = 512


def limit_for(endpoint: str | None, method: str) -> int | None:
    """The most bytes a body sent to `endpoint` with `method` may hold (0: it takes none);
    None: the app decides as it reads (the upload)."""
    if endpoint is None or method in NO_BODY:
        return 0
    if endpoint in THE_APPS_OWN:
        return None
    if endpoint in SMALL:
        return SIGN_IN_BYTES
    if endpoint.startswith(("api.", "table_api.")):
        return API_BYTES
    return FORM_BYTES


class BodyLimits:
    """The loop worker's question, answered from the app's routes: how large a body may a
    request of this method to this path hold (0: none; None: the app decides)."""

    def __init__(self, app: Flask):
        self.adapter = app.url_map.bind("localhost")
        self.remembered: dict[tuple[str, str], int | None] = {}

    def __call__(self, method: str, path: str) -> int | None:
        key = (method, path)
        if key in self.remembered:
            return self.remembered[key]
        try:
            endpoint, _ = self.adapter.match(path, method=method)
        except RequestRedirect:
            endpoint = None  # answered with a redirect: no body read
        except HTTPException:  # 404, 405: answered without reading a body
            endpoint = None
        limit = limit_for(endpoint, method)
        if len(self.remembered) >= MOST_REMEMBERED:
            self.remembered.clear()
        self.remembered[key] = limit
        return limit


def init_app(app: Flask) -> None:
    """Each request's body limit, set before any hook reads the body; and the loop's
    BodyLimits at app.extensions[EXTENSION]."""

    @app.before_request
    def bound_the_body():
        limit = limit_for(request.endpoint, request.method)
        if limit:  # 0: a page that reads no body
            request.max_content_length = limit

    app.extensions[EXTENSION] = BodyLimits(app)
