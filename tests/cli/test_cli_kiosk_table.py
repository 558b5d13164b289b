"""A kiosk knows its table (issue 28, item 4): `kiosk add --table N`, `kiosk table`, the sheet's
kiosks seated at theirs, and every challenge made at a table's kiosk that names no table is
that table's, so NASPA 6.2's separate look-ups are flagged at a table's kiosk."""

from __future__ import annotations

import json
import re

import pytest

from adjudicator.hall import kiosks, pairing_sheet
from adjudicator.hall.hall import Hall
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.words.wordlist import WordSet
from kiosk import create_app

from support.director import page_after, post_form
from support.hall import NWL_WORDS, SECRET_KEY, ok, refused

PUBLIC_URL = "http://hall.local:8000"


@pytest.fixture
def hall_home(run, store, monkeypatch):
    """Tournaments `open` (no rulebook) and `naspa-open` (naspa, with a 6.2 look-up window)."""
    monkeypatch.setenv("ADJUDICATOR_PUBLIC_URL", PUBLIC_URL)
    monkeypatch.setenv("ADJUDICATOR_KIOSK_RATE_LIMIT", "off")
    monkeypatch.setenv("ADJUDICATOR_SEPARATE_LOOKUP_SECONDS", "120")
    store.save("TINY-NWL", WordSet.of(NWL_WORDS))
    ok(run("tournament", "create", "open", "--lexicon", "TINY-NWL", "--rule", "double"))
    outcome = run(
        "tournament", "create", "naspa-open", "--lexicon", "TINY-NWL", "--rule", "double",
        "--rulebook", "naspa", "--off-rulebook", "a tiny test list",
    )  # fmt: skip
    assert outcome.exit_code == 0, outcome.stderr
    return store


@pytest.fixture
def app(hall_home):
    return create_app({"HALL": Hall(), "SECRET_KEY": SECRET_KEY, "TESTING": True})


def enrol(run, name: str, tournament: str = "open", *table: str) -> str:
    """Enrol a kiosk (with `--table N` if given); returns its token."""
    extra = ("--table", *table) if table else ()
    return ok(run("kiosk", "add", name, "--tournament", tournament, *extra)).splitlines()[-1]


def judge(app, token: str, **body):
    return app.test_client().post(
        "/api/v1/adjudications",
        json={"words": ["QI"], **body},
        headers={"Authorization": f"Bearer {token}"},
    )


def listed(run) -> dict:
    return {k["name"]: k for k in json.loads(ok(run("kiosk", "list", "--json")))}


def test_a_kiosk_added_at_a_table_gives_it_to_every_challenge_that_names_none(run, app):
    token = enrol(run, "by-the-window", "open", "7")
    assert listed(run)["by-the-window"]["table"] == 7
    first = judge(app, token)
    assert first.status_code == 201
    assert first.get_json()["table"] == "7"
    named = judge(app, token, table="9")  # a challenge that names its table keeps it
    assert named.status_code == 201 and named.get_json()["table"] == "9"
    exported = json.loads(ok(run("journal", "export", "--format", "json")))
    assert [row["table"] for row in exported] == ["7", "9"]


def test_a_kiosk_without_a_table_records_none(run, app):
    token = enrol(run, "roaming")
    assert listed(run)["roaming"]["table"] is None
    assert judge(app, token).get_json()["table"] is None
    assert "no table" in ok(run("kiosk", "list"))


@pytest.mark.parametrize("table", ["0", "1000", "x", "3.5", "-2", "²", "7 8"])
def test_a_table_not_a_number_from_1_to_999_is_refused_and_nothing_enrolled(run, app, table):
    refused(run("kiosk", "add", "t", "--tournament", "open", "--table", table), "Invalid table")
    assert "t" not in listed(run)


