"""Every route in the app's url_map, and the access each role gets to it.

ACCESS is the explicit table: (method, rule) -> the roles allowed. A route added to the app
without a row here fails `test_every_route_has_an_access_rule`, and every row is checked
against every role: anonymous, a paired kiosk browser (cookie), a kiosk's API token, a word
judge and the director.
"""

from __future__ import annotations

import pytest

from support.director import Staffed, build_staffed
from support.hall import NWL

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff

ANON, COOKIE, TOKEN, JUDGE, DIRECTOR = (
    "anonymous",
    "kiosk-cookie",
    "kiosk-token",
    "judge",
    "director",
)
ROLES = (ANON, COOKIE, TOKEN, JUDGE, DIRECTOR)
EVERYONE = frozenset(ROLES)
KIOSKS = frozenset({COOKIE, TOKEN})
STAFF = frozenset({JUDGE, DIRECTOR})
DIRECTOR_ONLY = frozenset({DIRECTOR})

ACCESS: dict[tuple[str, str], frozenset[str]] = {
    ("GET", "/static/<path:filename>"): EVERYONE,
    ("GET", "/healthz"): EVERYONE,
    ("GET", "/api/v1/lexicons"): EVERYONE,
    ("GET", "/api/v1/tournaments"): EVERYONE,
    ("GET", "/api/v1/kiosk"): KIOSKS,
    ("POST", "/api/v1/kiosk"): KIOSKS,  # the status poll, carrying the newest receipt
    ("POST", "/api/v1/kiosk/receipt-qr"): KIOSKS,
    ("POST", "/api/v1/adjudications"): KIOSKS,
    ("POST", "/api/v1/spell"): KIOSKS,
    ("GET", "/api/v1/table"): KIOSKS,  # the kiosk's game as TSH pairs it (404: none)
    # other methods on the adjudications endpoint: 405 for everyone
    **{(m, "/api/v1/adjudications"): EVERYONE for m in ("GET", "PUT", "PATCH", "DELETE")},
    **{
        (method, "/api/<path:rest>"): EVERYONE
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE")
    },
    ("GET", "/"): EVERYONE,  # the kiosk screen when paired, how to pair otherwise
    ("GET", "/pair"): EVERYONE,
    ("GET", "/pair/<code>"): EVERYONE,
    ("GET", "/hall/ca.crt"): EVERYONE,  # the hall's CA certificate (never its key), for tablets
    ("GET", "/hall/trust"): EVERYONE,
    # another laptop of the hall says it serves too: its note's signature (the hall's key) is
    # the access rule, not a session (tests/hall/test_hall_peers.py)
    ("POST", "/hall/peer"): EVERYONE,
    ("POST", "/pair"): EVERYONE,
    ("GET", "/language/<code>"): EVERYONE,  # the language switch: a cookie, then back
    ("GET", "/director/login"): EVERYONE,
    ("POST", "/director/login"): EVERYONE,
    ("POST", "/director/logout"): EVERYONE,
    ("POST", "/director/logout-everywhere"): EVERYONE,  # ends the caller's own sessions, if any
    ("GET", "/judge/login"): EVERYONE,
    ("POST", "/judge/login"): EVERYONE,
    ("POST", "/judge/logout"): EVERYONE,
    ("GET", "/judge/"): STAFF,
    ("GET", "/judge/case"): STAFF,
    ("POST", "/judge/second-opinion"): STAFF,
    ("GET", "/director/"): DIRECTOR_ONLY,
    ("GET", "/director/overview"): DIRECTOR_ONLY,
    ("GET", "/director/hall"): DIRECTOR_ONLY,
    ("GET", "/director/hall/tiles"): DIRECTOR_ONLY,
    ("GET", "/director/tournaments"): DIRECTOR_ONLY,
    ("POST", "/director/tournaments"): DIRECTOR_ONLY,
    ("POST", "/director/tournaments/<slug>/confirm"): DIRECTOR_ONLY,
    ("POST", "/director/tournaments/<slug>/apply"): DIRECTOR_ONLY,
    ("GET", "/director/lexicons"): DIRECTOR_ONLY,
    ("POST", "/director/lexicons/import"): DIRECTOR_ONLY,
    ("POST", "/director/lexicons/verify"): DIRECTOR_ONLY,
    ("GET", "/director/kiosks"): DIRECTOR_ONLY,
    ("POST", "/director/kiosks"): DIRECTOR_ONLY,
    ("POST", "/director/kiosks/sheet"): DIRECTOR_ONLY,  # a printable page of pairing codes
    ("GET", "/director/kiosks/sheet.css"): DIRECTOR_ONLY,  # its stylesheet
    ("POST", "/director/kiosks/<name>/pair"): DIRECTOR_ONLY,
    ("POST", "/director/kiosks/<name>/revoke"): DIRECTOR_ONLY,
    ("POST", "/director/kiosks/<name>/move"): DIRECTOR_ONLY,
    ("POST", "/director/kiosks/<name>/access"): DIRECTOR_ONLY,
    ("GET", "/director/journal"): DIRECTOR_ONLY,
    ("GET", "/director/journal.csv"): DIRECTOR_ONLY,
    ("GET", "/director/flags"): DIRECTOR_ONLY,
    ("POST", "/director/flags/<int:adjudication_id>/ruling"): DIRECTOR_ONLY,
    ("POST", "/director/flags/<int:adjudication_id>/dismiss"): DIRECTOR_ONLY,
    ("GET", "/director/decisions"): DIRECTOR_ONLY,  # issue 35: what no kiosk judges
    ("POST", "/director/decisions/free-challenge"): DIRECTOR_ONLY,
    ("POST", "/director/decisions/director-challenge"): DIRECTOR_ONLY,
    ("POST", "/director/journal/<int:adjudication_id>/revoke-void"): DIRECTOR_ONLY,
    ("POST", "/director/tournaments/<slug>/rulebook"): DIRECTOR_ONLY,
    ("POST", "/director/tournaments/<slug>/language"): DIRECTOR_ONLY,
    # issue 46: the players' record, and closing an event (its confirmation first)
    ("GET", "/director/report/<slug>"): DIRECTOR_ONLY,
    ("GET", "/director/report/<slug>.csv"): DIRECTOR_ONLY,
    ("GET", "/director/report/<slug>.json"): DIRECTOR_ONLY,
    ("GET", "/director/report.css"): DIRECTOR_ONLY,
    ("GET", "/director/season"): DIRECTOR_ONLY,
    ("GET", "/director/season.csv"): DIRECTOR_ONLY,
    ("GET", "/director/tournaments/<slug>/close"): DIRECTOR_ONLY,
    ("POST", "/director/tournaments/<slug>/close"): DIRECTOR_ONLY,
    ("POST", "/director/tournaments/<slug>/reopen"): DIRECTOR_ONLY,
    ("POST", "/director/journal/<int:adjudication_id>/void"): DIRECTOR_ONLY,
    ("POST", "/director/ruling"): DIRECTOR_ONLY,
    ("POST", "/director/checkpoint"): DIRECTOR_ONLY,
    ("GET", "/director/checkpoint.json"): DIRECTOR_ONLY,
    ("GET", "/director/journal-backup.sqlite3"): DIRECTOR_ONLY,
    ("POST", "/director/alarms/acknowledge"): DIRECTOR_ONLY,
    ("GET", "/director/receipts.jsonl"): DIRECTOR_ONLY,
    ("GET", "/director/receipt-key.pem"): DIRECTOR_ONLY,
}

