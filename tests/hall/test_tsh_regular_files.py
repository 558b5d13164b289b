"""TSH's files read as files (issue 33, item 3): a FIFO, a device, a socket or a folder put
where `tourney.js`, `config.tsh` or a `.t` file should be is refused by name, at once, never
waited on; the bytes are capped while reading, not by what `stat` says; a failed read is stored
with its time and the next good version is followed."""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from adjudicator.hall.tsh import event_folder, follow, games, links, regular_file, source
from adjudicator.hall.tsh.event import TshError

from support import tsh_files
from support.hall import NWL


@pytest.fixture
def hall(setup):
    return setup.hall


def replace_with(path, make):
    """Put something else at `path` in one rename, as a hostile writer of TSH's folder would."""
    other = path.with_name(path.name + ".new")
    make(other)
    os.replace(other, path)


def fifo(path):
    os.mkfifo(path)


def zero(path):
    os.symlink("/dev/zero", path)


def unix_socket(path):
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    return listener


NOT_FILES = {"FIFO": (fifo, "a FIFO"), "/dev/zero": (zero, "a device")}


def read_in_a_thread(path, limit=1 << 20):
    """Read `path` in a thread: what came back, or that it is still waiting after 5 s (the
    old reader waited for good on a FIFO)."""
    done: list = []

    def read():
        try:
            done.append(regular_file.read_regular(path, limit))
        except TshError as exc:
            done.append(exc)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(5)
    assert not thread.is_alive(), f"reading {path} is still waiting"
    return done[0]


@pytest.mark.parametrize("kind", sorted(NOT_FILES))
def test_a_fifo_or_a_device_is_refused_at_once_by_name(tmp_path, kind):
    make, what = NOT_FILES[kind]
    path = tmp_path / "tourney.js"
    make(path)
    refused = read_in_a_thread(path)
    assert isinstance(refused, TshError)
    assert f"tourney.js is not a regular file ({what})" in str(refused)


def test_a_socket_and_a_folder_are_refused_by_name(tmp_path):
    listener = unix_socket(tmp_path / "tourney.js")
    try:
        refused = read_in_a_thread(tmp_path / "tourney.js")
    finally:
        listener.close()
    assert "tourney.js is not a regular file (a socket)" in str(refused)
    (tmp_path / "a.t").mkdir()
    assert "a.t is not a regular file (a folder)" in str(read_in_a_thread(tmp_path / "a.t"))


def test_a_fifo_with_a_writer_is_refused_too_and_never_read(tmp_path):
    path = tmp_path / "tourney.js"
    os.mkfifo(path)
    writer = os.open(path, os.O_RDWR)  # a writer holding it open, ready to feed it
    try:
        os.write(writer, b"newt={};")
        assert "not a regular file (a FIFO)" in str(read_in_a_thread(path))
    finally:
        os.close(writer)


def test_a_fifo_swapped_in_after_the_look_is_refused_by_the_opened_descriptor(
    tmp_path, monkeypatch
):
    """The path looked like a file, then a FIFO was renamed over it before the open: what was
    opened is checked (fstat), not what was looked at."""
    path, plain = tmp_path / "tourney.js", tmp_path / "plain"
    plain.write_bytes(b"newt={};")
    os.mkfifo(path)
    real_stat = os.stat
    monkeypatch.setattr(
        regular_file.os, "stat", lambda at, **kw: real_stat(plain if at == path else at, **kw)
    )
    assert "tourney.js is not a regular file (a FIFO)" in str(read_in_a_thread(path))


def test_the_cap_counts_the_bytes_read_not_what_stat_says(tmp_path):
    path = tmp_path / "tourney.js"
    path.write_bytes(b"x" * 1000)
    assert regular_file.read_regular(path, 1000) == b"x" * 1000
    refused = read_in_a_thread(path, limit=999)
    assert "tourney.js is larger than 999 bytes: too large to be TSH's" in str(refused)


