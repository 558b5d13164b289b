"""Keyed rows and the fork check (issue 33), on SQLite and on PostgreSQL: every row carries a
keyed hash; a journal rewritten with its chain recomputed (by anyone who can write it and has
the source) is a fork, whatever else they strip; a journal only cut short is rows missing; a
journal from before keying is read as it is and keyed from its next row."""

from __future__ import annotations

import pytest

from adjudicator.record.backends import connect
from adjudicator.record.copies import lost_rows
from adjudicator.record.journal import journal, receipt_key, rollbacks, row_keys
from adjudicator.record.proofs import (
    checkpoints,
    fork_check,
    high_water,
    journal_begun,
    journal_proof,
)

from support.journal import challenge_fields
from support.keyed_journal import execute, hall_like, rewrite


def held(db, key_path, full=True, secret=True) -> journal_proof.Held:
    key = receipt_key.load(key_path)
    return journal_proof.hold(
        connect(db.url), key.public, row_keys.secret(key) if secret else None, key_path, full
    )


def test_every_row_carries_a_keyed_hash_and_the_receipts_name_the_first_keyed_row(
    migrated_db, key_path
):
    found = hall_like(migrated_db, key_path, 3)
    key = receipt_key.load(key_path)
    journal_id = journal_begun.identity(migrated_db)[0]
    with migrated_db.transaction() as cur:
        stored = cur.execute("SELECT id, row_hash, keyed_hash FROM adjudications").tuples()
        statement = row_keys.parse(cur.execute(row_keys.READ_SQL).one()["keyed"])
    secret = row_keys.secret(key)
    for row_id, row_hash, keyed in stored:
        assert keyed == row_keys.keyed_hash(secret, journal_id, row_id, row_hash)
        assert keyed != row_hash  # the receipt's row_hash stays the plain hash (the API)
    assert row_keys.keyed_from(statement, key.public, journal_id) == 1
    assert [receipt["keyed_from"] for receipt in found] == [1, 1, 1]
    for full in (True, False):
        assert held(migrated_db, key_path, full).judged.state == "proven"


@pytest.mark.parametrize("full", [True, False], ids=["walked", "looked-up"])
def test_a_row_rewritten_with_the_chain_recomputed_is_a_fork_at_that_row(
    migrated_db, key_path, full
):
    hall_like(migrated_db, key_path, 8)
    rewrite(migrated_db, 3)
    assert journal.verify(migrated_db).ok  # the plain chain is fooled
    judged = held(migrated_db, key_path, full).judged
    assert judged.state == "fork" and judged.fork.row == 3 and judged.fork.where() == "row 3"
    assert "carries no valid keyed hash" in judged.fork.against


def test_stripped_of_keyed_hashes_and_statement_it_still_contradicts_the_mark(
    migrated_db, key_path
):
    hall_like(migrated_db, key_path, 8)
    rewrite(migrated_db, 2)
    execute(migrated_db, "UPDATE adjudications SET keyed_hash = NULL")
    execute(migrated_db, "UPDATE journal_identity SET keyed = NULL, begun = NULL")
    execute(migrated_db, "DELETE FROM adjudications WHERE id > 5")  # and its newest rows
    for full in (True, False):
        judged = held(migrated_db, key_path, full).judged
        assert judged.state == "fork" and judged.fork.row == 1  # the mark says: keyed from 1
        assert "the server's signed high-water mark" in judged.fork.against


def test_a_start_records_the_fork_and_accept_loss_and_checkpoint_refuse_it(migrated_db, key_path):
    hall_like(migrated_db, key_path, 6)
    rewrite(migrated_db, 4)
    execute(migrated_db, "DELETE FROM adjudications WHERE id = 6")
    key = receipt_key.load(key_path)
    restarted = connect(migrated_db.url)
    found = journal_proof.check(restarted, key, key_path)
    assert found is not None and found.fork == 4
    assert (
        "accept-loss` refuses a fork" in found.detail() and "records the loss" not in found.detail()
    )
    with pytest.raises(journal.rollbacks.JournalRolledBack):
        journal.append(restarted, **challenge_fields())  # judging stopped
    with pytest.raises(lost_rows.ForkRefused, match="FORK at row 4"):
        lost_rows.accept(restarted, "gone", "cli:test", key, key_path)
    with pytest.raises(checkpoints.CheckpointError, match="FORK"):
        checkpoints.make(restarted, key)
    assert journal.newest_id(restarted) == 5  # nothing filled, nothing appended
    restarted.close()


