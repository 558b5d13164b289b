"""`adjudicator kiosk add|pair|list|revoke|move`, checked through what a kiosk then gets from
the web app: the token and the pairing link work, and stop working when they should."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from adjudicator.hall.hall import Hall
from adjudicator.words.wordlist import WordSet
from kiosk import create_app

from support.hall import CSW_WORDS, NWL_WORDS, SECRET_KEY, ok, refused, submit_pairing_code

PUBLIC_URL = "http://hall.local:8000"
LINK = re.compile(re.escape(PUBLIC_URL) + r"/pair#([A-Z2-9]{10})\b")


@pytest.fixture
def hall_home(run, store, monkeypatch):
    """Two tournaments on tiny lexicons; pairing links on the hall's address."""
    monkeypatch.setenv("ADJUDICATOR_PUBLIC_URL", PUBLIC_URL)
    monkeypatch.setenv("ADJUDICATOR_KIOSK_RATE_LIMIT", "off")
    store.save("TINY-NWL", WordSet.of(NWL_WORDS))
    store.save("TINY-CSW", WordSet.of(CSW_WORDS))
    for slug, lexicon in (("spring-nwl", "TINY-NWL"), ("spring-csw", "TINY-CSW")):
        outcome = run("tournament", "create", slug, "--lexicon", lexicon, "--rule", "double")
        assert outcome.exit_code == 0, outcome.stderr
    return store


@pytest.fixture
def app(hall_home):
    return create_app({"HALL": Hall(), "SECRET_KEY": SECRET_KEY, "TESTING": True})


def add(run, name="table-1", tournament="spring-nwl") -> tuple[str, str, str]:
    """Enrol a kiosk: (stdout, token, pairing code)."""
    out = ok(run("kiosk", "add", name, "--tournament", tournament))
    token = out.splitlines()[-1]
    match = LINK.search(out)
    assert match, out
    return out, token, match.group(1)


def judge(app, token, words=("QI",)):
    return app.test_client().post(
        "/api/v1/adjudications",
        json={"words": list(words)},
        headers={"Authorization": f"Bearer {token}"},
    )


def kiosk_list(run) -> dict:
    return {k["name"]: k for k in json.loads(ok(run("kiosk", "list", "--json")))}


def test_add_prints_a_pairing_link_and_the_token_last(run, app):
    out, token, code = add(run)
    assert "Kiosk 'table-1' enrolled for spring-nwl." in out
    assert re.fullmatch(r"k_[A-Za-z0-9_-]{40,}", token)
    assert f"type the code {code}" in out
    response = judge(app, token)
    assert response.status_code == 201
    assert response.get_json()["tournament"] == "spring-nwl"


def test_the_pairing_link_pairs_a_browser_once(run, app):
    _, _, code = add(run)
    browser = app.test_client()
    assert browser.get("/pair").status_code == 200  # the code after '#' stays in the browser
    assert submit_pairing_code(browser, code).status_code == 302
    assert browser.get("/api/v1/kiosk").get_json()["kiosk"] == "table-1"
    assert submit_pairing_code(app.test_client(), code).status_code == 400


def test_tokens_and_codes_are_stored_only_hashed(run, app, home):
    _, token, code = add(run)
    judge(app, token)  # the database has been written and read with the token
    files = sorted(home.glob("journal.sqlite3*"))
    assert files, "no database file found: this test would check nothing"
    stored = b"".join(path.read_bytes() for path in files)
    assert hashlib.sha256(token.encode()).hexdigest().encode() in stored
    assert token.encode() not in stored and token[2:].encode() not in stored
    assert code.encode() not in stored


@pytest.mark.parametrize(
    "args, fragments",
    [
        (("table-1", "--tournament", "autumn"), ("No tournament 'autumn'",)),
        (("../etc", "--tournament", "spring-nwl"), ("Invalid kiosk name",)),
        (("x" * 41, "--tournament", "spring-nwl"), ("Invalid kiosk name",)),
        (("table-1",), ("--tournament",)),
    ],
    ids=["unknown tournament", "path", "too long", "no tournament"],
)
def test_add_refuses_bad_input(run, hall_home, args, fragments):
    refused(run("kiosk", "add", *args), *fragments)
    assert kiosk_list(run) == {}


def test_add_refuses_a_duplicate_name_and_keeps_the_first_token(run, app):
    _, token, _ = add(run)
    refused(run("kiosk", "add", "table-1", "--tournament", "spring-csw"), "already exists")
    assert judge(app, token).get_json()["tournament"] == "spring-nwl"


