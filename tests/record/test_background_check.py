"""The serving hall's full verification runs in a child process at the lowest priority
(background_check.py): what it finds is what the worker's own thread found, the worker's
interpreter never walks the chain, and a child that fails, hangs or outlives its worker is
never taken for a verification."""

from __future__ import annotations

import json
import logging
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adjudicator.record.copies import background_check, proof
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database import migrations
from adjudicator.record.journal import journal
from adjudicator.record.proofs import fork_check

from support.journal import challenge_fields

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def db(tmp_path) -> MirroredDatabase:
    """A serving worker's mirrored journal: five rows on the laptop and on the stick."""
    (tmp_path / "usb").mkdir()
    mirrored = MirroredDatabase(
        str(tmp_path / "journal.sqlite3"),
        str(tmp_path / "usb" / "journal.sqlite3"),
        key_path=tmp_path / "k.pem",
    )
    migrations.upgrade(mirrored)
    for _ in range(5):
        journal.append(mirrored, **challenge_fields())
    yield mirrored
    mirrored.close()


def change_row(path: str, row: int) -> None:
    connection = sqlite3.connect(path)
    with connection:  # in place, below the head: only a full verification sees it
        connection.execute("UPDATE adjudications SET verdict = 'UNACCEPTABLE' WHERE id = ?", (row,))
    connection.close()


