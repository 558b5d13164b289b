"""`journal resync --keep` when the two copies hold different journals (an old event's stick
plugged in as the mirror): each copy is held against its own journal's proofs, and a copy is
kept only if the hall's key began its journal after every row it signed of the other."""

from __future__ import annotations

import pytest

from adjudicator.record.copies import resync
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database import journal_health, migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal, receipt_key
from adjudicator.record.proofs import high_water, journal_proof

from support.journal import challenge_fields


def event(path, key_path, rows: int, begin: bool) -> None:
    """A journal at `path` with `rows` rows, its high-water mark beside it and the key's."""
    key = receipt_key.load_or_create(key_path)
    db = SqliteDatabase(str(path))
    migrations.upgrade(db)
    if begin:
        high_water.begin_journal(db, key, key_path, "the next event")
    else:
        assert journal_proof.check(db, key, key_path) is None  # begun: first start
    mark = high_water.HighWater(key, key_path, [str(path)])
    for _ in range(rows):
        entry = journal.append(db, **challenge_fields())
        mark.advance(journal_health.journal_id(db), entry.id, entry.row_hash)
    db.close()


@pytest.fixture
def two_events(tmp_path):
    (tmp_path / "usb").mkdir()
    primary, mirror, key = tmp_path / "j.sqlite3", tmp_path / "usb" / "j.sqlite3", tmp_path / "k"
    event(mirror, key, 3, begin=False)  # last month's event, on the stick
    event(primary, key, 2, begin=True)  # this event, begun after it
    return MirroredDatabase(str(primary), str(mirror), key_path=key), primary, mirror


def test_the_copy_of_the_newer_journal_is_kept_and_the_old_one_set_aside(two_events):
    db, primary, mirror = two_events
    notes = resync.resync(db, keep="primary")
    assert notes[-1].endswith("both copies now hold 2 rows.")
    assert any("set aside" in note for note in notes)
    assert journal_health.journal_id(SqliteDatabase(str(mirror))) == journal_health.journal_id(
        SqliteDatabase(str(primary))
    )


def test_the_copy_of_the_older_journal_is_never_kept(two_events):
    db, primary, mirror = two_events
    with pytest.raises(resync.ResyncError, match="keeping it would lose those rows"):
        resync.resync(db, keep="mirror")
    assert journal.get(SqliteDatabase(str(primary)), 2) is not None  # nothing was changed
