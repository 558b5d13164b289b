"""A backup's chain walked in a child process (backup.py, split_walk.walk_apart): a director's
backup from the serving hall's page never holds that worker's interpreter for the walk; a copy
that does not verify is refused, naming the row, and leaves nothing; where no child can be
started, the backup is walked here, with the same findings."""

from __future__ import annotations

import pytest

from adjudicator.record.copies import backup
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import chain_walk, journal, split_walk

from support.keyed_journal import execute, hall_like

ROWS = 12


@pytest.fixture
def db(tmp_path, key_path):
    journal_db = SqliteDatabase(str(tmp_path / "journal.sqlite3"))
    migrations.upgrade(journal_db)
    hall_like(journal_db, key_path, ROWS)
    yield journal_db
    journal_db.close()


def test_a_backup_is_walked_in_a_child_and_never_in_this_interpreter(db, tmp_path, monkeypatch):
    whole = journal.verify(db)
    started = []
    start = split_walk._start
    monkeypatch.setattr(split_walk, "_start", lambda *a: started.append(start(*a)) or started[-1])

    def never_here(*args, **kwargs):
        raise AssertionError("walked in this interpreter")

    monkeypatch.setattr(chain_walk, "_walk", never_here)
    made = backup.make(db, tmp_path / "saturday.sqlite3")
    assert (made.rows, made.last_hash) == (ROWS, whole.last_hash)
    assert [child.returncode for child in started] == [0]
    monkeypatch.undo()
    copy = SqliteDatabase(str(made.path), create_file=False)
    try:
        assert journal.verify(copy).last_hash == whole.last_hash  # it verifies alone
    finally:
        copy.close()


@pytest.mark.parametrize("row", [1, 7, ROWS])
def test_a_journal_that_does_not_verify_is_refused_naming_the_row(db, tmp_path, row):
    execute(db, "UPDATE adjudications SET verdict = 'ACCEPTABLE!' WHERE id = ?", (row,))
    folder = tmp_path / "backups"
    folder.mkdir()
    with pytest.raises(backup.BackupError) as refused:
        backup.make(db, folder / "saturday.sqlite3")
    assert str(refused.value) == (
        f"The copy does not verify (row {row}: row {row} was altered after it was recorded): "
        "the journal itself is damaged. Run `adjudicator journal verify`."
    )
    assert list(folder.iterdir()) == []  # nothing left behind


@pytest.mark.parametrize("program", ["/bin/false", None])
def test_where_no_child_walks_the_backup_is_walked_here(db, tmp_path, monkeypatch, program):
    whole = journal.verify(db)
    monkeypatch.setattr(split_walk.sys, "executable", program)  # None: an embedded interpreter
    made = backup.make(db, tmp_path / "saturday.sqlite3")
    assert (made.rows, made.last_hash) == (ROWS, whole.last_hash)
