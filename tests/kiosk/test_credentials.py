"""Who a request head says it is, as the loop worker checks it without the database (issue 42,
kiosk/server/credentials.py): a paired kiosk's token or cookie and a staff session are known once
the worker's snapshot has them; anything made up, forged, revoked, re-paired or signed out is
nobody, so it earns no room from the reserve."""

from __future__ import annotations

from tornado.httputil import HTTPHeaders

from adjudicator.hall import kiosks
from kiosk.auth import COOKIE, pairing_serializer
from kiosk.server.credentials import Credentials

from support.director import JUDGE, csrf_token


def head(**headers: str) -> HTTPHeaders:
    made = HTTPHeaders()
    for name, value in headers.items():
        made.add(name.replace("_", "-"), value)
    return made


def bearer(token: str) -> HTTPHeaders:
    return head(Authorization=f"Bearer {token}")


def cookie_of(client, name: str) -> str:
    return client.get_cookie(name).value


def test_a_kiosks_token_is_known_once_the_snapshot_has_it_and_a_made_up_one_never(staffed):
    credentials = Credentials.of(staffed.app)
    token = staffed.setup.nwl.token
    assert credentials.who(bearer(token)) is None  # not read yet: nobody
    credentials.refresh()
    assert credentials.who(bearer(token)) == f"kiosk {staffed.setup.nwl.kiosk.name}"
    for made_up in ("k_" + "A" * 43, token[:-1], token + "x", "k_" + "A" * 300):
        assert credentials.who(bearer(made_up)) is None, made_up
    assert credentials.who(head(Authorization=f"Basic {token}")) is None
    assert credentials.who(head(Authorization=token)) is None
    kiosks.revoke(staffed.db, staffed.setup.nwl.kiosk.name)
    credentials.refresh()
    assert credentials.who(bearer(token)) is None


def test_a_paired_browsers_cookie_is_known_and_a_forged_or_stale_one_is_not(staffed):
    browser = staffed.kiosk_browser()
    name = staffed.setup.nwl.kiosk.name
    paired = cookie_of(browser, COOKIE)
    credentials = Credentials.of(staffed.app)
    credentials.refresh()
    assert credentials.who(head(Cookie=f"language=pl; {COOKIE}={paired}")) == f"kiosk {name}"
    nonce = kiosks.get(staffed.db, name).session_nonce
    other_key = pairing_serializer("another hall's key").dumps({"k": name, "n": nonce})
    unsigned = paired.rsplit(".", 1)[0] + ".AAAA"
    made_up = pairing_serializer(staffed.app.config["SECRET_KEY"]).dumps({"k": name, "n": "x"})
    for forged in (other_key, unsigned, made_up, "", "not a cookie"):
        assert credentials.who(head(Cookie=f"{COOKIE}={forged}")) is None, forged
    again = kiosks.new_pairing(staffed.db, name)  # paired again elsewhere: this nonce is old
    staffed.kiosk_browser(again)
    credentials.refresh()
    assert credentials.who(head(Cookie=f"{COOKIE}={paired}")) is None


def test_a_staff_session_is_known_by_its_session_and_ends_when_signed_out(staffed):
    director, other = staffed.director(), staffed.director()
    judge = staffed.judge()
    name = staffed.app.config["SESSION_COOKIE_NAME"]
    credentials = Credentials.of(staffed.app)
    credentials.refresh()
    first = credentials.who(head(Cookie=f"{name}={cookie_of(director, name)}"))
    second = credentials.who(head(Cookie=f"{name}={cookie_of(other, name)}"))
    assert first.startswith("staff director ") and second.startswith("staff director ")
    assert first != second  # a laptop and a phone: each session counted on its own
    assert credentials.who(head(Cookie=f"{name}={cookie_of(judge, name)}")).startswith(
        f"staff {JUDGE} "
    )
    anonymous = staffed.client()
    anonymous.get("/director/login")  # a session with a CSRF token, and nobody signed in
    assert credentials.who(head(Cookie=f"{name}={cookie_of(anonymous, name)}")) is None
    assert credentials.who(head(Cookie=f"{name}=.eJyrVkrOz0nNS1e.x.y")) is None
    kept = cookie_of(director, name)
    signed_out = director.post(
        "/director/logout", data={"csrf_token": csrf_token(director, "/director/")}
    )
    assert signed_out.status_code == 302
    credentials.refresh()
    assert credentials.who(head(Cookie=f"{name}={kept}")) is None  # its session is gone
    assert credentials.who(head(Cookie=f"{name}={cookie_of(other, name)}")) == second
