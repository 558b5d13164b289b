"""Who a request head says it is, checked on the event loop without the database: a paired
kiosk (its bearer token, or its paired browser's cookie) or a signed-in staff member (the
director's or a word judge's session cookie).

The loop must not wait on the database, and a made-up credential must earn nothing. So each
worker keeps a snapshot of the live credentials, refreshed from the database in one of the
app's threads every REFRESH_SECONDS (`refresh`): the digest of each active kiosk's token (as the
kiosks table keeps it), the nonce of its paired browsers, and the digest of each live staff
session's id (as staff_sessions keeps it). `who` reads a head against it: a token is hashed
and looked up; a cookie's signature is checked with the app's own key (as the app would read
it) and its nonce or session id compared. Anything else, a made-up token or a forged cookie
included, is nobody. A kiosk paired, revoked or signed out moments ago is known (or not) by the
next refresh; the app itself still checks every request as before, so the snapshot only
decides who is let in from the reserve (kiosk/server/admission.py), never who is served.
"""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime

from itsdangerous import BadData

from adjudicator.hall import kiosks
from adjudicator.hall.people import staff_sessions
from kiosk.auth import COOKIE, pairing_serializer
from kiosk.hall import get_hall

REFRESH_SECONDS = 2.0
MOST_TOKEN = 200  # longer than any token a kiosk is given: not hashed
MOST_COOKIE = 4096

log = logging.getLogger("kiosk.server.credentials")


@dataclass(frozen=True)
class Snapshot:
    """The live credentials, as the database held them at one refresh."""

    tokens: dict[str, str] = field(default_factory=dict)  # token digest: kiosk name
    nonces: dict[str, str] = field(default_factory=dict)  # kiosk name: its browsers' nonce
    sessions: dict[str, tuple[str, str]] = field(default_factory=dict)  # id digest: name, expiry


class Credentials:
    """One worker's snapshot of the live credentials, and the check of a head against it."""

    def __init__(self, app):  # a Flask app made by kiosk.create_app
        self.app = app
        self.snapshot = Snapshot()
        self.pairing = pairing_serializer(app.config["SECRET_KEY"])
        self.staff_cookie = app.config.get("SESSION_COOKIE_NAME") or "session"
        self.staff = app.session_interface.get_signing_serializer(app)
        self.staff_seconds = int(app.permanent_session_lifetime.total_seconds())

    @classmethod
    def of(cls, app) -> Credentials | None:
        """The app's credentials, for an app made by kiosk.create_app (else None: every
        connection is then anonymous)."""
        if "hall" not in getattr(app, "extensions", {}):
            return None
        return cls(app)

    def refresh(self) -> None:
        """In a thread: read the live credentials again (one read of the kiosks, one of the
        staff sessions)."""
        with self.app.app_context():
            db = get_hall().db
            tokens, nonces = kiosks.live_credentials(db)
            sessions = staff_sessions.live(db)
        self.snapshot = Snapshot(tokens, nonces, sessions)

    def who(self, headers) -> str | None:
        """Whose credential `headers` (Tornado's HTTPHeaders) carry: "kiosk NAME", "staff NAME
        SESSION" (each session its own), or None."""
        known = self.snapshot
        authorization = headers.get("Authorization")
        if authorization:
            scheme, _, token = authorization.partition(" ")
            token = token.strip()
            if scheme.lower() != "bearer" or not token or len(token) > MOST_TOKEN:
                return None
            name = known.tokens.get(kiosks.digest(token))
            return None if name is None else "kiosk " + name
        cookies = headers.get_list("Cookie")
        if not cookies:
            return None
        found = _cookies(cookies, (COOKIE, self.staff_cookie))
        pairing = found.get(COOKIE)
        if pairing:
            name = self._paired(known, pairing)
            if name is not None:
                return "kiosk " + name
        session = found.get(self.staff_cookie)
        if session:
            return self._signed_in(known, session)
        return None

    def _paired(self, known: Snapshot, cookie: str) -> str | None:
        try:
            data = self.pairing.loads(cookie)
        except (BadData, ValueError, TypeError):
            return None
        if not isinstance(data, dict):
            return None
        name, nonce = str(data.get("k", "")), str(data.get("n", ""))
        current = known.nonces.get(name)
        if current is None or not nonce or not hmac.compare_digest(current, nonce):
            return None
        return name

    def _signed_in(self, known: Snapshot, cookie: str) -> str | None:
        if self.staff is None:
            return None
        try:
            data = self.staff.loads(cookie, max_age=self.staff_seconds)
        except (BadData, ValueError, TypeError):
            return None
        session_id = data.get("sid") if isinstance(data, dict) else None
        if not isinstance(session_id, str) or len(session_id) > staff_sessions.MAX_ID:
            return None
        digest = staff_sessions.digest(session_id)
        found = known.sessions.get(digest)
        if found is None or found[1] < datetime.now(UTC).isoformat(timespec="microseconds"):
            return None
        return f"staff {found[0]} {digest[:12]}"  # counted by session: a laptop, a phone


def _cookies(headers: list[str], wanted: tuple[str, ...]) -> dict[str, str]:
    """The `wanted` cookies of Cookie headers (the first of each name)."""
    found: dict[str, str] = {}
    for header in headers:
        if len(header) > MOST_COOKIE:
            continue
        for part in header.split(";"):
            name, _, value = part.strip().partition("=")
            if name in wanted and name not in found:
                found[name] = value.strip().strip('"')
    return found
