"""`adjudicator journal export|verify`, `db upgrade`, `serve --get` and `quickstart --no-serve`."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import stat

import pytest

from adjudicator.cli import quickstart_cmd
from adjudicator.hall.director import export
from adjudicator.hall.hall import Hall
from adjudicator.hall.network import connection_caps
from adjudicator.record.database import migrations
from adjudicator.words.wordlist import WordSet
from kiosk import create_app

from support.hall import CSW_WORDS, NWL_WORDS, SECRET_KEY, ok, submit_pairing_code
from support.journal import rewrite_with_a_recomputed_chain


def token_of(outcome) -> str:
    return ok(outcome).splitlines()[-1]


@pytest.fixture
def hall_home(run, store, monkeypatch):
    """Two tournaments on tiny lexicons, one kiosk each: {slug: token}."""
    monkeypatch.setenv("ADJUDICATOR_KIOSK_RATE_LIMIT", "off")
    store.save("TINY-NWL", WordSet.of(NWL_WORDS))
    store.save("TINY-CSW", WordSet.of(CSW_WORDS))
    tokens = {}
    for slug, lexicon, rule in (
        ("spring-nwl", "TINY-NWL", "5-per-word"),
        ("spring-csw", "TINY-CSW", "double"),
    ):
        ok(run("tournament", "create", slug, "--lexicon", lexicon, "--rule", rule))
        tokens[slug] = token_of(run("kiosk", "add", f"kiosk-{slug}", "--tournament", slug))
    return tokens


@pytest.fixture
def judged(hall_home):
    """Four adjudications made through the API: the responses, in order."""
    client = create_app({"HALL": Hall(), "SECRET_KEY": SECRET_KEY}).test_client()
    responses = []
    for slug, words, extra in (
        ("spring-nwl", ["qi", "za"], {"table": "4", "round": 2}),
        ("spring-csw", ["CH"], {}),
        ("spring-nwl", ["QX", "ZEBRA", "CAT"], {"challenger": "Ann", "player": "Bob"}),
        ("spring-nwl", ["JO"], {}),
    ):
        response = client.post(
            "/api/v1/adjudications",
            json={"words": words, **extra},
            headers={"Authorization": f"Bearer {hall_home[slug]}"},
        )
        assert response.status_code == 201
        responses.append(response.get_json())
    return responses


def tamper(home, sql: str) -> None:
    with sqlite3.connect(home / "journal.sqlite3") as connection:
        connection.execute(sql)
    connection.close()


# --- db upgrade ---------------------------------------------------------------------------------


ALL_VERSIONS = [version for version, _, _ in migrations.MIGRATIONS]
UP_TO_DATE = f"Schema already at version {migrations.LATEST}."


def test_db_upgrade_is_idempotent(run, home):
    assert ok(run("db", "upgrade")).strip() == (
        f"Applied migrations {ALL_VERSIONS}; schema at version {migrations.LATEST}."
    )
    assert (home / "journal.sqlite3").exists()
    assert ok(run("db", "upgrade")).strip() == UP_TO_DATE


def test_db_upgrade_keeps_the_journal(run, home, judged):
    assert ok(run("db", "upgrade")).strip() == UP_TO_DATE
    assert "4 rows" in ok(run("journal", "verify"))


def test_db_upgrade_on_an_unusable_database_exits_2(run, home, tmp_path, monkeypatch):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", str(folder))
    outcome = run("db", "upgrade")
    assert outcome.exit_code == 2 and outcome.stdout == ""
    assert "journal database" in outcome.stderr


# --- journal export ---------------------------------------------------------------------------


def test_export_of_an_empty_journal(run, home):
    assert json.loads(ok(run("journal", "export", "--format", "json"))) == []
    assert ok(run("journal", "export")).strip() == ",".join(export.CSV_FIELDS)


def test_json_export_uses_the_apis_field_names_and_values(run, judged):
    exported = json.loads(ok(run("journal", "export", "--format", "json")))
    assert [row["id"] for row in exported] == [answer["id"] for answer in judged]
    for row, answer in zip(exported, judged, strict=True):
        # the receipt, and the verdict as the kiosk says it (`shown`), are not journal fields
        answer = {name: value for name, value in answer.items() if name not in ("receipt", "shown")}
        assert {name: row[name] for name in answer} == answer
        assert len(row["row_hash"]) == 64 and len(row["prev_hash"]) == 64
    assert exported[0]["words"] == ["QI", "ZA"] and exported[0]["table"] == "4"
    assert exported[2]["verdict"] == "UNACCEPTABLE" and exported[2]["challenger"] == "Ann"


def test_export_filters_by_tournament(run, judged):
    csw = json.loads(ok(run("journal", "export", "--format", "json", "--tournament", "spring-csw")))
    assert [row["words"] for row in csw] == [["CH"]]
    nwl = list(csv.DictReader(io.StringIO(ok(run("journal", "export", "-t", "spring-nwl")))))
    assert [row["words"] for row in nwl] == ["QI ZA", "QX ZEBRA CAT", "JO"]


def test_export_of_an_unknown_tournament_is_an_error_not_an_empty_file(run, judged):
    outcome = run("journal", "export", "--format", "json", "--tournament", "spring-nlw")
    assert outcome.exit_code == 2 and outcome.stdout == ""
    assert "No tournament 'spring-nlw'" in outcome.stderr


def test_csv_export_has_one_row_per_adjudication(run, judged):
    text = ok(run("journal", "export", "--format", "csv"))
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames) == export.CSV_FIELDS
    rows = list(reader)
    assert [(r["id"], r["verdict"], r["word_count"]) for r in rows] == [
        ("1", "ACCEPTABLE", "2"),
        ("2", "ACCEPTABLE", "1"),
        ("3", "UNACCEPTABLE", "3"),
        ("4", "ACCEPTABLE", "1"),
    ]
    assert rows[1]["tournament"] == "spring-csw" and rows[1]["lexicon_name"] == "TINY-CSW"
    assert rows[0]["consequence"] == judged[0]["consequence"]
    assert rows[0]["round"] == "2" and rows[2]["player"] == "Bob"


# --- journal verify ------------------------------------------------------------------------------


def test_verify_passes_on_an_honest_journal(run, judged):
    lines = ok(run("journal", "verify")).strip().splitlines()
    assert lines[0] == "Journal intact: 4 rows, hash chain verified."
    # The last row's hash is printed to note down: rows cut off the end leave the chain intact.
    assert re.fullmatch(r"Last row: 4 [0-9a-f]{64}", lines[1])


@pytest.mark.parametrize(
    "sql, bad_row",
    [
        ("UPDATE adjudications SET verdict = 'ACCEPTABLE' WHERE id = 3", 3),
        ("UPDATE adjudications SET words = 'QI ZEBRA CAT' WHERE id = 3", 3),
        ("UPDATE adjudications SET word_count = 1 WHERE id = 1", 1),
        ("DELETE FROM adjudications WHERE id = 2", 3),
    ],
    ids=["verdict edited", "words edited", "word count edited", "row deleted"],
)
def test_verify_fails_naming_the_first_bad_row(run, home, judged, sql, bad_row):
    tamper(home, sql)
    outcome = run("journal", "verify")
    assert outcome.exit_code != 0
    assert outcome.stdout == ""
    assert f"Journal BROKEN at row {bad_row}:" in outcome.stderr


# --- serve --get, quickstart ------------------------------------------------------------


def test_serve_get_healthz_answers_in_process(run, home, hall_home):
    assert json.loads(ok(run("serve", "--get", "/healthz"))) == {
        "ok": True,
        "status": 200,
        "journal": "ok",
        "warnings": [],
        "connections": {kind: 0 for kind in connection_caps.KINDS},  # no server refused any
    }
    key = home / "secret_key"
    assert key.exists() and stat.S_IMODE(key.stat().st_mode) == 0o600
    lexicons = json.loads(ok(run("serve", "--get", "/api/v1/lexicons")))
    assert sorted(item["name"] for item in lexicons) == ["TINY-CSW", "TINY-NWL"]


def test_serve_get_healthz_fails_without_a_lexicon(run, home):
    outcome = run("serve", "--get", "/healthz")
    assert outcome.exit_code == 1
    body = json.loads(outcome.stdout)
    assert body["ok"] is False and body["status"] == 503
    assert "lexicon" in body["error"]


def test_serve_get_an_unknown_api_path_fails(run, home, hall_home):
    outcome = run("serve", "--get", "/api/v1/nope")
    assert outcome.exit_code == 1
    assert json.loads(outcome.stdout)["status"] == 404


def test_quickstart_without_serving_sets_up_a_demo_ready_to_pair(run, home, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_PUBLIC_URL", "http://hall.local:8000")
    monkeypatch.setenv("ADJUDICATOR_KIOSK_RATE_LIMIT", "off")

    def offline_defaults(store, report=print):  # no network: stand-ins for the real lists
        for name, _, samples in quickstart_cmd.SAMPLES:
            store.save(name, WordSet.of([*NWL_WORDS, *samples]))
            report(f"installed {name} (test stand-in)")

    monkeypatch.setattr(quickstart_cmd, "install_defaults", offline_defaults)
    first = ok(run("quickstart", "--no-serve"))
    assert "Tournament demo:" in first
    assert "adjudicator director set-password" in first  # the director's way in, named
    assert "http://hall.local:8000/director/login and sign in as director" in first
    assert first.count("ACCEPTABLE: the play stands") == len(quickstart_cmd.SAMPLES)
    code = first.split("http://hall.local:8000/pair#")[1].split()[0]
    app = create_app({"HALL": Hall(), "SECRET_KEY": SECRET_KEY})
    browser = app.test_client()
    assert submit_pairing_code(browser, code).status_code == 302
    answer = browser.post("/api/v1/adjudications", json={"words": ["QI", "ZA"]}).get_json()
    assert (answer["verdict"], answer["tournament"], answer["rule"]) == (
        "ACCEPTABLE",
        "demo",
        "double",
    )
    # running it again keeps the tournament and hands out a fresh pairing link
    again = ok(run("quickstart", "--no-serve"))
    new_code = again.split("http://hall.local:8000/pair#")[1].split()[0]
    assert new_code != code
    tournaments = json.loads(ok(run("tournament", "list", "--json")))
    assert [t["slug"] for t in tournaments] == ["demo"]


def test_verify_on_another_computer_checks_signatures_and_says_keyed_rows_were_not(
    run, judged, tmp_path, monkeypatch
):
    public = tmp_path / "hall.pem"
    public.write_text(ok(run("journal", "key")))
    ok(run("journal", "checkpoint"))  # kept in the journal: signed, names the first keyed row
    copy = tmp_path / "copy.sqlite3"
    ok(run("journal", "backup", str(copy)))
    elsewhere = tmp_path / "elsewhere"  # another computer: no key, no mark
    monkeypatch.setenv("ADJUDICATOR_HOME", str(elsewhere))
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", str(copy))
    monkeypatch.setenv("ADJUDICATOR_JOURNAL_MIRROR", "")
    out = ok(run("journal", "verify", "--key", str(public)))
    assert out.startswith("Journal intact: 4 rows")
    assert "Keyed rows (1 on) were NOT checked: the hall's private key is not here" in out
    out = ok(run("journal", "verify"))
    assert "(marks, receipts, keyed rows) were not checked: no key here" in out
    assert not (elsewhere / "receipt_key.pem").exists()  # a verify makes no key

    flipped = {"ACCEPTABLE": "UNACCEPTABLE", "UNACCEPTABLE": "ACCEPTABLE"}
    rewrite_with_a_recomputed_chain(copy, 2, verdict=flipped[judged[1]["verdict"]])
    outcome = run("journal", "verify", "--key", str(public))  # the checkpoint it keeps says so
    assert outcome.exit_code == 1 and outcome.stdout == ""
    assert "BROKEN at row 4: it is a FORK: row 4 is not the row a signed checkpoint" in (
        outcome.stderr
    )
    assert "the first row that differs is a row from 1 to 4" in outcome.stderr
