"""`tournament create|set --language`: the language a tournament's kiosks speak (issue 23)."""

from __future__ import annotations

import json

import pytest

from adjudicator.hall import tournaments
from adjudicator.hall.hall import Hall
from adjudicator.hall.languages import LANGUAGES
from adjudicator.record.backends import connect
from adjudicator.record.database import migrations
from adjudicator.words.wordlist import WordSet

from support.hall import NWL_WORDS, ok, refused


@pytest.fixture
def lexicon(store):
    store.save("TINY-NWL", WordSet.of(NWL_WORDS))
    return store


def _listed(run) -> dict:
    return {t["slug"]: t for t in json.loads(ok(run("tournament", "list", "--json")))}


def test_a_tournament_speaks_english_unless_told(run, lexicon):
    ok(run("tournament", "create", "open", "-l", "TINY-NWL", "-r", "double"))
    assert _listed(run)["open"]["language"] == "en"


@pytest.mark.parametrize("code", ["pl", "es", "ca", "fr", "en", "FR"])
def test_create_and_set_take_every_shipped_language(run, lexicon, code):
    out = ok(
        run("tournament", "create", "open", "-l", "TINY-NWL", "-r", "double", "--language", code)
    )
    assert f"  language: {code.lower()} ({LANGUAGES[code.lower()]})" in out
    assert _listed(run)["open"]["language"] == code.lower()
    ok(run("tournament", "set", "open", "--language", "pl"))
    assert _listed(run)["open"]["language"] == "pl"
    assert json.loads(ok(run("tournament", "show", "open", "--json")))["language"] == "pl"
    assert " pl  " in ok(run("tournament", "list"))


def test_a_language_without_a_catalogue_exits_2_listing_those_there_are(run, lexicon):
    result = run(
        "tournament", "create", "open", "-l", "TINY-NWL", "-r", "double", "--language", "de"
    )
    refused(result, "No kiosk translation for language 'de'", "en (English)", "pl (Polski)")
    assert "fr (Français)" in result.stderr and "ca (Català)" in result.stderr
    assert ok(run("tournament", "list", "--json")).strip() == "[]"  # nothing created
    ok(run("tournament", "create", "open", "-l", "TINY-NWL", "-r", "double", "--language", "es"))
    refused(run("tournament", "set", "open", "--language", "klingon"), "'klingon'", "es (Español)")
    assert _listed(run)["open"]["language"] == "es"  # unchanged


def test_set_with_only_a_language_changes_only_the_language(run, lexicon):
    ok(run("tournament", "create", "open", "-l", "TINY-NWL", "-r", "double", "--title", "Open"))
    before = _listed(run)["open"]
    ok(run("tournament", "set", "open", "--language", "ca"))
    after = _listed(run)["open"]
    assert after["language"] == "ca"
    assert {k: v for k, v in after.items() if k not in ("language", "updated_at")} == {
        k: v for k, v in before.items() if k not in ("language", "updated_at")
    }
    refused(run("tournament", "set", "open"), "Nothing to change", "--language")


def test_migration_9_gives_existing_tournaments_english(tmp_path, lexicon, monkeypatch):
    database = connect(str(tmp_path / "journal.sqlite3"))
    everything = migrations.MIGRATIONS
    monkeypatch.setattr(migrations, "MIGRATIONS", tuple(m for m in everything if m[0] < 9))
    migrations.upgrade(database)
    with database.transaction() as cur:
        cur.execute(
            "INSERT INTO tournaments (slug, title, lexicon, lexicon_fingerprint, rule, created_at,"
            " updated_at) VALUES ('old', 'Old', 'TINY-NWL', 'x', 'double', 'then', 'then')"
        )
    monkeypatch.setattr(migrations, "MIGRATIONS", everything)
    assert 9 in migrations.upgrade(database)
    assert tournaments.get(database, "old").language == "en"
    hall = Hall(lexicon, database, rate_limit=None)
    tournaments.update(hall.db, hall.store, "old", language="fr")
    assert tournaments.get(database, "old").language == "fr"


def test_the_pairing_link_carries_the_tournaments_language(run, lexicon):
    ok(run("tournament", "create", "open", "-l", "TINY-NWL", "-r", "double", "--language", "fr"))
    out = ok(run("kiosk", "add", "table-1", "-t", "open"))
    assert "/pair?lang=fr#" in out
    ok(run("tournament", "create", "club", "-l", "TINY-NWL", "-r", "double"))
    assert "/pair#" in ok(run("kiosk", "add", "table-2", "-t", "club"))
    assert "/pair?lang=fr#" in ok(run("kiosk", "pair", "table-1"))
