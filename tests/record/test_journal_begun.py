"""A high-water mark no snapshot can shed (issue 27, item 3): the mark bound to the hall's key
as well as the journal's id, kept in the data home and beside every copy (the highest counts),
and a journal the key never began refused, on SQLite and on PostgreSQL (which keeps the mark in
the data home alone)."""

from __future__ import annotations

import json

import pytest

from adjudicator.record.backends import connect
from adjudicator.record.journal import journal, receipt_key, rollbacks
from adjudicator.record.journal.journal_entry import Entry
from adjudicator.record.proofs import high_water, journal_begun, journal_proof

from support.journal import challenge_fields


def judged(db, key_path, count: int) -> list[Entry]:
    """`count` rows appended, each with its receipt as the mark (as the hall issues them)."""
    key = receipt_key.load(key_path)
    mark = high_water.HighWater(key, key_path, high_water.copy_paths(db))
    entries = []
    for _ in range(count):
        entry = journal.append(db, **challenge_fields())
        journal_id = journal_begun.identity(db)[0]
        mark.advance(journal_id, entry.id, entry.row_hash, None)
        entries.append(entry)
    return entries


def start(db, key_path):
    """What a server's start does, in a new process (a new connection): the rollback found."""
    restarted = connect(db.url)
    key = receipt_key.load(key_path)
    found = journal_proof.check(restarted, key, key_path)
    restarted.close()
    return found


def restarted(db):
    """The journal as a new process opens it."""
    return connect(db.url)


def set_journal_id(db, journal_id: str) -> None:
    with db.transaction() as cur:
        cur.execute("UPDATE journal_identity SET journal_id = ?", (journal_id,))


def test_the_first_start_begins_the_journal_under_the_key(migrated_db, key_path):
    assert start(migrated_db, key_path) is None
    journal_id, signed = journal_begun.identity(migrated_db)
    key = receipt_key.load(key_path)
    assert journal_begun.begun_by(signed, key, journal_id)
    assert signed["after"] is None
    judged(migrated_db, key_path, 3)
    assert start(migrated_db, key_path) is None  # a restart: begun, and the mark is held


def test_a_journal_id_changed_by_hand_is_refused_and_no_number_is_issued_twice(
    migrated_db, key_path
):
    start(migrated_db, key_path)
    judged(migrated_db, key_path, 5)
    with migrated_db.transaction() as cur:
        cur.execute("DELETE FROM adjudications WHERE id > 2")  # an older snapshot...
    set_journal_id(migrated_db, "f" * 32)  # ...whose id was changed to shed the mark
    found = start(migrated_db, key_path)
    assert found is not None and found.missing == (3, 5)
    assert "its id was changed by hand" in found.detail()
    served = restarted(migrated_db)
    with pytest.raises(rollbacks.JournalRolledBack):
        journal.append(served, **challenge_fields())
    assert journal.newest_id(served) == 2


def test_a_journal_the_key_never_began_is_refused_until_the_director_begins_it(
    migrated_db, key_path, tmp_path
):
    start(migrated_db, key_path)
    judged(migrated_db, key_path, 4)
    old_id = journal_begun.identity(migrated_db)[0]
    with migrated_db.transaction() as cur:  # a new, empty journal in its place
        cur.execute("DELETE FROM adjudications")
        cur.execute("UPDATE journal_identity SET journal_id = ?, begun = NULL", ("e" * 32,))
    found = start(migrated_db, key_path)
    assert found is not None and found.row_id == 4
    assert "never signed it as begun" in found.detail() and "journal begin" in found.detail()

    key = receipt_key.load(key_path)
    served = restarted(migrated_db)
    made = high_water.begin_journal(served, key, key_path, "Spring Open")
    assert made["after"] == {"journal": old_id, "id": 4, "row_hash": made["after"]["row_hash"]}
    assert rollbacks.current(served) is None  # the refusal answered
    assert start(served, key_path) is None  # the old journal's mark is accounted for
    assert journal.append(served, **challenge_fields()).id == 1  # afresh

    judged(served, key_path, 1)
    with pytest.raises(journal_begun.CannotBegin, match="holds 2 rows"):
        high_water.begin_journal(served, key, key_path, "again")


