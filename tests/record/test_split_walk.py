"""Issue 45 item 2: a takeover's walk of the stick's chain on both cores (split_walk.py). Two
clean halves that join give what one walk gives; a break in either half, halves that do not
join, a child that fails or says nonsense, and a stop give no head start (None: the takeover
walks the chain itself and names the break), and never leave the child running."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import replace

import pytest

from adjudicator import children as starting
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import chain_walk, journal, split_walk

from support.keyed_journal import execute, hall_like

ROWS = 30
MIDDLE = ROWS // 2


@pytest.fixture
def path(tmp_path, key_path) -> str:
    """A hall's journal of ROWS keyed rows, closed: its file."""
    file = str(tmp_path / "journal.sqlite3")
    db = SqliteDatabase(file)
    migrations.upgrade(db)
    hall_like(db, key_path, ROWS)
    db.close()
    return file


@pytest.fixture
def children(monkeypatch) -> list[subprocess.Popen]:
    """Each child process the split walk starts."""
    started: list[subprocess.Popen] = []
    real = split_walk._start

    def start(*args):
        child = real(*args)
        started.append(child)
        return child

    monkeypatch.setattr(split_walk, "_start", start)
    return started


def one_walk(path: str) -> chain_walk.Walk:
    db = SqliteDatabase(path, create_file=False)
    try:
        return chain_walk.walk(db)
    finally:
        db.close()


def harm(path: str, sql: str, params=()) -> None:
    db = SqliteDatabase(path, create_file=False)
    try:
        execute(db, sql, params)
    finally:
        db.close()


def relink(path: str, row_id: int, prev: str) -> None:
    """Row `row_id` made to link to `prev`, it and every later row re-hashed: each half's own
    chain stays whole, and only the join can see the break."""
    db = SqliteDatabase(path, create_file=False)
    try:
        for entry in list(journal.entries(db))[row_id - 1 :]:
            changed = replace(entry, prev_hash=prev)
            changed = replace(changed, row_hash=changed.compute_hash())
            execute(
                db,
                "UPDATE adjudications SET prev_hash = ?, row_hash = ? WHERE id = ?",
                (changed.prev_hash, changed.row_hash, changed.id),
            )
            prev = changed.row_hash
    finally:
        db.close()


def never_answering(monkeypatch, stop: threading.Event | None = None) -> list[subprocess.Popen]:
    """The split walk's children made ones that never answer (a minute asleep), `stop` set
    0.3 s after each starts: the children started."""
    started: list[subprocess.Popen] = []

    def start(_path, _after):
        started.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                        stdout=subprocess.PIPE))  # fmt: skip
        if stop is not None:
            threading.Timer(0.3, stop.set).start()
        return started[-1]

    monkeypatch.setattr(split_walk, "_start", start)
    return started


def test_two_halves_on_two_cores_find_what_one_walk_finds(path, children):
    found = split_walk.walk(path, split_from=2)
    assert len(children) == 1 and children[0].returncode == 0
    assert found == one_walk(path)
    assert found.rows == ROWS and found.bad_id is None and found.last_hash


def test_a_small_journal_is_walked_here_alone(path, children):
    assert split_walk.walk(path) == one_walk(path)  # 30 rows: under SPLIT_FROM
    assert children == []


@pytest.mark.parametrize("row", [3, MIDDLE, MIDDLE + 1, ROWS - 2, ROWS])
def test_a_row_altered_in_either_half_gives_no_head_start(path, children, row):
    harm(path, "UPDATE adjudications SET words = 'QI ZAX' WHERE id = ?", (row,))
    assert one_walk(path).bad_id == row  # the takeover's own walk names it
    assert split_walk.walk(path, split_from=2) is None
    assert all(child.poll() is not None for child in children)


def test_a_break_in_the_first_half_ends_the_child_without_waiting_for_it(path, monkeypatch):
    harm(path, "UPDATE adjudications SET words = 'QI ZAX' WHERE id = 2")
    started = never_answering(monkeypatch)  # a child that would walk for a minute
    assert split_walk.walk(path, split_from=2) is None
    assert started[0].returncode is not None and started[0].returncode < 0  # killed, not waited


@pytest.mark.parametrize("kind", ["fifo", "folder", "missing"])
def test_a_path_that_is_no_file_is_never_opened(tmp_path, kind, children):
    target = tmp_path / "journal.sqlite3"
    if kind == "fifo":
        os.mkfifo(target)  # SQLite would wait on it for ever
    elif kind == "folder":
        target.mkdir()
    assert split_walk.walk(str(target), split_from=2) is None
    assert children == []


def test_a_row_gone_at_the_join_gives_no_head_start(path, children):
    harm(path, "DELETE FROM adjudications WHERE id = ?", (MIDDLE + 1,))
    assert one_walk(path).bad_id == MIDDLE + 2
    assert split_walk.walk(path, split_from=2) is None


def test_halves_whole_on_their_own_that_do_not_join_give_no_head_start(path, children):
    relink(path, MIDDLE + 1, "f" * 64)
    found = one_walk(path)
    assert (found.bad_id, found.problem) == (
        MIDDLE + 1, f"row {MIDDLE + 1} does not link to row {MIDDLE}"
    )  # fmt: skip
    assert split_walk.walk(path, split_from=2) is None
    assert children[0].returncode == 0  # the child found its half whole: the join refused it


