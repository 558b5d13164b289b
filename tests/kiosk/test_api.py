"""The kiosk app through Flask's test client: every route, every error a client can cause.

Each error is JSON `{"ok": false, "status", "error"}` with no verdict, and no error leaves a
row in the journal; a 201 is only ever sent for a row that is already in the journal.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import threading
import time
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.errors import SettingError
from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.hall.people.ratelimit import RateLimit
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.hall import (
    API_FIELDS,
    CSRF_INPUT,
    CSW,
    NWL,
    FailingCommits,
    block_inserts,
    build_setup,
    compiled_file,
    flip_byte,
    make_app,
    pair_browser,
    submit_pairing_code,
)

ADJUDICATIONS = "/api/v1/adjudications"
HEX64 = re.compile(r"[0-9a-f]{64}")


def judge(client, setup, words, enrolment=None, **extra):
    return client.post(
        ADJUDICATIONS, json={"words": words, **extra}, headers=setup.headers(enrolment)
    )


def rows(setup) -> list[journal.Entry]:
    return list(journal.entries(SqliteDatabase(str(setup.db_path))))


def assert_refused(response, status: int) -> dict:
    """An error as the API promises it: JSON, ok false, the status, a message, no verdict."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert body["ok"] is False and body["status"] == status
    assert isinstance(body["error"], str) and len(body["error"]) > 10
    assert "verdict" not in body
    text = response.get_data(as_text=True)
    assert "ACCEPTABLE" not in text and "Traceback" not in text
    return body


# --- /healthz, lexicons, tournaments -------------------------------------------------------


