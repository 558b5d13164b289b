"""Issue 27, item 4: what the lexicon pin costs, with the real CSW24 (280,887 words).

Side by side with the code before the pin (run this file against both trees): the verdict's own
look-up of its tournament's lexicon (`Hall.lexicon_for`, no re-check due: the floor every
challenge pays), the same with a re-check due on every call (the manifest read again and the
compiled file re-hashed), and a fresh open. Then the pin's parts alone (after only): checking a
manifest against its pin, vouching for a manifest written before pins, and reading a manifest
again as the re-check does.
"""

from __future__ import annotations

import os
import time

import pytest
from conftest import SHARED_LEXICONS

from adjudicator.hall import tournaments
from adjudicator.hall.hall import Hall
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.words.lexicon import CompiledLexicon, Manifest
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.store import LexiconStore

pytestmark = pytest.mark.skipif(
    not (SHARED_LEXICONS / "CSW24.txt").is_file(),
    reason=f"the real word lists are not at {SHARED_LEXICONS}",
)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pin")
    store = LexiconStore(folder / "lexicons")
    import_lexicon(store, SHARED_LEXICONS / "CSW24.txt", "CSW24")
    database = SqliteDatabase(str(folder / "journal.sqlite3"))
    Hall(store, database, rate_limit=None).upgrade()
    tournaments.create(database, store, "open", "CSW24", "double")
    back = time.time() - 60  # a listing made within a second of a change is made again each call
    os.utime(store.root, (back, back))
    return folder


def hall_on(home, recheck_seconds: float) -> Hall:
    store = LexiconStore(home / "lexicons", recheck_seconds=recheck_seconds)
    return Hall(store, SqliteDatabase(str(home / "journal.sqlite3")), rate_limit=None)


def test_lexicon_for_no_recheck_due(benchmark, home):
    """Every challenge: the tournament's lexicon, found intact and the edition it was set with."""
    hall = hall_on(home, 3600)
    tournament = tournaments.get(hall.db, "open")
    hall.lexicon_for(tournament)
    assert "ZYZZYVA" in benchmark(hall.lexicon_for, tournament)


def test_lexicon_for_with_a_recheck_due_every_call(benchmark, home):
    """One re-check: the manifest read again (after) and the compiled file re-hashed."""
    hall = hall_on(home, 0)
    tournament = tournaments.get(hall.db, "open")
    found = benchmark.pedantic(hall.lexicon_for, (tournament,), rounds=200, warmup_rounds=5)
    assert "ZYZZYVA" in found
    assert hall.store.out_of_service() == {}


def test_open_a_lexicon_fresh(benchmark, home):
    """Opening: the pin checked (after), the file copied, hashed, mapped, the words'
    fingerprint recomputed."""
    store = LexiconStore(home / "lexicons")
    text = store.manifest_path("CSW24").read_text()

    def fresh() -> CompiledLexicon:
        manifest = Manifest.from_json(text)  # a new object: nothing cached from the last round
        return CompiledLexicon.open(manifest, store.root / manifest.compiled_file)

    assert len(benchmark.pedantic(fresh, rounds=8, warmup_rounds=1)) == 280_887


def test_check_a_manifest_against_its_pin(benchmark, home):
    pytest.importorskip("adjudicator.words.lexicon_pin")
    text = (home / "lexicons" / "CSW24.json").read_text()
    assert benchmark(lambda: Manifest.from_json(text).pin_problem) is None


def test_vouch_for_a_manifest_written_before_pins(benchmark, home, tmp_path):
    """An old recipe lexicon: its recipe's recorded text parsed and checked against the fields."""
    pytest.importorskip("adjudicator.words.lexicon_pin")
    import json

    data = json.loads((home / "lexicons" / "CSW24.json").read_text())
    del data["pin"], data["pinned"]
    text = 'name = "CSW24-REF"\nsources = ["CSW24"]\nrefer_longer_than = 9\n'
    import hashlib

    data.update(
        refer_longer_than=9,
        recipe={
            "file": "r.toml",
            "text": text,
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
        },
    )
    old = json.dumps(data)
    assert benchmark(lambda: Manifest.from_json(old).pin_problem) is None


def test_read_a_manifest_again_as_the_recheck_does(benchmark, home):
    pytest.importorskip("adjudicator.words.lexicon_pin")
    from adjudicator.words.store import _read_manifest

    store = LexiconStore(home / "lexicons")
    manifest = store.manifest("CSW24")
    path = store.manifest_path("CSW24")
    assert benchmark(lambda: _read_manifest(path) == manifest)
