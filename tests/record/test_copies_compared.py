"""Copies compared, not assumed (issue 27), in one process with real files: each copy's head
checked before each chain write against the head last committed, remembered beside the copies
(sealed with a secret of the hall's key), even when another worker committed in between; markers
that prove themselves; the full verification of a serving hall."""

from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from adjudicator.record.copies import (
    background_check,
    committed_head,
    head_guard,
    markers,
    proof,
)
from adjudicator.record.copies import mirror as copies_mirror
from adjudicator.record.copies.committed_head import Head
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal, receipt_key, rollbacks

from support.journal import challenge_fields


@pytest.fixture
def copies(tmp_path):
    """The paths of a primary, a mirror on a "stick" and the hall's key."""
    (tmp_path / "usb").mkdir()
    return tmp_path / "journal.sqlite3", tmp_path / "usb" / "journal.sqlite3", tmp_path / "k.pem"


def open_mirrored(copies) -> MirroredDatabase:
    primary, mirror, key = copies
    return MirroredDatabase(str(primary), str(mirror), key_path=key)


def judged(copies, rows: int) -> MirroredDatabase:
    """A mirrored journal (a worker on it) that recorded `rows` rows on both copies."""
    db = open_mirrored(copies)
    migrations.upgrade(db)
    append(db, rows)
    return db


def append(db, count: int = 1) -> list[journal.Entry]:
    return [journal.append(db, **challenge_fields()) for _ in range(count)]


def delete_from(path: Path, first: int) -> None:
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("DELETE FROM adjudications WHERE id >= ?", (first,))
    connection.close()


def ids(path: Path) -> list[int]:
    connection = sqlite3.connect(path)
    try:
        return [r[0] for r in connection.execute("SELECT id FROM adjudications ORDER BY id")]
    finally:
        connection.close()


# -- the comparison itself ----------------------------------------------------------------


def test_the_first_difference_is_found_by_bisection():
    good = {n: f"h{n}" for n in range(1, 1001)}
    bad = {**{n: f"h{n}" for n in range(1, 613)}, **{n: f"x{n}" for n in range(613, 900)}}
    reads = []

    def hash_at(role, row):
        reads.append(row)
        return (good if role == "good" else bad).get(row)

    assert head_guard.first_difference("good", "bad", 899, hash_at) == 613
    assert len(reads) <= 2 * 11  # ~log2(1000) rows looked up in each copy
    assert head_guard.first_difference("good", "bad", 612, hash_at) == 613  # a prefix


def test_a_copy_is_good_only_where_the_chain_was_left():
    committed = Head("j", 10, "a" * 64)
    chain = {n: f"h{n}" for n in range(1, 13)}

    def hash_at(role, row):
        return chain.get(row) if row <= {"primary": 10, "mirror": 7}[role] else None

    cut = Head("j", 7, "c" * 64)
    outcome = head_guard.compare({"primary": committed, "mirror": cut}, committed, hash_at)
    assert outcome.agreed == committed
    assert [(f.role, f.row) for f in outcome.drop] == [("mirror", 8)]

    nowhere = head_guard.compare({"primary": cut, "mirror": cut}, committed, hash_at)
    assert nowhere.agreed is None and not nowhere.drop  # no copy holds the head

    ahead = Head("j", 12, "b" * 64)  # rows past the head that no commit wrote
    outcome = head_guard.compare({"primary": ahead, "mirror": committed}, committed, hash_at)
    assert outcome.agreed == committed and outcome.drop[0].role == "primary"


def test_a_head_record_written_by_hand_does_not_verify_and_the_highest_counts(tmp_path):
    key = receipt_key.load_or_create(tmp_path / "k.pem").derived(committed_head.PURPOSE)
    records = committed_head.Records(key)
    newer = committed_head.encode(Head("j" * 32, 15, "f" * 64), key)
    older = committed_head.encode(Head("j" * 32, 9, "e" * 64), key)  # put back from a snapshot
    forged = committed_head.encode(Head("j" * 32, 99, "0" * 64), b"not the key")
    assert records.highest([older, newer, forged]).id == 15
    assert records.highest([older, forged]).id == 9  # the forged one does not count
    assert committed_head.decode(older.replace(" 9 ", " 99 "), key) is None
    assert records.highest([newer], journal="k" * 32) is None