def test_a_journal_only_cut_short_is_rows_missing_and_accept_loss_fills_past_its_end(
    migrated_db, key_path
):
    hall_like(migrated_db, key_path, 6)
    execute(migrated_db, "DELETE FROM adjudications WHERE id > 3")
    key = receipt_key.load(key_path)
    restarted = connect(migrated_db.url)
    judged = held(restarted, key_path).judged
    assert judged.state == "rows-missing" and judged.missing_to == 6
    found = journal_proof.check(restarted, key, key_path)
    assert found is not None and found.fork is None and found.missing == (4, 6)
    row_keys.of(restarted).use(lambda: key)
    assert lost_rows.accept(restarted, "disk died", "cli:test", key, key_path) == (4, 6)
    assert held(restarted, key_path).judged.state == "proven"
    restarted.close()


def test_without_the_private_key_keyed_rows_go_unchecked_but_the_mark_still_counts(
    migrated_db, key_path
):
    hall_like(migrated_db, key_path, 5)
    rewrite(migrated_db, 2)
    execute(migrated_db, "UPDATE adjudications SET keyed_hash = NULL WHERE id = 2")
    judged = held(migrated_db, key_path, secret=False).judged
    assert not judged.keyed_checked
    assert judged.state == "fork" and judged.fork.row == 5  # the mark's row, all it can tell
    assert judged.fork.where() == "a row from 1 to 5"


def test_a_keyed_hash_damaged_under_an_agreeing_mark_is_no_fork(migrated_db, key_path):
    hall_like(migrated_db, key_path, 5)
    execute(migrated_db, "UPDATE adjudications SET keyed_hash = 'junk' WHERE id = 2")
    judged = held(migrated_db, key_path).judged
    assert judged.state == "proven"  # row 5's keyed hash (and the mark) chain row 2 unchanged


def test_a_journal_from_before_keying_is_read_as_it_is_and_keyed_from_its_next_row(
    migrated_db, key_path
):
    hall_like(migrated_db, key_path, 3)
    execute(migrated_db, "UPDATE adjudications SET keyed_hash = NULL")  # as schema 15 wrote
    execute(migrated_db, "UPDATE journal_identity SET keyed = NULL")
    key = receipt_key.load(key_path)
    for path in high_water.places(key_path, high_water.copy_paths(migrated_db)):
        path.unlink(missing_ok=True)  # its marks named no first keyed row either
    reopened = connect(migrated_db.url)
    assert held(reopened, key_path).judged.state == "proven"
    found = hall_like(reopened, key_path, 2)
    assert [receipt["keyed_from"] for receipt in found] == [4, 4]
    with reopened.transaction() as cur:
        keyed = [
            row[0]
            for row in cur.execute("SELECT keyed_hash FROM adjudications ORDER BY id").tuples()
        ]
    assert keyed[:3] == [None, None, None] and all(keyed[3:])
    assert held(reopened, key_path).judged.state == "proven"
    rewrite(reopened, 2)  # a row from before keying, rewritten
    judged = held(reopened, key_path).judged
    assert judged.state == "fork" and judged.fork.where() == "a row from 1 to 4"
    assert journal_begun.identity(reopened)[0] and key.id
    reopened.close()


def test_a_rollback_with_its_id_changed_is_held_against_the_journal_it_stands_for(
    migrated_db, key_path
):
    hall_like(migrated_db, key_path, 6)
    rewrite(migrated_db, 2)
    execute(migrated_db, "DELETE FROM adjudications WHERE id > 4")
    execute(migrated_db, "UPDATE journal_identity SET journal_id = ?", ("f" * 32,))
    found = held(migrated_db, key_path)
    assert found.refusal is not None  # the key never began this id...
    rollback = found.rollback()
    assert rollback.fork == 2  # ...and as the journal it stands for, it is a fork at row 2
    assert isinstance(found.judged, fork_check.Judgement)
    assert rollbacks.FORK_REMEDIES in rollback.detail()


def test_rows_appended_behind_the_halls_back_are_a_fork_from_the_first(migrated_db, key_path):
    hall_like(migrated_db, key_path, 4)
    other = receipt_key.load_or_create(key_path.with_name("another_hall.pem"))
    row_keys.of(migrated_db).use(lambda: other)  # keyed, but not with this hall's key
    for _ in range(2):
        journal.append(migrated_db, **challenge_fields(verdict="ACCEPTABLE"))
    for full in (True, False):
        judged = held(migrated_db, key_path, full).judged
        assert judged.state == "fork" and judged.fork.row == 5 and judged.fork.first == 5


@pytest.mark.parametrize("text", [b"", b"a", b"x" * 63, b"y" * 64, b"z" * 200])
def test_a_keyed_hash_is_hmac_sha256_under_the_derived_secret(key_path, text):
    import hashlib
    import hmac

    key = receipt_key.load(key_path)
    raw = key.derived(row_keys.PURPOSE)
    assert row_keys.secret(key).mac(text) == hmac.new(raw, text, hashlib.sha256).hexdigest()
