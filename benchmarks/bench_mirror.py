"""Issue 22: the mirror's cost per verdict against the single-disk journal (goal: <= 1.5x).

Each round records 64 verdicts through the group commit (GroupCommitter, as the hall does),
from 16 threads at once (a busy hall) or from one thread (a quiet one: one commit a verdict).
The single journal commits to one file; the mirrored one commits every batch to two files.
Both files sit on this machine's one disk here; on a laptop with a USB stick the two fsyncs go
to two devices. Per verdict = the round's time / 64.
"""

from __future__ import annotations

import threading

import pytest

from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal.group_commit import GroupCommitter
from benchmarks.sizing import smallest
from benchmarks.synthetic_journal import CHALLENGE

ROUND = 64
ROW = CHALLENGE


def journal_of(kind: str, folder):
    if kind == "single":
        db = SqliteDatabase(str(folder / "journal.sqlite3"))
    else:
        (folder / "usb").mkdir()
        db = MirroredDatabase(
            str(folder / "journal.sqlite3"),
            str(folder / "usb" / "mirror.sqlite3"),
            key_path=folder / "receipt_key.pem",  # its markers' and head records' key
        )
    migrations.upgrade(db)
    return db


def a_round(committer: GroupCommitter, threads: int) -> None:
    def record(count: int) -> None:
        for _ in range(count):
            committer.append(**ROW)

    workers = [threading.Thread(target=record, args=(ROUND // threads,)) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


@pytest.mark.parametrize("threads", [16, 1])
@pytest.mark.parametrize("kind", ["single", "mirror"])
def test_verdicts_per_round(benchmark, tmp_path, kind, threads):
    db = journal_of(kind, tmp_path)
    committer = GroupCommitter(db)
    benchmark.extra_info["per_verdict_of"] = ROUND
    benchmark.pedantic(a_round, args=(committer, threads), rounds=15, warmup_rounds=2)
    with db.transaction() as cur:
        rows = cur.execute("SELECT COUNT(*) AS n FROM adjudications").one()["n"]
    assert rows == ROUND * smallest(17, 1)  # each round's verdicts (once, untimed)
    if kind == "mirror":
        assert db.lost_copy() is None