def test_kiosk_table_seats_a_kiosk_elsewhere_or_at_none(run, app):
    token = enrol(run, "tablet-a", "open", "3")
    assert "now sits at table 12" in ok(run("kiosk", "table", "tablet-a", "12"))
    assert judge(app, token).get_json()["table"] == "12"
    assert "no table of its own" in ok(run("kiosk", "table", "tablet-a", "none"))
    assert judge(app, token).get_json()["table"] is None
    refused(run("kiosk", "table", "tablet-a", "zero"), "Invalid table")
    refused(run("kiosk", "table", "nobody", "4"), "No kiosk named 'nobody'")


def test_the_sheet_seats_each_table_kiosk_at_its_table_and_reseats_an_old_one(run, app, home):
    hall = Hall()
    pairing_sheet.enrol_tables(hall.db, "open", [2, 10], PUBLIC_URL)
    assert hall.db is not None
    kiosks.set_table(hall.db, "open table 10", None)  # as enrolled before kiosks had tables
    pairing_sheet.enrol_tables(hall.db, "open", [10], PUBLIC_URL)
    seats = {name: row["table"] for name, row in listed(run).items()}
    assert seats == {"open table 2": 2, "open table 10": 10}


def test_naspa_6_2_flags_a_separate_look_up_at_a_tables_kiosk(run, app):
    """NASPA 6.2 "Improper lookups": two challenges from table 4's kiosk moments apart, neither
    naming its table, are flagged for the director; a roaming kiosk's are not (no table)."""
    at_table = enrol(run, "table-4", "naspa-open", "4")
    roaming = enrol(run, "roaming", "naspa-open")
    for token in (at_table, at_table, roaming, roaming):
        assert judge(app, token).status_code == 201
    flags = json.loads(ok(run("flags", "--json")))
    flagged = [flag for flag in flags if flag.get("flag") == "separate-lookup"]
    assert len(flagged) == 1, flags
    assert flagged[0]["kiosk"] == "table-4"


def test_the_migration_seats_kiosks_a_sheet_enrolled_before_it(tmp_path):
    database = SqliteDatabase(str(tmp_path / "journal.sqlite3"))
    before = tuple(m for m in migrations.MIGRATIONS if m[0] < 10)
    original = migrations.MIGRATIONS
    migrations.MIGRATIONS = before
    try:
        migrations.upgrade(database)
    finally:
        migrations.MIGRATIONS = original
    with database.transaction() as cur:
        cur.execute(
            "INSERT INTO tournaments (slug, title, lexicon, lexicon_fingerprint, rule, "
            "created_at, updated_at) VALUES ('club', 'Club', 'X', 'f', 'double', 't', 't')"
        )
        for name in ("club table 3", "club table 12", "front desk", "other table 5"):
            cur.execute(
                "INSERT INTO kiosks (name, tournament, token_hash, created_at) "
                "VALUES (?, 'club', ?, 't')",
                (name, "h" + name),
            )
    assert 10 in migrations.upgrade(database)
    seats = {k.name: k.table_no for k in kiosks.list_all(database)}
    assert seats == {"club table 3": 3, "club table 12": 12, "front desk": None,
                     "other table 5": None}  # fmt: skip
    database.close()


def test_the_directors_kiosks_page_shows_and_takes_a_table(staffed):
    director = staffed.director()
    corner = {"name": "corner", "tournament": "spring-nwl", "table": "15"}
    answer = post_form(director, "/director/kiosks", corner, page="/director/kiosks")
    assert answer.status_code == 200
    assert kiosks.get(staffed.setup.hall.db, "corner").table_no == 15
    listing = director.get("/director/kiosks").get_data(as_text=True)
    row = re.search(r'<tr id="kiosk-corner">.*?</tr>', listing, re.S).group(0)
    assert '<td data-label="Table" class="kiosk-table">15</td>' in row
    zero = {**corner, "name": "corner2", "table": "zero"}
    refused_page = page_after(director, "/director/kiosks", zero, page="/director/kiosks")
    assert "Invalid table" in refused_page