def test_a_read_past_its_deadline_is_given_up(tmp_path, monkeypatch):
    path = tmp_path / "tourney.js"
    path.write_bytes(b"x" * 5000)
    monkeypatch.setattr(regular_file, "PIECE_BYTES", 1000)
    real_read = os.read

    def slow_read(fd, size):  # a file system answering a piece every 0.3 s
        time.sleep(0.3)
        return real_read(fd, size)

    monkeypatch.setattr(regular_file.os, "read", slow_read)
    with pytest.raises(TshError, match=r"Reading tourney.js took more than 0.5 s"):
        regular_file.read_regular(path, 1 << 20, seconds=0.5)


@pytest.mark.parametrize("kind", sorted(NOT_FILES))
def test_linking_a_fifo_or_a_device_says_what_it_is(hall, tmp_path, kind):
    make, what = NOT_FILES[kind]
    make(tmp_path / "tourney.js")
    with pytest.raises(TshError, match=rf"tourney.js is not a regular file \({what}\)"):
        read_in_a_thread_link(hall, tmp_path / "tourney.js")
    assert links.get(hall.db, NWL) is None


def read_in_a_thread_link(hall, path):
    done: list = []

    def link():
        try:
            done.append(links.link(hall.db, NWL, str(path)))
        except TshError as exc:
            done.append(exc)

    thread = threading.Thread(target=link, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "linking is still waiting"
    if isinstance(done[0], TshError):
        raise done[0]
    return done[0]


@pytest.mark.parametrize("kind", sorted(NOT_FILES))
def test_a_linked_tourney_js_replaced_is_a_stored_failure_then_the_good_one_is_followed(
    hall, tmp_path, kind
):
    make, what = NOT_FILES[kind]
    made = tsh_files.make_event({"A": 8}, 4, 2)
    path = tsh_files.write_tourney_js(tmp_path / "html" / "tourney.js", made)
    links.link(hall.db, NWL, str(path))
    shown = games.show(hall.db, NWL)
    replace_with(path, make)
    follower = follow.Follower(hall.db, 1, 30)
    assert run_once_in_a_thread(follower) == {NWL: "failed"}
    failed = links.get(hall.db, NWL)
    assert f"tourney.js is not a regular file ({what})" in failed.failure
    assert failed.failed_since  # the overview says since when
    assert games.show(hall.db, NWL) == shown  # the last good pairings stay
    assert run_once_in_a_thread(follower) == {}  # not read again until it changes (or 30 s)
    tsh_files.pair_round(made, "A")
    replace_with(path, lambda good: tsh_files.write_tourney_js(good, made))
    assert run_once_in_a_thread(follower) == {NWL: "updated"}
    assert links.get(hall.db, NWL).failure is None
    assert len(games.show(hall.db, NWL)) > len(shown)  # the new round is there


def run_once_in_a_thread(follower):
    done: list = []
    thread = threading.Thread(target=lambda: done.append(follower.run_once()), daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "the follower is still waiting"
    return done[0]


@pytest.mark.parametrize("name", ["config.tsh", "a.t"])
@pytest.mark.parametrize("kind", sorted(NOT_FILES))
def test_an_event_folders_config_or_t_file_replaced_is_refused_by_name(hall, tmp_path, name, kind):
    make, what = NOT_FILES[kind]
    made = tsh_files.make_event({"A": 6}, 2, 2)
    folder = tsh_files.write_folder(tmp_path / "event", made)
    links.link(hall.db, NWL, str(folder))
    shown = games.show(hall.db, NWL)
    replace_with(folder / name, make)
    if name == "a.t" and kind == "/dev/zero":
        says = "outside the event folder"  # config.tsh's files must lie in the folder
    else:
        says = f"{name} is not a regular file ({what})"
    assert run_once_in_a_thread(follow.Follower(hall.db, 1, 30)) == {NWL: "failed"}
    assert says in links.get(hall.db, NWL).failure
    assert games.show(hall.db, NWL) == shown
    with pytest.raises(TshError, match=says.replace("(", r"\(").replace(")", r"\)")):
        event_folder.read(folder)
    assert source.parse(str(folder)).kind == "folder"