def children_of_this_test(db: MirroredDatabase) -> list[int]:
    """The verifying children still alive (a zombie has ended) for this test's journal."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if (
            background_check.__name__.encode() in command
            and db.paths["primary"].encode() in command
        ):
            if state != "Z":
                found.append(int(entry.name))
    return found


def test_the_worker_never_walks_the_chain_and_the_child_drops_a_copy_changed_below_its_head(
    db, monkeypatch
):
    change_row(db.paths["mirror"], 2)

    def walked_here(*args, **kwargs):
        raise AssertionError("the worker's own interpreter walked the chain")

    monkeypatch.setattr(background_check, "verify_live", walked_here)
    monkeypatch.setattr(proof, "examine", walked_here)
    monkeypatch.setattr(fork_check, "judge", walked_here)
    watch = background_check.Watch(db, minutes=5)
    assert watch.run_if_due()
    lost = db.lost_copy()  # the child's signed marker, followed here
    assert lost is not None and lost.role == "mirror" and lost.row == 2
    assert "chain is broken at row 2" in lost.reason
    assert background_check.last_verified(db)
    assert journal.append(db, **challenge_fields()).id == 6  # judging goes on, on the laptop


def test_the_child_walks_at_the_lowest_priority_and_finds_whole_copies_whole(db):
    answer = subprocess.run(
        [sys.executable, "-P", "-m", background_check.__name__, *background_check._arguments(db)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    said = json.loads(answer.stdout)
    assert answer.returncode == 0 and said == {"found": [], "priority": 19}, answer.stderr
    assert background_check.verify_apart(db, 120) == []
    assert db.lost_copy() is None


def test_a_child_held_past_its_time_is_stopped_and_nothing_is_stamped(db, monkeypatch, caplog):
    monkeypatch.setattr(background_check, "LONGEST_SECONDS", 2)
    watch = background_check.Watch(db, minutes=0)
    with db.copies["primary"].writer_lock():  # a commit that never ends: the child waits
        with caplog.at_level(logging.ERROR):
            assert not watch.run_if_due()
        assert children_of_this_test(db) == []  # stopped, not left waiting
    assert "did not end within 2 seconds, and was stopped" in caplog.text
    assert background_check.last_verified(db) == ""
    assert db.lost_copy() is None


def test_a_child_ends_when_its_worker_dies(db, tmp_path):
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from adjudicator.record.copies import background_check\n"
        "from adjudicator.record.copies.mirror import MirroredDatabase\n"
        "db = MirroredDatabase(sys.argv[1], sys.argv[2], key_path=Path(sys.argv[3]))\n"
        "print(background_check._start(db).pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    with db.copies["primary"].writer_lock():  # the child would wait here for ever
        worker = subprocess.Popen(
            [sys.executable, "-c", script, db.paths["primary"], db.paths["mirror"],
             str(tmp_path / "k.pem")],
            stdout=subprocess.PIPE, text=True, cwd=ROOT,
        )  # fmt: skip
        child = int(worker.stdout.readline())
        waiting = time.monotonic() + 30
        while not _waits_on_a_lock(child) and time.monotonic() < waiting:
            time.sleep(0.05)
        assert _waits_on_a_lock(child)  # started, past its checks, waiting for the commit
        worker.kill()  # the worker dies (SIGKILL: nothing of its own runs)
        worker.wait()
        worker.stdout.close()
        deadline = time.monotonic() + 30
        while child in children_of_this_test(db) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert child not in children_of_this_test(db)  # ended with its worker


def _waits_on_a_lock(pid: int) -> bool:
    """Whether the process waits for a lock (a blocked request, "->", in /proc/locks)."""
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[1] == "->" and fields[5] == str(pid):
            return True
    return False


@pytest.mark.parametrize(
    "says, expected",
    [
        ("import sys; print('Traceback: boom', file=sys.stderr); exit(1)", "1: Traceback: boom"),
        ("print('{\"found\": [1]}')", "0"),
        ("print('not json')", "0"),
        ("print('[]')", "0"),
        ("import os; os.kill(os.getpid(), 9)", "-9"),
    ],
)  # fmt: skip
def test_a_child_that_fails_or_says_nonsense_is_logged_and_nothing_is_stamped(
    db, monkeypatch, caplog, says, expected
):
    def start(_db):
        return subprocess.Popen([sys.executable, "-c", says], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)  # fmt: skip

    monkeypatch.setattr(background_check, "_start", start)
    watch = background_check.Watch(db, minutes=5)
    with caplog.at_level(logging.ERROR):
        assert not watch.run_if_due()
    assert f"verification failed: its process ended with status {expected}" in caplog.text
    assert background_check.last_verified(db) == ""


def test_copies_a_starting_worker_would_refuse_are_reported_not_verified(db, caplog):
    connection = sqlite3.connect(db.paths["mirror"])
    with connection:  # the stick's newest row rewritten: a new worker would refuse to start
        connection.execute("UPDATE adjudications SET row_hash = ? WHERE id = 5", ("ab" * 32,))
    connection.close()
    watch = background_check.Watch(db, minutes=5)
    with caplog.at_level(logging.ERROR):
        assert not watch.run_if_due()
    assert "journal copies could not be verified: THIS HALL WAS TAKEN OVER" in caplog.text
    assert "row 5 was altered after it was recorded" in caplog.text
    assert background_check.last_verified(db) == ""


def test_a_primary_gone_is_reported_and_never_made_again_by_the_child(db, caplog):
    db.close()
    primary = Path(db.paths["primary"])
    primary.rename(primary.with_name("moved.sqlite3"))
    with caplog.at_level(logging.ERROR):
        assert not background_check.Watch(db, minutes=5).run_if_due()
    assert f"the journal file {primary} is missing" in caplog.text
    assert not primary.exists()


def test_without_a_program_to_start_the_worker_verifies_on_its_own_thread(db, monkeypatch):
    change_row(db.paths["mirror"], 3)
    monkeypatch.setattr(background_check.sys, "executable", "")
    assert background_check.Watch(db, minutes=5).run_if_due()
    lost = db.lost_copy()
    assert lost is not None and lost.role == "mirror" and lost.row == 3


def test_the_child_refuses_arguments_it_was_not_given_by_a_worker():
    assert background_check.main([]) == 2
    assert background_check.main(["a", "b", "c", "not-a-pid"]) == 2
    answer = subprocess.run(
        [sys.executable, "-P", "-m", background_check.__name__, "a", "b", "c", "1"],
        capture_output=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert answer.returncode == 3 and answer.stdout == b""  # its parent is not pid 1


def test_a_verification_stamped_ahead_of_the_clock_is_not_taken_as_recent(db):
    """A laptop whose clock was set back (it ran ahead when it stamped) still verifies: a stamp
    ahead of the clock would otherwise put the check off until the clock caught up."""
    background_check.stamp_path(db).write_text("2099-01-01T00:00:00+00:00")
    change_row(db.paths["mirror"], 4)
    assert background_check.Watch(db, minutes=5).run_if_due()
    assert db.lost_copy().row == 4
    assert background_check.last_verified(db) < "2099"
