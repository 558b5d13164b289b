"""Two readers of one copy at once (two workers of a starting hall, reading the stick) leave
nothing behind them: the second waits for the first, so that the first's write-ahead log is
never taken for a writer's and left on the stick when both have closed."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
import threading
import time
from pathlib import Path

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


def test_a_link_planted_at_the_turns_lock_is_not_followed(tmp_path):
    """The turns' lock is in the shared temporary folder: a link another user put at its name
    is not opened (nor the file it points to made), and the copy is read all the same."""
    path = journal_file(tmp_path)
    name = hashlib.sha256(os.path.realpath(path).encode()).hexdigest()[:24]
    lock = Path(tempfile.gettempdir()) / f"adjudicator-read-{name}.lock"
    lock.unlink(missing_ok=True)
    target = tmp_path / "not-a-lock"
    lock.symlink_to(target)
    try:
        assert standing.head(str(path)).rows == 1
        assert not target.exists()
    finally:
        lock.unlink()
