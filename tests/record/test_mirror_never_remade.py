"""A stick's copy lost while the hall judges is never made again, empty, by a process that opens
it for the first time after the loss (seen in CI: a gunicorn worker's first write to the mirror
made an empty file there, which `journal resync` then took for another stick's copy)."""

from __future__ import annotations

from pathlib import Path

from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database import migrations
from adjudicator.record.journal import journal

from support.journal import challenge_fields


def append(db: MirroredDatabase, count: int) -> None:
    for _ in range(count):
        journal.append(db, **challenge_fields())


def test_a_mirror_lost_before_a_process_first_writes_it_stays_lost(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "disk"))
    (tmp_path / "usb").mkdir()
    primary, mirror = tmp_path / "disk" / "journal.sqlite3", tmp_path / "usb" / "journal.sqlite3"
    made = MirroredDatabase(str(primary), str(mirror))
    migrations.upgrade(made)
    append(made, 3)
    made.close()

    worker = MirroredDatabase(str(primary), str(mirror))  # a worker: nothing opened yet
    worker.check_copies()  # both copies stand together when it starts
    for suffix in ("", "-wal", "-shm"):  # then the stick's copy is lost
        Path(f"{mirror}{suffix}").unlink(missing_ok=True)
    append(worker, 2)

    assert journal.newest_id(worker) == 5  # judged on the laptop's copy
    assert worker.lost_copy() is not None and worker.lost_copy().role == "mirror"
    assert not mirror.exists()  # and no empty copy left where the stick's was