def test_a_snapshot_of_an_older_journal_is_refused_once_a_newer_one_began(migrated_db, key_path):
    start(migrated_db, key_path)
    judged(migrated_db, key_path, 2)
    with migrated_db.transaction() as cur:
        older = cur.execute("SELECT journal_id, begun FROM journal_identity").one()
        cur.execute("DELETE FROM adjudications")
        cur.execute("UPDATE journal_identity SET journal_id = ?, begun = NULL", ("d" * 32,))
    start(migrated_db, key_path)
    served = restarted(migrated_db)
    high_water.begin_journal(served, receipt_key.load(key_path), key_path, "next event")
    judged(served, key_path, 1)
    with served.transaction() as cur:  # the older journal put back, whole
        cur.execute(
            "UPDATE journal_identity SET journal_id = ?, begun = ?",
            (older["journal_id"], older["begun"]),
        )
    found = start(migrated_db, key_path)
    assert found is not None and "a journal the key began after this one" in found.detail()


def test_the_mark_is_kept_beside_every_copy_and_the_highest_counts(tmp_path, key_path):
    from adjudicator.record.database import migrations
    from adjudicator.record.database.sqlite import SqliteDatabase

    (tmp_path / "disk").mkdir()
    db = SqliteDatabase(str(tmp_path / "disk" / "journal.sqlite3"))
    migrations.upgrade(db)
    start(db, key_path)
    judged(db, key_path, 6)
    places = high_water.places(key_path, high_water.copy_paths(db))
    assert [p.name for p in places] == ["receipt_key.pem.high-water", "journal.sqlite3.high-water"]
    key = receipt_key.load(key_path)
    assert [high_water.read(p, key.public)["id"] for p in places] == [6, 6]
    home_mark = places[0]
    home_mark.write_text(json.dumps({"type": "high-water", "id": 1}))  # the data home's shed
    with db.transaction() as cur:
        cur.execute("DELETE FROM adjudications WHERE id > 3")
    found = start(db, key_path)
    assert found is not None and found.missing == (4, 6)  # the copy's own mark still counts


def test_a_kiosks_receipt_stops_judging_whatever_journal_it_names(migrated_db, key_path):
    from adjudicator.record.proofs import receipts, witnesses

    start(migrated_db, key_path)
    key = receipt_key.load(key_path)
    old_id = journal_begun.identity(migrated_db)[0]
    issued = [receipts.issue(key, entry, old_id) for entry in judged(migrated_db, key_path, 4)]
    with migrated_db.transaction() as cur:  # a new event's journal, begun after row 2 only
        cur.execute("DELETE FROM adjudications")
        cur.execute("UPDATE journal_identity SET journal_id = ?, begun = NULL", ("c" * 32,))
    served = restarted(migrated_db)
    served_id = journal_begun.identity(served)[0]
    journal_begun.store(
        served,
        journal_begun.statement(
            key,
            served_id,
            {"journal": old_id, "id": 2, "row_hash": issued[1]["row_hash"]},
            "next event",
        ),
    )
    journal.append(served, **challenge_fields())

    kiosk = issued[0]["kiosk"]
    assert witnesses.report(served, kiosk, issued[1], key.public, served_id) is None
    assert rollbacks.current(served) is None  # a receipt of the event before: nothing missing
    alarm = witnesses.report(served, kiosk, issued[3], key.public, served_id)
    assert alarm is not None  # row 4 of the old journal, past the head the key began after
    found = rollbacks.current(served)
    assert found is not None and found.row_id == 4 and "of journal" in found.source
    with pytest.raises(rollbacks.JournalRolledBack):
        journal.append(served, **challenge_fields())
