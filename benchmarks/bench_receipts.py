"""Issue 9's per-verdict costs in one process, each beside its floor: signing a receipt; the
journal's identity check (journal id, newest known row, three stat() calls before and after the
commit) against the plain chain-head read it replaces. benchmarks/load_receipts.py measures the
same under load, where the machine's noise is larger than these costs.
"""

from __future__ import annotations

import pytest

from adjudicator.record.database import journal_health, migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal, receipt_key
from adjudicator.record.proofs import receipts
from benchmarks.synthetic_journal import CHALLENGE

PLAIN_HEAD = "SELECT id, row_hash FROM adjudications ORDER BY id DESC LIMIT 1"
ROW = CHALLENGE


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    database = SqliteDatabase(str(tmp_path_factory.mktemp("receipts") / "journal.sqlite3"))
    migrations.upgrade(database)
    for _ in range(2000):
        journal.append(database, **ROW)
    return database


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    return receipt_key.load_or_create(tmp_path_factory.mktemp("key") / "receipt_key.pem")


def test_sign_a_receipt(benchmark, db, key):
    entry = journal.get(db, 2000)
    receipt = benchmark(receipts.issue, key, entry, "f" * 32)
    assert receipt_key.signature_ok(receipt, key.public)


def test_identity_check_head_read(benchmark, db):
    def identity_head():
        with db.transaction(chain_lock=True) as cur:
            head = journal_health.read_head(db, cur)
        journal_health.after_commit(db)
        return head

    assert benchmark(identity_head)[0] == 2001


def test_plain_head_read_floor(benchmark, db):
    def plain_head():
        with db.transaction(chain_lock=True) as cur:
            return cur.execute(PLAIN_HEAD).one()

    assert benchmark(plain_head)["id"] == 2000


def test_three_stats_of_the_journal_files(benchmark, db):
    assert benchmark(db.file_problem) is None
