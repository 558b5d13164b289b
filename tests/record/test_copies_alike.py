"""A start proves two copies holding the same rows with one walk of the chain, not two
(record/copies/alike.py): the mirror is compared with the journal value for value, in a thread
beside the walk. Any difference, a value's type alone included, and the mirror is walked on its
own, as before, and the start finds what it always found."""

from __future__ import annotations

import sqlite3

import pytest

from adjudicator.record.copies import alike, at_start
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import chain_walk, journal, split_walk

from support.keyed_journal import execute, hall_like

ROWS = 12
HARMS = {
    "a word changed": "UPDATE adjudications SET words = 'QI ZAX' WHERE id = 3",
    "the words kept as bytes": "UPDATE adjudications SET words = CAST(words AS BLOB) WHERE id = 2",
    "a keyed hash changed": "UPDATE adjudications SET keyed_hash = 'junk' WHERE id = 4",
    "a row gone": "DELETE FROM adjudications WHERE id = 5",
    "a row renumbered": f"UPDATE adjudications SET id = {ROWS + 5} WHERE id = {ROWS}",
    "a column added": "ALTER TABLE adjudications ADD COLUMN extra TEXT",
}


class Copies:
    def __init__(self, tmp_path, key_path):
        self.primary = str(tmp_path / "journal.sqlite3")
        (tmp_path / "stick").mkdir()
        self.mirror = str(tmp_path / "stick" / "journal.sqlite3")
        self.key_path = key_path

    def open(self) -> MirroredDatabase:
        db = MirroredDatabase(self.primary, self.mirror, key_path=self.key_path)
        migrations.upgrade(db)
        return db

    def harm(self, path: str, sql: str) -> None:
        connection = sqlite3.connect(path)
        with connection:
            connection.execute(sql)
        connection.close()


@pytest.fixture
def copies(tmp_path, key_path) -> Copies:
    found = Copies(tmp_path, key_path)
    db = found.open()
    hall_like(db, key_path, ROWS)
    db.close()
    return found


@pytest.fixture
def walks(monkeypatch) -> list[int]:
    """How many rows each walk of a chain read (chain_walk._walk, counted)."""
    counted: list[int] = []
    original = chain_walk._walk

    def counting(db, *args):
        found = original(db, *args)
        counted.append(found.rows)
        return found

    monkeypatch.setattr(chain_walk, "_walk", counting)
    return counted


def test_copies_written_together_hold_the_same_rows(copies):
    assert alike.same_rows(copies.primary, copies.mirror)
    walked, same = alike.walk_and_compare(copies.primary, copies.mirror)
    assert same and walked is not None and (walked.rows, walked.bad_id) == (ROWS, None)


@pytest.mark.parametrize("harm", HARMS, ids=list(HARMS))
def test_any_difference_in_the_mirror_and_it_is_walked_on_its_own(copies, harm):
    copies.harm(copies.mirror, HARMS[harm])
    assert not alike.same_rows(copies.primary, copies.mirror)
    walked, same = alike.walk_and_compare(copies.primary, copies.mirror)
    assert not same and walked is not None and walked.rows == ROWS  # the journal's own


def test_a_long_journal_walked_on_both_cores_is_the_one_walk_of_both_copies(
    copies, monkeypatch, walks
):
    """A journal of SPLIT_FROM rows or more is walked in two halves, one in a child process
    (split_walk.py): the same walk, shared by the mirror found alike."""
    one = chain_walk.walk(SqliteDatabase(copies.primary, create_file=False))
    walks.clear()
    monkeypatch.setattr(split_walk, "SPLIT_FROM", 2)
    walked, same = alike.walk_and_compare(copies.primary, copies.mirror)
    assert same and walked == one
    assert walks == [ROWS // 2]  # this process walked the first half; the child the rest


def test_a_file_that_is_no_journal_is_not_alike(copies):
    with open(copies.mirror, "r+b") as file:
        file.write(b"not a database at all" * 10)
    assert not alike.same_rows(copies.primary, copies.mirror)


def test_the_same_break_in_both_copies_is_walked_in_full(copies):
    """Alike, but the chain breaks: the walk found is not reused (chain_walk reuses only a
    clean one), each copy's own walk says where, and the start stops judging as before."""
    for path in (copies.primary, copies.mirror):
        db = SqliteDatabase(path, create_folder=False)
        execute(db, "UPDATE adjudications SET verdict = 'ACCEPTABLE' WHERE id = 6")
        db.close()
    assert alike.same_rows(copies.primary, copies.mirror)
    walked, same = alike.walk_and_compare(copies.primary, copies.mirror)
    assert same and walked is None  # broken: no walk to share
    db = copies.open()
    notes = at_start.on_start(db)
    assert any("NO COPY OF THE JOURNAL IS WHOLE" in note for note in notes), notes
    assert "broken at row 6" in " ".join(notes)
    db.close()


def test_a_start_walks_one_chain_for_two_copies_alike(copies, walks):
    db = copies.open()
    notes = at_start.on_start(db)
    assert walks == [ROWS]  # the journal's; the mirror was compared with it
    assert not [note for note in notes if "rebuilt" in note or "NO COPY" in note]
    assert journal.append(db, **_fields()).id == ROWS + 1  # it judges
    db.close()
    assert alike.same_rows(copies.primary, copies.mirror)


def test_a_start_with_a_mirror_changed_walks_it_and_rebuilds_it_as_before(copies, walks):
    copies.harm(copies.mirror, HARMS["a word changed"])
    db = copies.open()
    notes = at_start.on_start(db)
    assert walks[0] == ROWS and walks[1:] == [2, 2]  # the journal's walk is its own; the
    # mirror is walked itself (and again with every row's keyed hash, to say where it parts)
    assert any("chain is broken at row 3" in note for note in notes), notes
    db.close()
    assert alike.same_rows(copies.primary, copies.mirror)  # rebuilt from the journal


def _fields() -> dict:
    from support.journal import challenge_fields

    return challenge_fields()


@pytest.mark.parametrize("swap", ["a FIFO", "/dev/zero"])
def test_a_mirror_swapped_for_what_is_no_file_is_not_alike_and_nothing_waits(copies, swap):
    """SQLite opening a FIFO would wait for a writer for ever: the start never opens one."""
    import os

    os.unlink(copies.mirror)
    if swap == "a FIFO":
        os.mkfifo(copies.mirror)
    else:
        os.symlink("/dev/zero", copies.mirror)
    assert not alike.same_rows(copies.primary, copies.mirror)
    walked, same = alike.walk_and_compare(copies.primary, copies.mirror)
    assert not same and walked is not None and walked.rows == ROWS