def test_healthz_answers_200_when_the_app_can_judge(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json()["ok"] is True


def test_healthz_is_503_json_when_no_lexicon_is_installed(setup, tmp_path):
    empty = Hall(LexiconStore(root=tmp_path / "empty"), setup.hall.db, rate_limit=None)
    body = assert_refused(make_app(empty).test_client().get("/healthz"), 503)
    assert "lexicon" in body["error"].lower()


def test_healthz_is_503_when_the_database_is_unusable(setup, tmp_path):
    folder = tmp_path / "not-a-database"
    folder.mkdir()
    hall = Hall(setup.store, SqliteDatabase(str(folder)), rate_limit=None)
    assert_refused(make_app(hall).test_client().get("/healthz"), 503)


def test_lexicons_lists_names_word_counts_and_fingerprints(client, setup):
    response = client.get("/api/v1/lexicons")
    assert response.status_code == 200
    listed = {item["name"]: item for item in response.get_json()}
    assert set(listed) == {"TINY-NWL", "TINY-CSW"}
    assert listed["TINY-NWL"]["words"] == 12 and listed["TINY-CSW"]["words"] == 7
    for name, item in listed.items():
        assert HEX64.fullmatch(item["fingerprint"])
        assert item["fingerprint"] == setup.store.manifest(name).fingerprint


def test_tournaments_lists_each_division_with_its_lexicon_and_rule(client):
    response = client.get("/api/v1/tournaments")
    assert response.status_code == 200
    listed = {t["slug"]: t for t in response.get_json()}
    assert listed[NWL]["lexicon"] == "TINY-NWL" and listed[NWL]["rule"] == "5-per-word"
    assert listed[CSW]["lexicon"] == "TINY-CSW" and listed[CSW]["rule"] == "double"
    assert listed[NWL]["title"] == "Spring Open (NWL division)"


# --- /api/v1/kiosk ---------------------------------------------------------------------------


def test_kiosk_status_is_401_for_an_unpaired_client(client):
    body = assert_refused(client.get("/api/v1/kiosk"), 401)
    assert "pair" in body["error"]
    assert "tournament" not in body


def test_kiosk_status_by_token_shows_tournament_lexicon_and_rule(client, setup):
    response = client.get("/api/v1/kiosk", headers=setup.headers(setup.csw))
    assert response.status_code == 200
    data = response.get_json()
    assert data["kiosk"] == "table-2"
    assert data["tournament"] == {
        "slug": CSW,
        "title": "Spring Open (CSW division)",
        "language": "en",
        "tsh_linked": False,  # the page then never asks for its game (issue 36)
    }
    assert data["table"] is None
    lexicon = setup.store.manifest("TINY-CSW")
    assert data["lexicon"]["name"] == "TINY-CSW" and data["lexicon"]["words"] == 7
    assert data["lexicon"]["fingerprint"] == lexicon.fingerprint
    assert data["lexicon"]["short_fingerprint"] == lexicon.fingerprint[:12]
    assert data["rule"]["name"] == "double"


def test_kiosk_status_by_pairing_cookie(app, setup):
    browser = pair_browser(app, setup.nwl)
    response = browser.get("/api/v1/kiosk")
    assert response.status_code == 200
    assert response.get_json()["tournament"]["slug"] == NWL


def test_kiosk_status_gives_the_page_its_timings(setup, monkeypatch):
    for name in ("VERDICT_SECONDS", "CLEAR_SECONDS", "REQUEST_TIMEOUT_SECONDS"):
        monkeypatch.delenv(f"ADJUDICATOR_{name}", raising=False)
    status = make_app(setup.hall).test_client().get("/api/v1/kiosk", headers=setup.headers())
    timings = {k: v for k, v in status.get_json().items() if k.endswith("_seconds")}
    assert timings == {"verdict_seconds": 10, "clear_seconds": 30, "request_timeout_seconds": 8}
    monkeypatch.setenv("ADJUDICATOR_REQUEST_TIMEOUT_SECONDS", "3")
    status = make_app(setup.hall).test_client().get("/api/v1/kiosk", headers=setup.headers())
    assert status.get_json()["request_timeout_seconds"] == 3
    monkeypatch.setenv("ADJUDICATOR_REQUEST_TIMEOUT_SECONDS", "0")
    with pytest.raises(SettingError, match="ADJUDICATOR_REQUEST_TIMEOUT_SECONDS"):
        make_app(setup.hall)


def test_kiosk_status_follows_a_change_of_rule_and_lexicon(client, setup):
    tournaments.update(setup.hall.db, setup.store, NWL, rule="single", lexicon="TINY-CSW")
    data = client.get("/api/v1/kiosk", headers=setup.headers()).get_json()
    assert data["rule"]["name"] == "single"
    assert data["lexicon"]["name"] == "TINY-CSW"
    verdict = judge(client, setup, ["CH"]).get_json()
    assert verdict["verdict"] == "ACCEPTABLE" and verdict["rule"] == "single"


def test_kiosk_status_says_when_its_lexicon_cannot_be_used(client, setup):
    def available(enrolment=None):
        response = client.get("/api/v1/kiosk", headers=setup.headers(enrolment))
        return response.status_code, response.get_json().get("lexicon", {}).get("available")

    assert available() == (200, True)
    setup.store.save("TINY-NWL", WordSet.of(["QI", "QX"]))  # re-imported with other words
    assert available() == (200, False)
    tournaments.update(setup.hall.db, setup.store, NWL, lexicon="TINY-NWL")
    assert available() == (200, True)
    time.sleep(0.05)
    flip_byte(compiled_file(setup.store, "TINY-NWL"))  # damaged on disk
    assert available() == (200, False)
    assert available(setup.csw) == (200, True)


# --- POST /api/v1/adjudications: the verdict -------------------------------------------------


def test_adjudication_returns_every_documented_field(client, setup):
    response = judge(client, setup, ["qi", " Za ", "ZEBRA"], table="12", round=3)
    assert response.status_code == 201
    body = response.get_json()
    assert set(API_FIELDS) <= set(body)
    manifest = setup.store.manifest("TINY-NWL")
    assert body["verdict"] == "ACCEPTABLE"
    assert body["words"] == ["QI", "ZA", "ZEBRA"]
    assert body["word_count"] == 3
    assert body["tournament"] == NWL
    assert body["lexicon"] == {"name": "TINY-NWL", "fingerprint": manifest.fingerprint, "words": 12}
    assert body["rule"] == "5-per-word"
    assert body["consequence"] == (
        "The play stands; 5 points x 3 words: the player adds 15; the challenger keeps the turn."
    )
    assert body["penalty"] == {
        "play_stands": True,
        "points_to_player": 15,
        "challenger_loses_turn": False,
        "points_to_challenger": 0,
    }
    assert isinstance(body["id"], int)
    assert datetime.fromisoformat(body["recorded_at"]).tzinfo is not None
    assert body["table"] == "12" and body["round"] == "3"
    assert "Location" not in response.headers  # no endpoint serves one adjudication


def test_the_row_is_in_the_journal_before_the_response_leaves(app, setup):
    seen_before_sending = []

    @app.after_request
    def look_in_the_journal(response):
        if response.status_code == 201:
            entry = journal.get(SqliteDatabase(str(setup.db_path)), response.get_json()["id"])
            seen_before_sending.append(entry)
        return response

    body = judge(app.test_client(), setup, ["QI", "QX"], challenger="Ann").get_json()
    (entry,) = seen_before_sending
    assert entry is not None, "the verdict was about to be sent before its row was committed"
    receipt = body.pop("receipt")
    shown = body.pop("shown")  # the kiosk's wording of it, in the language asked for
    assert entry.to_api() == body
    assert shown["word"] == "UNACCEPTABLE" and shown["gloss"] == "the play comes off the board"
    assert (receipt["id"], receipt["row_hash"]) == (entry.id, entry.row_hash)
    assert entry.verdict == "UNACCEPTABLE" and entry.words == ("QI", "QX")
    assert entry.kiosk == "table-1" and entry.challenger == "Ann"
    assert journal.verify(setup.hall.db).ok


def test_an_unacceptable_play_comes_off_whatever_the_rule(client, setup):
    body = judge(client, setup, ["CAT", "QX"]).get_json()
    assert body["verdict"] == "UNACCEPTABLE"
    assert body["consequence"] == "The play comes off the board and scores zero."
    assert body["word_count"] == 2


def test_each_kiosk_is_judged_on_its_own_tournaments_lexicon(client, setup):
    assert judge(client, setup, ["CH"], setup.nwl).get_json()["verdict"] == "UNACCEPTABLE"
    csw = judge(client, setup, ["CH"], setup.csw).get_json()
    assert csw["verdict"] == "ACCEPTABLE" and csw["tournament"] == CSW
    assert csw["consequence"] == "The play stands; the challenger loses their turn."
    assert [(e.kiosk, e.tournament) for e in rows(setup)] == [("table-1", NWL), ("table-2", CSW)]


def test_a_word_challenged_twice_counts_twice(client, setup):
    body = judge(client, setup, ["QI", "qi"]).get_json()
    assert body["words"] == ["QI", "QI"] and body["word_count"] == 2
    assert body["consequence"].endswith("the player adds 10; the challenger keeps the turn.")


def test_the_tournament_rule_applies_from_the_next_challenge(client, setup):
    assert judge(client, setup, ["QI"]).get_json()["rule"] == "5-per-word"
    tournaments.update(setup.hall.db, setup.store, NWL, rule="10-per-turn")
    body = judge(client, setup, ["QI"]).get_json()
    assert body["rule"] == "10-per-turn"
    assert body["consequence"] == (
        "The play stands; the player adds 10 points; the challenger keeps the turn."
    )


# --- 400: bad input --------------------------------------------------------------------------

BAD_BODIES = {
    "digit": ({"words": ["QI", "Z4"]}, "digit"),
    "question mark": ({"words": ["QI?"]}, "'?'"),
    "hyphen": ({"words": ["CAT-DOG"]}, "'-'"),
    "apostrophe": ({"words": ["DON'T"]}, "'"),
    "accented letter": ({"words": ["CAFÉ"]}, "U+00C9"),
    "Cyrillic look-alike": ({"words": ["\u0421AT"]}, "U+0421"),  # a Cyrillic ES, not C
    "empty list": ({"words": []}, "No words"),
    "only separators": ({"words": [" , "]}, "No words"),
    "one letter": ({"words": ["Q"]}, "1 letter"),
    "nine words": ({"words": ["QI"] * 9}, "Too many words"),
    "sixteen letters": ({"words": ["ABCDEFGHIJKLMNOP"]}, "16 letters"),
    "words missing": ({}, "words"),
    "words a number": ({"words": 7}, "words"),
    "words an object": ({"words": {"QI": True}}, "words"),
    "words null": ({"words": None}, "words"),
    "words a string": ({"words": "QI ZA"}, "a list"),
    "a word not text": ({"words": ["QI", 3]}, "text"),
    "unknown field": ({"words": ["QI"], "lexicon": "TINY-CSW"}, "Unknown field"),
    "table true": ({"words": ["QI"], "table": True}, "table"),
    "table a list": ({"words": ["QI"], "table": [1]}, "table"),
    "round an object": ({"words": ["QI"], "round": {"n": 1}}, "round"),
    "round too long": ({"words": ["QI"], "round": "9" * 41}, "round"),
    "player with a newline": ({"words": ["QI"], "player": "Ann\nBob"}, "player"),
}


@pytest.mark.parametrize("body, expected", list(BAD_BODIES.values()), ids=list(BAD_BODIES))
def test_bad_input_is_400_with_a_message_and_no_verdict(client, setup, body, expected):
    response = client.post(ADJUDICATIONS, json=body, headers=setup.headers())
    error = assert_refused(response, 400)["error"]
    assert expected in error
    assert rows(setup) == []


@pytest.mark.parametrize(
    "data, content_type",
    [
        ("QI ZA", "text/plain"),
        ("{not json", "application/json"),
        ('["QI", "ZA"]', "application/json"),
        ('"QI"', "application/json"),
        ("", "application/json"),
        ('{"words": ["QI"]}', "application/x-www-form-urlencoded"),
    ],
    ids=["plain text", "broken JSON", "JSON array", "JSON string", "empty body", "form"],
)
def test_a_body_that_is_not_a_json_object_is_400(client, setup, data, content_type):
    response = client.post(
        ADJUDICATIONS, data=data, content_type=content_type, headers=setup.headers()
    )
    assert "JSON object" in assert_refused(response, 400)["error"]
    assert rows(setup) == []


def test_an_input_error_does_not_depend_on_the_other_words_validity(client, setup):
    with_good = judge(client, setup, ["QI", "Q1"])
    with_bad = judge(client, setup, ["QX", "Q1"])
    assert with_good.status_code == with_bad.status_code == 400
    assert with_good.get_data() == with_bad.get_data()


def test_an_oversized_body_is_413_and_judges_nothing(client, setup):
    body = json.dumps({"words": ["QI"], "player": "A" * 70_000})
    response = client.post(
        ADJUDICATIONS, data=body, content_type="application/json", headers=setup.headers()
    )
    assert_refused(response, 413)
    assert rows(setup) == []


# --- 401: who is asking ----------------------------------------------------------------------


def test_no_token_is_401(client, setup):
    assert_refused(client.post(ADJUDICATIONS, json={"words": ["QI"]}), 401)
    assert rows(setup) == []


@pytest.mark.parametrize(
    "header",
    [
        "Bearer k_not-a-real-token",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "k_missing-the-scheme",
        "Bearer " + "k" * 5000,
    ],
)
def test_a_bad_token_is_401(client, setup, header):
    response = client.post(ADJUDICATIONS, json={"words": ["QI"]}, headers={"Authorization": header})
    assert_refused(response, 401)
    assert rows(setup) == []


def test_the_token_of_another_scheme_is_not_accepted(client, setup):
    response = client.post(
        ADJUDICATIONS, json={"words": ["QI"]}, headers={"Authorization": f"Basic {setup.nwl.token}"}
    )
    assert_refused(response, 401)


def test_a_revoked_kiosks_token_and_browser_are_401(app, setup):
    browser = pair_browser(app, setup.nwl)
    assert browser.post(ADJUDICATIONS, json={"words": ["QI"]}).status_code == 201
    kiosks.revoke(setup.hall.db, "table-1")
    assert_refused(judge(app.test_client(), setup, ["QI"]), 401)
    assert_refused(browser.post(ADJUDICATIONS, json={"words": ["QI"]}), 401)
    assert len(rows(setup)) == 1
    # the other tournament's kiosk is untouched
    assert judge(app.test_client(), setup, ["QI"], setup.csw).status_code == 201


def _cookie(client) -> str:
    return client.get_cookie("kiosk_pairing").value


def test_a_tampered_cookie_is_401(app, setup):
    browser = pair_browser(app, setup.nwl)
    good = _cookie(browser)
    payload, _, signature = good.rpartition(".")
    forged = [
        payload + "." + ("A" if signature[0] != "A" else "B") + signature[1:],  # signature edited
        ("x" if payload[0] != "x" else "y") + payload[1:] + "." + signature,  # payload edited
        "eyJrIjoidGFibGUtMSIsIm4iOiJ4In0",  # {"k":"table-1","n":"x"} with no signature
        "",
    ]
    for value in forged:
        thief = app.test_client()
        thief.set_cookie("kiosk_pairing", value)
        assert_refused(thief.post(ADJUDICATIONS, json={"words": ["QI"]}), 401)
        assert_refused(thief.get("/api/v1/kiosk"), 401)
    assert rows(setup) == []
    assert browser.post(ADJUDICATIONS, json={"words": ["QI"]}).status_code == 201


def test_a_cookie_signed_with_another_key_is_401(app, setup):
    browser = pair_browser(app, setup.nwl)
    other_hall = make_app(setup.hall, SECRET_KEY="a-different-secret-" + "y" * 32).test_client()
    other_hall.set_cookie("kiosk_pairing", _cookie(browser))
    assert_refused(other_hall.post(ADJUDICATIONS, json={"words": ["QI"]}), 401)


def test_pairing_again_unpairs_the_browser_paired_before(app, setup):
    first = pair_browser(app, setup.nwl)
    again = kiosks.new_pairing(setup.hall.db, "table-1")
    second = pair_browser(app, again)
    assert second.post(ADJUDICATIONS, json={"words": ["QI"]}).status_code == 201
    assert_refused(first.post(ADJUDICATIONS, json={"words": ["QI"]}), 401)


# --- 429: rate limit -------------------------------------------------------------------------


def test_over_the_rate_limit_is_429_with_retry_after(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    setup = build_setup(tmp_path, rate_limit=RateLimit(2, 60))
    client = make_app(setup.hall).test_client()
    assert [judge(client, setup, ["QI"]).status_code for _ in range(2)] == [201, 201]
    response = judge(client, setup, ["QI"])
    body = assert_refused(response, 429)
    assert response.headers["Retry-After"] == "60"
    assert "wait" in body["error"]
    assert len(rows(setup)) == 2
    # the limit is per kiosk: the other division's kiosk still judges
    assert judge(client, setup, ["QI"], setup.csw).status_code == 201
    # and a refused challenge is not counted as a judged one
    assert_refused(judge(client, setup, ["QI"]), 429)
    assert [e.kiosk for e in rows(setup)] == ["table-1", "table-1", "table-2"]


def test_the_rate_limit_holds_for_simultaneous_challenges(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    setup = build_setup(tmp_path, rate_limit=RateLimit(2, 60))
    app = make_app(setup.hall)
    statuses = []
    start = threading.Barrier(8)

    def challenger():
        client = app.test_client()
        start.wait(10)
        statuses.append(judge(client, setup, ["QI"]).status_code)

    threads = [threading.Thread(target=challenger) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(statuses) == [201, 201] + [429] * 6
    assert len(rows(setup)) == 2


# --- 503: nothing is judged if it cannot be recorded -------------------------------------------


def test_a_failing_commit_is_503_not_judged_and_leaves_no_row(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    base = SqliteDatabase(str(tmp_path / "journal.sqlite3"))
    failing = FailingCommits(base)
    setup = build_setup(tmp_path, db=failing)
    client = make_app(setup.hall).test_client()
    for words in (["QI"], ["QX"]):  # neither an acceptable nor an unacceptable verdict leaks
        body = assert_refused(judge(client, setup, words), 503)
        assert body["error"].startswith("NOT JUDGED")
    assert failing.attempts >= 2
    assert rows(setup) == []


def test_a_journal_sqlite_refuses_writes_503(client, setup):
    assert judge(client, setup, ["QI"]).status_code == 201
    block_inserts(setup.db_path)
    body = assert_refused(judge(client, setup, ["ZA"]), 503)
    assert "NOT JUDGED" in body["error"] and "director" in body["error"]
    assert [e.words for e in rows(setup)] == [("QI",)]


def test_a_directory_in_place_of_the_database_is_503(setup, tmp_path):
    setup.hall.db.close()
    setup.db_path.unlink()
    for suffix in ("-wal", "-shm"):
        setup.db_path.with_name(setup.db_path.name + suffix).unlink(missing_ok=True)
    setup.db_path.mkdir()
    hall = Hall(setup.store, SqliteDatabase(str(setup.db_path)), rate_limit=None)
    client = make_app(hall).test_client()
    body = assert_refused(judge(client, setup, ["QI"]), 503)
    assert "NOT JUDGED" in body["error"]
    shutil.rmtree(setup.db_path)


def _unavailable(response) -> str:
    body = assert_refused(response, 503)
    assert "call the director" in body["error"]
    assert "NOT JUDGED" not in body["error"] or "lexicon" in body["error"].lower()
    return body["error"]


def test_a_corrupted_lexicon_stops_its_tournament_only(setup, tmp_path):
    flip_byte(compiled_file(setup.store, "TINY-NWL"))
    hall = Hall(LexiconStore(root=setup.store.root), setup.hall.db, rate_limit=None)
    client = make_app(hall).test_client()
    error = _unavailable(judge(client, setup, ["QI"]))
    assert error.startswith("Lexicon unavailable")
    assert judge(client, setup, ["QI"], setup.csw).status_code == 201
    assert [e.tournament for e in rows(setup)] == [CSW]


def test_a_lexicon_corrupted_while_the_server_runs_stops_its_tournament(client, setup):
    assert judge(client, setup, ["QI"]).status_code == 201
    assert judge(client, setup, ["QI"], setup.csw).status_code == 201
    time.sleep(0.05)  # the server has been running a while: past the file clock's granularity
    flip_byte(compiled_file(setup.store, "TINY-NWL"))
    _unavailable(judge(client, setup, ["QI", "ZA"]))
    assert judge(client, setup, ["ZA"], setup.csw).status_code == 201
    assert [e.tournament for e in rows(setup)] == [NWL, CSW, CSW]


def test_a_lexicon_reimported_with_other_words_is_refused_until_the_director_resets_it(
    client, setup
):
    assert judge(client, setup, ["QI"]).status_code == 201
    setup.store.save("TINY-NWL", WordSet.of(["QI", "ZA", "CAT", "QX"]))
    error = _unavailable(judge(client, setup, ["QX"]))
    assert "changed" in error
    assert judge(client, setup, ["QI"], setup.csw).status_code == 201
    tournaments.update(setup.hall.db, setup.store, NWL, lexicon="TINY-NWL")
    body = judge(client, setup, ["QX"]).get_json()
    assert body["verdict"] == "ACCEPTABLE"
    assert body["lexicon"]["fingerprint"] == setup.store.manifest("TINY-NWL").fingerprint


def test_a_removed_lexicon_is_503(client, setup):
    setup.store.remove("TINY-NWL")
    _unavailable(judge(client, setup, ["QI"]))
    assert judge(client, setup, ["QI"], setup.csw).status_code == 201


# --- 404, methods -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/api/v1/nothing-here"),
        ("post", "/api/v1/adjudicate"),
        ("get", "/api/v2/adjudications"),
        ("delete", "/api/v1/tournaments/spring-nwl"),
    ],
)
def test_an_unknown_api_path_is_a_json_404(client, setup, method, path):
    response = getattr(client, method)(path, headers=setup.headers())
    assert "/api/" in assert_refused(response, 404)["error"]


def test_an_unknown_page_is_an_html_404(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert "Traceback" not in response.get_data(as_text=True)


def test_get_on_the_adjudications_endpoint_judges_nothing(client, setup):
    response = client.get(ADJUDICATIONS + "?words=QI", headers=setup.headers())
    assert response.status_code in (404, 405)
    assert "verdict" not in response.get_data(as_text=True)
    assert rows(setup) == []


# --- security headers -------------------------------------------------------------------------


def _paths(app, setup):
    browser = pair_browser(app, setup.nwl)
    anon = app.test_client()
    return {
        "kiosk page": browser.get("/"),
        "unpaired page": anon.get("/"),
        "pair page": anon.get("/pair"),
        "healthz": anon.get("/healthz"),
        "lexicons": anon.get("/api/v1/lexicons"),
        "adjudication": browser.post(ADJUDICATIONS, json={"words": ["QI"]}),
        "api error": anon.post(ADJUDICATIONS, json={"words": ["QI"]}),
        "api 404": anon.get("/api/v1/nope"),
        "page 404": anon.get("/nope"),
    }


def test_every_response_carries_the_security_headers(app, setup):
    for name, response in _paths(app, setup).items():
        csp = response.headers.get("Content-Security-Policy", "")
        assert "frame-ancestors 'none'" in csp, name
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, name
        assert "script-src 'self'" in csp, name
        assert response.headers.get("X-Content-Type-Options") == "nosniff", name
        assert response.headers.get("Referrer-Policy") == "no-referrer", name


def test_pages_have_no_inline_script_or_style_the_policy_would_block(app, setup):
    for name, response in _paths(app, setup).items():
        if response.mimetype != "text/html":
            continue
        html = response.get_data(as_text=True)
        # a JSON data block (the kiosk's messages) is never run, so the policy has nothing to block
        assert not re.search(r"<script(?![^>]*\b(src=|type=\"application/json\"))[^>]*>", html), (
            name
        )
        assert not re.search(r"\son[a-z]+\s*=", html), name
        assert not re.search(r"<style\b|\sstyle\s*=", html), name
        assert not re.search(r"(src|href)=\"(https?:)?//", html), f"{name} loads from another host"


# --- pairing and the pages --------------------------------------------------------------------


def test_opening_the_pairing_link_does_not_use_the_code(app, setup):
    preview = app.test_client().get(f"/pair/{setup.nwl.pairing_code}")
    assert preview.status_code == 200
    assert setup.nwl.pairing_code in preview.get_data(as_text=True)
    # the form's CSRF token may start a session cookie, but nothing pairs
    assert "kiosk_pairing=" not in preview.headers.get("Set-Cookie", "")
    browser = app.test_client()
    browser.get(f"/pair/{setup.nwl.pairing_code}")
    assert submit_pairing_code(browser, setup.nwl.pairing_code).status_code == 302


def test_pairing_sets_a_strict_httponly_cookie_and_shows_the_kiosk(app, setup):
    browser = app.test_client()
    assert "word-input" not in browser.get("/").get_data(as_text=True)
    response = submit_pairing_code(browser, setup.nwl.pairing_code)
    assert response.status_code == 302
    assert response.headers["Location"] in ("/", "http://localhost/")
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("kiosk_pairing=")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert re.search(r"Max-Age=\d{7,}", cookie), "the pairing should outlive a tournament"
    page = browser.get("/")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert 'id="word-input"' in html and "JUDGE" in html
    assert "table-1" in html
    assert 'spellcheck="false"' in html


def test_a_code_typed_by_hand_in_lower_case_with_spaces_pairs(app, setup):
    code = setup.nwl.pairing_code
    typed = f"  {code[:5].lower()} {code[5:].lower()} "
    assert submit_pairing_code(app.test_client(), typed).status_code == 302


def _expire(setup, name):
    with sqlite3.connect(setup.db_path) as connection:
        connection.execute(
            "UPDATE kiosks SET pairing_expires_at = '2000-01-01T00:00:00+00:00' WHERE name = ?",
            (name,),
        )
    connection.close()


@pytest.mark.parametrize("case", ["used", "expired", "unknown", "empty", "revoked", "huge"])
def test_a_code_that_cannot_pair_is_400_with_a_message(app, setup, case):
    code = setup.nwl.pairing_code
    if case == "used":
        pair_browser(app, setup.nwl)
    elif case == "expired":
        _expire(setup, "table-1")
    elif case == "unknown":
        code = "ABCDEFGHJK"
    elif case == "empty":
        code = ""
    elif case == "revoked":
        kiosks.revoke(setup.hall.db, "table-1")
    elif case == "huge":
        code = "A" * 3000  # within the pairing form's 4 KB (kiosk/body_limits.py)
    browser = app.test_client()
    response = submit_pairing_code(browser, code)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    if case == "expired":  # the right code, past its time: say so, and when
        assert "This card&#39;s code expired at 2000-01-01 " in html
        assert "Ask the director for a new card." in html
    else:
        assert "not valid, was already used, or has expired" in html
        assert "Ask the director" in html
    assert response.headers.get("Set-Cookie") is None
    assert 'id="word-input"' not in browser.get("/").get_data(as_text=True)


PAIRING_EXPIRED = "Not paired: this pairing form has expired."


def _refused_for_csrf(response) -> None:
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert PAIRING_EXPIRED in html and "Reload the pairing page and try again" in html
    assert 'href="/pair"' in html  # a way back to the form on a kiosk screen with no Back button
    assert response.headers.get("Set-Cookie") is None


@pytest.mark.parametrize("page", ["/pair", "/"])
def test_the_pairing_forms_carry_a_csrf_token(app, page):
    html = app.test_client().get(page).get_data(as_text=True)
    assert re.search(
        r'<form method="post" action="/pair"[^>]*>\s*<input type="hidden" '
        r'name="csrf_token" value="[^"]+">',
        html,
    )


def test_pairing_without_a_csrf_token_is_refused_and_pairs_nothing(app, setup):
    browser = app.test_client()
    browser.get("/pair")  # a session, but the POST carries no token
    _refused_for_csrf(browser.post("/pair", data={"code": setup.nwl.pairing_code}))
    _refused_for_csrf(app.test_client().post("/pair", data={"code": setup.nwl.pairing_code}))
    assert browser.get("/api/v1/kiosk").status_code == 401
    # the code was not used up: the kiosk's own screen can still pair with it
    assert submit_pairing_code(app.test_client(), setup.nwl.pairing_code).status_code == 302


def test_pairing_with_another_sessions_csrf_token_is_refused(app, setup):
    attacker = app.test_client()
    token = CSRF_INPUT.search(attacker.get("/pair").text).group(1)
    victim = app.test_client()
    victim.get("/")  # the victim's screen has its own session and token
    for browser in (victim, app.test_client()):
        response = browser.post("/pair", data={"code": setup.nwl.pairing_code, "csrf_token": token})
        _refused_for_csrf(response)
        assert browser.get("/api/v1/kiosk").status_code == 401


def test_a_json_post_to_pair_without_a_token_gets_a_json_error(app, setup):
    response = app.test_client().post("/pair", json={"code": setup.nwl.pairing_code})
    assert response.status_code == 400 and response.is_json
    body = response.get_json()
    assert body["ok"] is False and body["error"].startswith(PAIRING_EXPIRED)


def test_the_api_is_still_exempt_from_csrf(app, setup):
    browser = pair_browser(app, setup.nwl)
    response = browser.post(ADJUDICATIONS, json={"words": ["QI"]})
    assert response.status_code == 201, response.get_data(as_text=True)
    refused = app.test_client().post(ADJUDICATIONS, json={"words": ["QI"]})
    assert refused.status_code == 401 and refused.is_json
    assert "csrf" not in refused.get_data(as_text=True).lower()


def test_an_unpaired_browser_sees_how_to_pair_and_nothing_else(app, setup):
    response = app.test_client().get("/")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "not a kiosk yet" in html and "pairing code" in html.lower()
    for kiosk_ui in ('id="word-input"', "JUDGE", "kiosk.js", "Spring Open", "TINY-NWL", "table-1"):
        assert kiosk_ui not in html


def test_a_revoked_kiosks_browser_is_back_to_the_pairing_page(app, setup):
    browser = pair_browser(app, setup.nwl)
    assert 'id="word-input"' in browser.get("/").get_data(as_text=True)
    kiosks.revoke(setup.hall.db, "table-1")
    html = browser.get("/").get_data(as_text=True)
    assert 'id="word-input"' not in html and "not a kiosk yet" in html


# --- random bodies --------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(["words", "table", "round", "challenger", "player", "lexicon", "rule"])
bodies = st.one_of(
    json_values,
    st.dictionaries(FIELDS, json_values, max_size=5),
    st.fixed_dictionaries({"words": st.lists(st.text(max_size=18), max_size=10)}),
    st.fixed_dictionaries(
        {"words": st.lists(st.from_regex(r"[A-Za-z]{1,16}", fullmatch=True), max_size=9)}
    ),
)
PLAUSIBLE = re.compile(r"[A-Za-z]{2,15}")


def _is_valid_challenge(body) -> bool:
    """The documented input rules, restated independently of the app's code."""
    if not isinstance(body, dict) or not isinstance(body.get("words"), list):
        return False
    if set(body) - {"words", "table", "round", "challenger", "player"}:
        return False
    for name in ("table", "round", "challenger", "player"):
        value = body.get(name)
        if value in (None, ""):
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            return False
        if len(str(value).strip()) > 40 or not str(value).strip().isprintable():
            return False
    if not all(isinstance(w, str) for w in body["words"]):
        return False
    pieces = [p for w in body["words"] for p in re.split(r"[ \t\r\n,]+", w) if p]
    return 1 <= len(pieces) <= 8 and all(PLAUSIBLE.fullmatch(p) for p in pieces)


@pytest.mark.slow  # Hypothesis: hundreds of random bodies
def test_random_json_bodies_never_500_and_never_judge_bad_input(app, setup):
    client = app.test_client()
    headers = setup.headers()
    judged = []

    @settings(
        max_examples=300,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(bodies)
    def post(body):
        response = client.post(
            ADJUDICATIONS, data=json.dumps(body), content_type="application/json", headers=headers
        )
        if _is_valid_challenge(body):
            assert response.status_code == 201, (body, response.get_data(as_text=True))
            answer = response.get_json()
            assert answer["verdict"] in ("ACCEPTABLE", "UNACCEPTABLE")
            assert all(PLAUSIBLE.fullmatch(w) and w.isupper() for w in answer["words"])
            judged.append(answer["id"])
        else:
            assert_refused(response, 400)

    post()
    assert [e.id for e in rows(setup)] == judged


def test_other_methods_on_adjudications_are_405_json(client_for_kiosk=None):
    from kiosk import create_app

    app = create_app({"SECRET_KEY": "x", "HALL": object()})
    response = app.test_client().get("/api/v1/adjudications")
    assert response.status_code == 405
    assert response.get_json() == {
        "ok": False,
        "status": 405,
        "error": "Only POST is allowed here: send the challenged words to judge them.",
    }
    assert response.headers["Allow"] == "POST"
