"""Two readers of one copy at once (two workers of a starting hall, reading the stick) leave
nothing behind them: the second waits for the first, so that the first's write-ahead log is
never taken for a writer's and left on the stick when both have closed. The turns' locks are
kept in a folder of this user's own (never one another user of the laptop could write in, to
hold a lock and stall every read)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import tempfile
import threading
import time
from pathlib import Path

import pytest

from adjudicator.record.copies import standing


def journal_file(folder: Path) -> Path:
    path = folder / "journal.sqlite3"
    with sqlite3.connect(path) as made:
        made.execute("PRAGMA journal_mode=WAL")
        made.execute("CREATE TABLE adjudications (id INTEGER PRIMARY KEY, row_hash TEXT)")
        made.execute("INSERT INTO adjudications VALUES (1, 'a')")
    made.close()
    return path


def test_two_readers_at_once_leave_no_log_behind(tmp_path):
    path = journal_file(tmp_path)
    first = standing.open_to_read(str(path))
    assert first.execute("SELECT count(*) FROM adjudications").fetchone() == (1,)
    read: list[int] = []

    def second_reader() -> None:
        second = standing.open_to_read(str(path))
        try:
            read.append(second.execute("SELECT count(*) FROM adjudications").fetchone()[0])
        finally:
            second.close()

    other = threading.Thread(target=second_reader)
    other.start()
    time.sleep(0.3)  # the second reader is opening while the first still reads
    assert read == []
    first.close()
    other.join(timeout=15)
    assert read == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite3"]


def test_a_reader_beside_a_writing_hall_reads_its_rows_and_leaves_its_log(tmp_path):
    """A hall writing the copy keeps its log; a reader then reads the rows in it, read only."""
    path = journal_file(tmp_path)
    writer = sqlite3.connect(path)
    writer.execute("INSERT INTO adjudications VALUES (2, 'b')")
    writer.commit()
    assert (tmp_path / "journal.sqlite3-wal").exists()
    assert standing.head(str(path)).rows == 2
    writer.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite3"]


@pytest.fixture
def temp_folder(tmp_path, monkeypatch) -> Path:
    """A temporary folder of the test's own."""
    folder = tmp_path / "tmp"
    folder.mkdir(mode=0o1777)
    os.chmod(folder, 0o1777)  # as /tmp is: anyone may make a file or a folder in it
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def lock_name(path: Path) -> str:
    digest = hashlib.sha256(os.path.realpath(path).encode()).hexdigest()
    return f"adjudicator-read-{digest[:24]}.lock"


def test_the_turns_are_kept_in_a_folder_of_the_users_own(tmp_path, temp_folder, monkeypatch):
    """The same folder whatever the process's environment (a runtime folder or not), so that
    a hall started as a service and a command typed in a terminal take turns."""
    runtime = tmp_path / "run-user"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    path = journal_file(tmp_path)
    assert standing.head(str(path)).rows == 1
    own = temp_folder / f"adjudicator-{os.getuid()}"
    assert [p.name for p in own.iterdir()] == [lock_name(path)]
    assert stat.S_IMODE(own.stat().st_mode) == 0o700 and list(runtime.iterdir()) == []


@pytest.mark.parametrize("planted", ["another user's", "writable by all", "a link"])
def test_a_folder_planted_at_its_name_is_not_used_and_the_copy_is_read(
    tmp_path, temp_folder, planted
):
    """Another user of the laptop who made the folder first (or a link there) could hold a
    turn's lock to stall every read: the reads go on without turns instead."""
    own = temp_folder / f"adjudicator-{os.getuid()}"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    if planted == "a link":
        own.symlink_to(elsewhere)
    else:
        own.mkdir()
        if planted == "another user's":
            os.chown(own, 65534, 65534)
        else:
            os.chmod(own, 0o777)
    path = journal_file(tmp_path)
    assert standing.head(str(path)).rows == 1
    assert list(elsewhere.iterdir()) == []
    assert planted == "a link" or list(own.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "journal.sqlite3", "tmp"]


def test_a_link_planted_at_the_turns_lock_is_not_followed(tmp_path, temp_folder):
    """A link at the lock's name (put there before this user's folder was locked down) is not
    opened, nor the file it points to made, and the copy is read all the same."""
    path = journal_file(tmp_path)
    folder = standing.turns_folder()
    assert folder is not None
    lock = folder / lock_name(path)
    target = tmp_path / "not-a-lock"
    lock.symlink_to(target)
    assert standing.head(str(path)).rows == 1
    assert not target.exists()
