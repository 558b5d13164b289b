"""Each page takes no larger a body than it can use (issue 42, kiosk/body_limits.py): the app
refuses a larger one with a 413 that says the limit, and the loop worker's question (by method
and path) gets the same answer from the app's routes, so it can refuse it from the head."""

from __future__ import annotations

import json

from kiosk.body_limits import API_BYTES, EXTENSION, FORM_BYTES, SIGN_IN_BYTES, limit_for


def test_every_route_that_takes_a_body_has_a_limit_it_can_use(app):
    for rule in app.url_map.iter_rules():
        for method in rule.methods - {"OPTIONS"}:
            limit = limit_for(rule.endpoint, method)
            if method in ("GET", "HEAD"):
                assert limit == 0, (rule.rule, method)
            elif rule.endpoint == "director.lexicon_import":
                assert limit is None  # the director's upload: ADJUDICATOR_UPLOAD_LIMIT_MB
            else:
                assert limit in (API_BYTES, SIGN_IN_BYTES, FORM_BYTES), (rule.rule, method)
                assert limit <= 16 * 1024


def test_the_loop_asks_by_method_and_path_and_is_answered_from_the_routes(app):
    asked = app.extensions[EXTENSION]
    assert asked("POST", "/director/login") == SIGN_IN_BYTES
    assert asked("POST", "/pair") == SIGN_IN_BYTES
    assert asked("POST", "/api/v1/adjudications") == API_BYTES
    assert asked("POST", "/api/v1/kiosk") == API_BYTES
    assert asked("POST", "/director/kiosks/table 1/pair") == FORM_BYTES
    assert asked("POST", "/director/lexicons/import") is None
    assert asked("GET", "/api/v1/kiosk") == 0
    assert asked("POST", "/no/such/page") == 0  # a 404: read no body for it
    assert asked("POST", "/healthz") == 0  # a 405 likewise


def test_a_body_past_its_pages_limit_is_refused_with_a_413_that_says_it(client, setup):
    sign_in = client.post("/director/login", data={"name": "x" * 5000, "password": "y"})
    assert sign_in.status_code == 413 and "send at most 4 KB" in sign_in.get_data(as_text=True)
    headers = {**setup.headers(), "Content-Type": "application/json"}
    big = json.dumps({"words": ["QI"], "player": "x" * 9000})
    judged = client.post("/api/v1/adjudications", data=big, headers=headers)
    assert judged.status_code == 413 and "at most 8 KB" in judged.get_json()["error"]
    assert "verdict" not in judged.get_json()
    within = json.dumps({"words": ["QI"], "player": "x" * 7000})
    judged = client.post("/api/v1/adjudications", data=within, headers=headers)
    assert judged.status_code == 400  # read, and refused for what it says, not its size