# -- a mirrored journal, two "workers" on it ------------------------------------------------


def test_a_mirror_rolled_back_in_place_is_dropped_at_the_next_commit_of_any_worker(copies):
    primary, mirror, _ = copies
    first, second = open_mirrored(copies), open_mirrored(copies)  # two workers, one journal
    migrations.upgrade(first)
    append(first, 3)
    append(second, 3)  # the other worker committed last: rows 4 to 6
    delete_from(mirror, 5)  # the stick's copy cut back to row 4, in the same file

    entry = append(first)[0]  # this worker last committed row 3: it still knows better
    assert entry.id == 7
    lost = first.lost_copy()
    assert lost is not None and lost.role == "mirror" and lost.row == 5
    assert lost.summary() == "the mirror disagrees at row 5"
    assert "ends at row 4, but rows up to 6 were recorded" in lost.reason
    assert append(second)[0].id == 8  # the other worker follows the signed marker
    assert second.lost_copy().row == 5
    assert ids(primary) == list(range(1, 9)) and ids(mirror) == [1, 2, 3, 4]


def test_a_laptop_copy_rolled_back_in_place_is_dropped_and_no_number_is_issued_twice(copies):
    primary, mirror, _ = copies
    db = judged(copies, 5)
    delete_from(primary, 3)
    assert append(db)[0].id == 6
    assert db.lost_copy().role == "primary" and db.lost_copy().row == 3
    assert ids(mirror) == list(range(1, 7))


def test_rows_written_by_hand_at_the_head_are_caught(copies):
    primary, mirror, _ = copies
    db = judged(copies, 3)
    alone = SqliteDatabase(str(mirror))
    journal.append(alone, **challenge_fields(verdict="UNACCEPTABLE"))  # row 4 on the stick only
    alone.close()
    assert append(db)[0].id == 4  # the laptop's row 4: the stick's is not the chain's
    assert db.lost_copy().role == "mirror" and db.lost_copy().row == 4


def test_both_copies_rolled_back_alike_stop_judging_and_no_number_is_issued_twice(copies):
    primary, mirror, _ = copies
    judged(copies, 6)
    delete_from(primary, 4)
    delete_from(mirror, 4)
    other = open_mirrored(copies)  # a worker that never committed: the records in the copies
    with pytest.raises(rollbacks.JournalRolledBack):
        append(other)
    found = rollbacks.current(other)
    assert (found.row_id, found.head) == (6, 3) and found.missing == (4, 6)
    assert ids(primary) == ids(mirror) == [1, 2, 3]
    assert other.lost_copy() is None  # neither copy is dropped: both agree, both short


# -- markers that prove themselves ------------------------------------------------------------


def test_a_marker_the_hall_did_not_sign_drops_nothing_and_is_reported(copies):
    primary, mirror, _ = copies
    db = open_mirrored(copies)
    migrations.upgrade(db)
    append(db)
    marker = markers.marker_path(str(mirror))
    marker.write_text(json.dumps({"lost": str(primary), "role": "primary", "reason": "x"}))
    append(db, 2)
    assert db.lost_copy() is None
    assert ids(primary) == ids(mirror) == [1, 2, 3]
    assert db.forged_markers == {str(marker): str(primary)}

    signed = json.loads(marker.read_text())
    key = receipt_key.load(copies[2])
    signed = key.sign({"type": "copy-lost", **signed, "since": "", "row": None})
    edited = {**signed, "lost": str(mirror)}  # a signed marker, re-aimed at the other copy
    marker.write_text(json.dumps(edited))
    append(db)
    assert db.lost_copy() is None and str(marker) in db.forged_markers


def test_a_signed_marker_drops_the_copy_in_every_process(copies):
    primary, mirror, key_path = copies
    first, second = open_mirrored(copies), open_mirrored(copies)
    migrations.upgrade(first)
    append(first)
    assert first.drop("mirror", "its disk was pulled out")
    append(second)
    assert second.lost_copy().role == "mirror"
    body = json.loads(markers.marker_path(str(primary)).read_text())
    assert body["type"] == "copy-lost" and "signature" in body


