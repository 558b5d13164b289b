"""Issue 26's pairing codes kept as a keyed hash: the cost of one code's HMAC (the key read from
the receipt key file and derived with HKDF each time) beside the plain SHA-256 it replaces, and
a pairing code redeemed, and a 20-table sheet enrolled, end to end on SQLite.
"""

from __future__ import annotations

import hashlib

import pytest

from adjudicator.hall import kiosks, pairing_key, pairing_sheet, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

BASE = "https://club.local:8443"


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    home = tmp_path_factory.mktemp("pairing-home")
    patch = pytest.MonkeyPatch()
    patch.setenv("ADJUDICATOR_HOME", str(home))
    store = LexiconStore(root=home / "lexicons")
    store.save("TINY", WordSet.of(("QI", "ZA")), description="tiny")
    made = Hall(store)
    made.upgrade()
    tournaments.create(made.db, store, "open", "TINY", "double", "Open")
    yield made
    patch.undo()


def test_code_plain_sha256_floor(benchmark):
    benchmark(lambda: hashlib.sha256(b"ABCDEFGHJK").hexdigest())


def test_code_keyed_hash(benchmark, hall):
    assert len(benchmark(pairing_key.code_hash, "ABCDEFGHJK")) == 64


def test_redeem_a_pairing_code(benchmark, hall):
    def enrol_and_redeem():
        (table,) = pairing_sheet.enrol_tables(hall.db, "open", [1], BASE)
        return kiosks.redeem_pairing(hall.db, table.pairing_code)

    assert benchmark(enrol_and_redeem) is not None


def test_enrol_a_sheet_of_20_tables(benchmark, hall):
    sheet = benchmark(pairing_sheet.enrol_tables, hall.db, "open", list(range(1, 21)), BASE)
    assert len(sheet) == 20
