"""The hall's plain-HTTP port (`adjudicator hall --http-port`, default 8080): the trust page and
the CA certificate, and nothing else, without TLS.

A tablet's first visit to the hall cannot be trusted yet: over HTTPS the browser warns about
the certificate. So the trust page (/hall/trust), its stylesheet and icon, and the certificate
it offers (/hall/ca.crt) are also answered over plain HTTP, where the tablet meets no warning
(and the page is styled as over HTTPS); their fingerprint is then checked against the printed
sheet, which is what the trust rests on. Every other request on that port (any other path, any
method but GET and HEAD) is sent to HTTPS at the hall's recorded URL (hall_url: what
`adjudicator hall` printed), never to the Host header the request came with, which anyone can
write. No cookie travels on this port, either way, and no Strict-Transport-Security header
(a browser ignores it over plain HTTP; it says nothing true here).

The worker (kiosk/server/loop_worker.py) serves the port's sockets with this app in front of the web
app, and with its own connection cap; gunicorn's TLS is for every other socket.
"""

from __future__ import annotations

from urllib.parse import quote

from adjudicator.hall.network import hall_url

TRUST_PATHS = frozenset(
    {"/hall/trust", "/hall/ca.crt", "/static/kiosk.css", "/static/favicon.svg"}
)  # the trust page, what it links to (templates/base.html), and the certificate
NOT_HERE = frozenset({"set-cookie", "strict-transport-security"})
READ_ONLY = frozenset({"GET", "HEAD"})
# characters a path or query keeps as they are in the Location (anything else is escaped,
# so nothing in a request can end the URL's path or reach its host)
_PATH_SAFE = "/-._~!$&'()*+,;=:@"  # the path arrives decoded: a % in it is escaped
_QUERY_SAFE = "/-._~!$'()*+,;=:@%&?"
STARTING = b"The hall is starting: open this address again in a moment.\n"


class TrustOnly:
    """A WSGI app answering only the trust page, its stylesheet and icon, and the CA
    certificate (by `app`), and redirecting everything else to the hall's HTTPS URL."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if environ.get("REQUEST_METHOD") in READ_ONLY and environ.get("PATH_INFO") in TRUST_PATHS:
            environ.pop("HTTP_COOKIE", None)  # no session on this port: the page needs none

            def without_cookies(status, headers, exc_info=None):
                kept = [(k, v) for k, v in headers if k.lower() not in NOT_HERE]
                return start_response(status, kept, exc_info)

            return self.app(environ, without_cookies)
        return _to_https(environ, start_response)


def https_location(path: str, query: str = "") -> str | None:
    """Where a plain-HTTP request for `path` (and `query`) is sent: the same path at the hall's
    recorded https URL; None while the hall has recorded none."""
    record = hall_url.recorded()
    if record is None or not record.url.startswith("https://"):
        return None
    if not path.startswith("/"):  # "*", or an absolute URL as the target: the hall's front page
        path = "/"
    path = "/" + path.lstrip("/")  # never "//host": a scheme-relative URL to another host
    location = record.url.rstrip("/") + quote(path.encode("latin-1"), safe=_PATH_SAFE)
    if query:
        location += "?" + quote(query.encode("latin-1"), safe=_QUERY_SAFE)
    return location


def _to_https(environ, start_response):
    try:
        location = https_location(environ.get("PATH_INFO", "/"), environ.get("QUERY_STRING", ""))
    except UnicodeEncodeError:
        location = https_location("/")
    if location is None:
        start_response(
            "503 Service Unavailable",
            [
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Content-Length", str(len(STARTING))),
                ("Retry-After", "5"),
                ("Cache-Control", "no-store"),
            ],
        )
        return [STARTING]
    body = f"This page is served over HTTPS: {location}\n".encode()
    start_response(
        "302 Found",
        [
            ("Location", location),
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ],
    )
    return [body]