# -- the full verification of a serving hall --------------------------------------------------


def test_the_full_verification_drops_a_copy_changed_below_its_head(copies):
    primary, mirror, _ = copies
    db = open_mirrored(copies)
    migrations.upgrade(db)
    append(db, 5)
    connection = sqlite3.connect(mirror)
    with connection:  # row 2 changed in place: the head still matches
        connection.execute("UPDATE adjudications SET verdict = 'UNACCEPTABLE' WHERE id = 2")
    connection.close()
    assert append(db)[0].id == 6 and db.lost_copy() is None  # the head comparison cannot see it

    watch = background_check.Watch(db, minutes=5)
    assert watch.run_if_due()
    assert db.lost_copy().role == "mirror" and db.lost_copy().row == 2
    assert "chain is broken at row 2" in db.lost_copy().reason
    assert not watch.run_if_due()  # done within the interval: the next worker skips it
    assert background_check.last_verified(db)
    assert append(db)[0].id == 7 and ids(mirror) == list(range(1, 7))


class _ClearedByAnotherThread(dict):
    """A cache that another thread's `_keep` clears right after each look-up."""

    def __contains__(self, record):
        found = super().__contains__(record)
        self.clear()
        return found

    def get(self, record, default=None):
        found = super().get(record, default)
        self.clear()
        return found


def test_a_head_record_is_read_even_when_another_thread_clears_the_cache(tmp_path):
    key = receipt_key.load_or_create(tmp_path / "k.pem").derived(committed_head.PURPOSE)
    records = committed_head.Records(key)
    record = records.sealed(Head("j" * 32, 15, "f" * 64))  # known: in the cache
    records._seen = _ClearedByAnotherThread(records._seen)
    assert records.highest([record]) == Head("j" * 32, 15, "f" * 64)  # no KeyError
    assert records.highest([record]) == Head("j" * 32, 15, "f" * 64)  # verified afresh


def test_a_mirror_whose_journal_identity_was_deleted_is_dropped_and_the_check_stays_on(copies):
    primary, mirror, _ = copies
    db = judged(copies, 3)
    connection = sqlite3.connect(mirror)
    with connection:  # the stick's identity row deleted behind the hall's back
        connection.execute("DELETE FROM journal_identity")
    connection.close()
    assert append(db)[0].id == 4
    lost = db.lost_copy()
    assert lost is not None and lost.role == "mirror"
    assert "journal identity row is gone" in lost.reason
    assert ids(primary) == [1, 2, 3, 4] and ids(mirror) == [1, 2, 3]
    assert db.lost_copy().summary() == "the mirror is lost"


def test_the_full_verification_never_drops_a_mirror_still_committing_the_newest_row(
    copies, monkeypatch
):
    primary, mirror, _ = copies
    db = judged(copies, 3)
    primary_committed, release = threading.Event(), threading.Event()
    real_commit, real_lock, real_examine = (
        copies_mirror._commit,
        SqliteDatabase.writer_lock,
        proof.examine,
    )

    def commit(raw):  # the primary commits at once; the mirror's helper waits for the verifier
        copy = raw.connection.execute("PRAGMA database_list").fetchone()[2]
        if copy == str(mirror):
            release.wait()
        failure = real_commit(raw)
        if copy == str(primary):
            primary_committed.set()
        return failure

    @contextmanager
    def writer_lock(self):  # the verifier waiting for the copies' locks lets the commit end
        if threading.current_thread() is threading.main_thread():
            release.set()
        with real_lock(self):
            yield

    def examine(role, path, proofs):
        found = real_examine(role, path, proofs)
        if role == "mirror":
            release.set()  # (without the locks the verifier gets here first)
        return found

    monkeypatch.setattr(copies_mirror, "_commit", commit)
    monkeypatch.setattr(SqliteDatabase, "writer_lock", writer_lock)
    monkeypatch.setattr(proof, "examine", examine)
    writer = threading.Thread(target=append, args=(db,))
    writer.start()
    primary_committed.wait()  # row 4 (and its head record) on the laptop, not yet on the stick
    found = background_check.verify_live(db)
    writer.join()
    assert found == []
    assert db.lost_copy() is None
    assert ids(primary) == ids(mirror) == [1, 2, 3, 4]