def test_a_child_that_cannot_walk_gives_no_head_start(path, monkeypatch):
    monkeypatch.setattr(split_walk.sys, "executable", "/bin/false")
    assert split_walk.walk(path, split_from=2) is None
    monkeypatch.setattr(split_walk.sys, "executable", "/nonexistent/python")
    assert split_walk.walk(path, split_from=2) is None
    monkeypatch.setattr(split_walk.sys, "executable", None)  # an embedded interpreter
    assert split_walk.walk(path, split_from=2) is None


@pytest.mark.parametrize(
    "said",
    [
        "",
        "not json",
        '{"clean": false, "rows": 30, "first": "a", "last": "b"}',
        '{"clean": true, "rows": "30", "first": "a", "last": "b"}',
        '{"clean": true, "rows": 30, "first": "", "last": "b"}',
        '{"clean": true, "rows": 30, "first": "a", "last": "b"}',  # joins nothing, no genesis
        '{"clean": false, "rows": 30, "first": "0000", "last": "b"}',
        "[]",
    ],
)
@pytest.mark.parametrize("apart", [False, True], ids=["split", "apart"])
def test_a_child_saying_nonsense_gives_no_head_start(path, monkeypatch, said, apart):
    def start(_path, _after):
        return subprocess.Popen([sys.executable, "-c", f"print({said!r})"], stdout=subprocess.PIPE)

    monkeypatch.setattr(split_walk, "_start", start)
    walked = split_walk.walk_apart(path) if apart else split_walk.walk(path, split_from=2)
    assert walked is None


def test_a_stop_ends_both_halves(path, children):
    stop = threading.Event()
    stop.set()
    with pytest.raises(chain_walk.WalkStopped):
        split_walk.walk(path, stop, split_from=2)
    assert len(children) == 1 and children[0].poll() is not None


def test_a_stop_while_the_child_walks_ends_it(path, monkeypatch):
    stop = threading.Event()
    started = never_answering(monkeypatch, stop)  # the first half is done meanwhile
    with pytest.raises(chain_walk.WalkStopped):
        split_walk.walk(path, stop, split_from=2)
    assert started[0].poll() is not None


def test_the_child_runs_as_a_command(path):
    done = subprocess.run(
        [sys.executable, "-P", "-m", "adjudicator.record.journal.split_walk", path, str(MIDDLE)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    whole = one_walk(path)
    assert f'"rows": {ROWS}' in done.stdout and whole.last_hash in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "adjudicator.record.journal.split_walk", path, "-1"],
        capture_output=True,
    )
    assert bad.returncode == 2 and bad.stdout == b""


# -- the whole chain walked apart (walk_apart: a director's backup from a serving worker) -----


def test_the_whole_chain_walked_apart_finds_what_one_walk_finds(path, children, monkeypatch):
    whole = one_walk(path)
    lowered: list[int] = []
    lower = starting.lower

    def spy(child):
        lower(child)
        lowered.append(os.getpriority(os.PRIO_PROCESS, child.pid))

    monkeypatch.setattr(starting, "lower", spy)

    def never_here(*args, **kwargs):
        raise AssertionError("walked in this interpreter")

    monkeypatch.setattr(chain_walk, "_walk", never_here)  # this process never walks a row
    found = split_walk.walk_apart(path)
    assert len(children) == 1 and children[0].returncode == 0
    assert found == whole and found.rows == ROWS and found.last_hash
    assert lowered == [starting.LOWEST]  # a director's backup: every verdict goes first


@pytest.mark.parametrize("row", [1, MIDDLE, ROWS])
def test_a_row_altered_gives_no_walk_apart(path, children, row):
    harm(path, "UPDATE adjudications SET words = 'QI ZAX' WHERE id = ?", (row,))
    assert split_walk.walk_apart(path) is None  # the caller walks it, and names row `row`
    assert one_walk(path).bad_id == row
    assert all(child.poll() is not None for child in children)


def test_a_chain_that_does_not_begin_at_row_one_gives_no_walk_apart(path, children):
    harm(path, "DELETE FROM adjudications WHERE id = 1")  # rows 2.. whole among themselves
    assert split_walk.walk_apart(path) is None
    assert children[0].returncode == 0 and one_walk(path).bad_id == 2


def test_a_child_that_cannot_walk_apart_gives_nothing(path, monkeypatch):
    for program in ("/bin/false", "/nonexistent/python", None):
        monkeypatch.setattr(split_walk.sys, "executable", program)
        assert split_walk.walk_apart(path) is None


def test_a_stop_while_walking_apart_ends_the_child(path, monkeypatch):
    stop = threading.Event()
    started = never_answering(monkeypatch, stop)
    with pytest.raises(chain_walk.WalkStopped):
        split_walk.walk_apart(path, stop)
    assert started[0].poll() is not None


def test_a_child_walking_apart_past_its_time_is_ended(path, monkeypatch):
    started = never_answering(monkeypatch)
    assert split_walk.walk_apart(path, within=0.5) is None  # the caller walks it itself
    assert started[0].returncode is not None and started[0].returncode < 0  # killed