def test_pair_gives_a_new_code_and_the_old_one_stops_working(run, app):
    _, _, old = add(run)
    out = ok(run("kiosk", "pair", "table-1"))
    new = LINK.search(out).group(1)
    assert new != old
    assert submit_pairing_code(app.test_client(), old).status_code == 400
    assert submit_pairing_code(app.test_client(), new).status_code == 302
    refused(run("kiosk", "pair", "table-9"), "No kiosk named 'table-9'")


def test_list_shows_tournament_and_state(run, app):
    assert ok(run("kiosk", "list")) == ""
    add(run, "table-1")
    _, _, code = add(run, "table-2", "spring-csw")
    add(run, "table-3")
    submit_pairing_code(app.test_client(), code)
    ok(run("kiosk", "revoke", "table-3"))
    found = kiosk_list(run)
    assert {n: (k["tournament"], k["active"], k["paired"]) for n, k in found.items()} == {
        "table-1": ("spring-nwl", True, False),
        "table-2": ("spring-csw", True, True),
        "table-3": ("spring-nwl", False, False),
    }
    assert found["table-3"]["revoked_at"]
    lines = {line.split()[0]: line for line in ok(run("kiosk", "list")).splitlines()}
    assert "not paired" in lines["table-1"]
    assert " paired" in lines["table-2"] and "not paired" not in lines["table-2"]
    assert "revoked" in lines["table-3"]


def test_list_sorts_kiosks_by_their_numbers(run, app):
    for name in ("table-10", "table-2", "Table-1", "table-2b", "hall", "table-100", "table-9"):
        add(run, name)
    in_order = ["hall", "Table-1", "table-2", "table-2b", "table-9", "table-10", "table-100"]
    assert [k["name"] for k in json.loads(ok(run("kiosk", "list", "--json")))] == in_order
    assert [line.split()[0] for line in ok(run("kiosk", "list")).splitlines()] == in_order


def test_revoke_locks_out_the_token_and_the_paired_browser(run, app):
    _, token, code = add(run)
    browser = app.test_client()
    submit_pairing_code(browser, code)
    assert browser.post("/api/v1/adjudications", json={"words": ["QI"]}).status_code == 201
    assert ok(run("kiosk", "revoke", "table-1")).strip() == (
        "Kiosk 'table-1' revoked: its token, pairing code and paired screens no longer work."
    )
    assert judge(app, token).status_code == 401
    assert browser.post("/api/v1/adjudications", json={"words": ["QI"]}).status_code == 401
    refused(run("kiosk", "pair", "table-1"), "revoked")
    refused(run("kiosk", "revoke", "table-9"), "No kiosk named 'table-9'")


def test_move_sends_the_kiosk_to_another_tournament(run, app):
    _, token, _ = add(run)
    assert judge(app, token, ["CH"]).get_json()["verdict"] == "UNACCEPTABLE"
    out = ok(run("kiosk", "move", "table-1", "--tournament", "spring-csw"))
    assert out.startswith("Kiosk 'table-1' now judges for spring-csw. Its pairing code and paired")
    body = judge(app, token, ["CH"]).get_json()
    assert (body["verdict"], body["tournament"]) == ("ACCEPTABLE", "spring-csw")
    refused(run("kiosk", "move", "table-1", "--tournament", "autumn"), "No tournament 'autumn'")
    refused(run("kiosk", "move", "table-9", "--tournament", "spring-nwl"), "No kiosk")
    assert kiosk_list(run)["table-1"]["tournament"] == "spring-csw"


def test_a_server_bound_to_every_interface_prints_a_link_a_tablet_can_open(
    run, hall_home, monkeypatch
):
    monkeypatch.delenv("ADJUDICATOR_PUBLIC_URL")
    monkeypatch.setenv("ADJUDICATOR_BIND", "0.0.0.0:8123")
    out = ok(run("kiosk", "add", "table-1", "--tournament", "spring-nwl"))
    link = re.search(r"(http://\S+)/pair#[A-Z2-9]{10}\b", out)
    assert link, out
    assert link.group(1).endswith(":8123") and "0.0.0.0" not in out
    monkeypatch.setenv("ADJUDICATOR_BIND", "127.0.0.1:8124")
    assert "http://127.0.0.1:8124/pair#" in ok(run("kiosk", "pair", "table-1"))