SAMPLE_ARGS = {
    "filename": "director.css",
    "rest": "v1/nothing-here",
    "code": "NOTACODE",
    "slug": NWL,
    "name": "table-1",
    "adjudication_id": 1,
}


def routes(app) -> set[tuple[str, str]]:
    return {
        (method, rule.rule)
        for rule in app.url_map.iter_rules()
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }


@pytest.fixture
def staffed(tmp_path) -> Staffed:
    return build_staffed(tmp_path, WTF_CSRF_ENABLED=False)  # CSRF has its own tests


def test_every_route_has_an_access_rule(staffed: Staffed):
    missing = sorted(routes(staffed.app) - set(ACCESS))
    assert not missing, f"routes without a row in ACCESS: {missing}"
    stale = sorted(set(ACCESS) - routes(staffed.app))
    assert not stale, f"rows in ACCESS for routes that do not exist: {stale}"


def _url(rule) -> str:
    missing = [arg for arg in rule.arguments if arg not in SAMPLE_ARGS]
    assert not missing, f"{rule.rule}: add a sample value for {missing} to SAMPLE_ARGS"
    return rule.build({arg: SAMPLE_ARGS[arg] for arg in rule.arguments}, append_unknown=False)[1]


def _clients(staffed: Staffed) -> dict:
    token_header = staffed.setup.headers()
    return {
        ANON: (staffed.client(), {}),
        COOKIE: (staffed.kiosk_browser(), {}),
        TOKEN: (staffed.client(), token_header),
        JUDGE: (staffed.judge(), {}),
        DIRECTOR: (staffed.director(), {}),
    }


def denied(response) -> bool:
    """Refused: 403, the API's 401, or sent to sign in first (a wrong password is not a refusal)."""
    if response.status_code == 403 or (response.status_code == 401 and response.is_json):
        return True
    return response.status_code == 302 and "/login?next=" in response.headers.get("Location", "")


def _logout_last(item) -> tuple:
    (method, path), _ = item
    return ("logout" in path, path, method)


def test_each_role_gets_exactly_the_access_in_the_table(staffed: Staffed):
    clients = _clients(staffed)
    rules = {rule.rule: rule for rule in staffed.app.url_map.iter_rules()}
    problems = []
    for (method, path), allowed in sorted(ACCESS.items(), key=_logout_last):
        url = _url(rules[path])
        for role, (client, headers) in clients.items():
            if method == "POST" and path == "/api/v1/adjudications":
                response = client.post(url, json={"words": ["QI"]}, headers=headers)
            else:
                response = client.open(url, method=method, headers=headers)
            assert response.status_code < 500, (method, url, role, response.get_data(as_text=True))
            if denied(response) == (role in allowed):
                problems.append(f"{method} {url} as {role}: {response.status_code}")
    assert not problems, "\n".join(problems)


def test_a_kiosk_token_is_refused_on_staff_pages_even_with_a_staff_session(staffed: Staffed):
    judge = staffed.judge()
    response = judge.get("/judge/", headers=staffed.setup.headers())
    assert response.status_code == 403
    assert "kiosk token" in response.get_data(as_text=True)
