"""`kit open`'s private copy of the stick's journal is made near where the journal goes
(stick_copy.private_folder): in the data home's folder when it exists, else in the nearest
folder of its path that does, so the copy is on the disk it goes to (renamed into place, never
a second copy from a /tmp held in memory); the system's temporary folder only when none can be
had there. Nothing is left behind, and a folder left by a `kit open` that was killed is
removed by the next."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from adjudicator.hall.kit import stick_copy
from adjudicator.record.copies import resync

from support.kit import Laptops, sealed_laptops

pytestmark = pytest.mark.slow  # each seal and open derives a key over 256 MiB (Argon2id)


@pytest.fixture
def laptops(tmp_path, monkeypatch, run, tiny) -> Laptops:
    return sealed_laptops(tmp_path, monkeypatch, run)


@pytest.fixture
def made(monkeypatch) -> list[str]:
    """The private folders `kit open` made, and no copy of the journal from one (a rename)."""
    folders: list[str] = []
    real = stick_copy.tempfile.mkdtemp

    def mkdtemp(**kwargs):
        folders.append(real(**kwargs))
        return folders[-1]

    def no_copy(source, target, *args):
        raise AssertionError(f"{source} copied into place, not renamed")

    monkeypatch.setattr(stick_copy.tempfile, "mkdtemp", mkdtemp)
    monkeypatch.setattr(resync, "rebuild", no_copy)
    return folders


def left(folder) -> list:
    return sorted(path.name for path in folder.glob(".adjudicator-kit-open-*"))


def test_a_data_home_that_exists_gets_the_copy_beside_it_renamed_into_place(laptops, made):
    laptops.b.mkdir()  # a standby laptop that has run the program before
    opened = laptops.open(laptops.b)
    assert opened.exit_code == 0, opened.stderr
    assert [os.path.dirname(folder) for folder in made] == [str(laptops.b)]
    assert left(laptops.b) == [] and (laptops.b / "journal.sqlite3").is_file()
    assert laptops.judge("ZA").exit_code == 0


def test_a_fresh_laptop_gets_it_in_the_nearest_folder_and_its_data_home_is_not_made(
    laptops, made, tmp_path
):
    refused = laptops.open(laptops.b, "not the passphrase at all")
    assert refused.exit_code == 2 and not laptops.b.exists()  # nothing of the data home made
    assert [os.path.dirname(folder) for folder in made] == [str(tmp_path)] and left(tmp_path) == []
    opened = laptops.open(laptops.b)
    assert opened.exit_code == 0, opened.stderr
    assert os.path.dirname(made[-1]) == str(tmp_path) and left(tmp_path) == []


def test_where_no_folder_can_be_made_near_it_the_systems_temporary_folder_serves(
    laptops, monkeypatch
):
    real, asked = stick_copy.tempfile.mkdtemp, []

    def mkdtemp(**kwargs):
        asked.append(kwargs.get("dir"))
        if kwargs.get("dir") is not None:
            raise PermissionError(13, "Permission denied")  # a folder not this user's
        return real(**kwargs)

    monkeypatch.setattr(stick_copy.tempfile, "mkdtemp", mkdtemp)
    opened = laptops.open(laptops.b)
    assert opened.exit_code == 0, opened.stderr
    assert asked[0] is not None and asked[-1] is None


def test_a_folder_left_by_a_killed_kit_open_is_removed_and_only_that(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = tmp_path / f".adjudicator-kit-open-{gone.stdout.strip()}-abc"
    alive = tmp_path / f".adjudicator-kit-open-{os.getpid()}-def"  # a kit open still running
    odd = tmp_path / ".adjudicator-kit-open-notapid-ghi"
    elsewhere = tmp_path / "kept"
    for folder in (dead, alive, odd, elsewhere):
        folder.mkdir()
        (folder / "journal.sqlite3").write_bytes(b"rows")
    linked = tmp_path / f".adjudicator-kit-open-{gone.stdout.strip()}-link"
    linked.symlink_to(elsewhere)  # never followed, never removed
    made = stick_copy.private_folder(str(tmp_path / "home" / "journal.sqlite3"))
    assert made is not None and os.path.dirname(made) == str(tmp_path)
    assert not dead.exists() and alive.exists() and odd.exists() and linked.is_symlink()
    assert (elsewhere / "journal.sqlite3").read_bytes() == b"rows"
    assert oct(os.stat(made).st_mode & 0o777) == "0o700"


def test_a_ctrl_c_as_the_walk_starts_leaves_no_folder(tmp_path, monkeypatch):
    """The folder is made, then the walk's thread started: an interrupt between the two (the
    director's Ctrl-C as the prompt appears) still removes the folder."""

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(stick_copy, "ChainWalk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        with stick_copy.walking(str(tmp_path / "stick.sqlite3"), str(tmp_path / "journal.sqlite3")):
            pass
    assert left(tmp_path) == []


def test_the_walks_thread_leaves_ctrl_c_to_the_prompt(tmp_path, monkeypatch):
    """The walk's thread blocks SIGINT, so the system gives the director's Ctrl-C to the main
    thread, waiting at the passphrase's prompt, whose read it interrupts. (Given to the walk's
    thread, the prompt went on waiting: seen twice in clean-clone runs.)"""
    stick = tmp_path / "stick.sqlite3"
    stick.write_bytes(b"")
    masks = []

    def snapshot(*args, **kwargs):
        masks.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))  # the walk thread's
        raise OSError("read no further")

    monkeypatch.setattr(resync, "snapshot", snapshot)
    with stick_copy.walking(str(stick), str(tmp_path / "journal.sqlite3")) as walk:
        assert walk.result() is None
    assert len(masks) == 1 and signal.SIGINT in masks[0]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # this thread's
