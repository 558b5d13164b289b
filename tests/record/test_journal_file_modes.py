"""The journal's files are their owner's alone: the database, -wal, -shm and .lock of each copy,
a backup, a rebuilt copy and a copy's marker are mode 600 even under umask 022, and a journal
made before is made so when opened. Where that cannot hold (a FAT stick, a file another user
owns), `journal status` and the director's overview say so."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from adjudicator.durable import create_owner_only, readable_by_others
from adjudicator.record.copies import backup, file_modes, markers, resync
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase

from support.filesystems import fat_stick


@pytest.fixture
def umask_022():
    """The usual umask (files 644 unless the program says otherwise), for this test."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def mode(path: Path | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def write_some(db) -> None:
    migrations.upgrade(db)
    with db.transaction(chain_lock=True) as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS scratch (x TEXT)")
        cur.execute("INSERT INTO scratch VALUES ('a row')")


def test_every_file_of_a_mirrored_journal_is_mode_600_under_umask_022(tmp_path, umask_022):
    (tmp_path / "stick").mkdir()
    (tmp_path / "home").mkdir()
    primary, mirror = tmp_path / "home" / "journal.sqlite3", tmp_path / "stick" / "mirror.sqlite3"
    db = MirroredDatabase(str(primary), str(mirror), key_path=tmp_path / "receipt_key.pem")
    write_some(db)
    files = [Path(f"{copy}{suffix}") for copy in (primary, mirror) for suffix in SIDE]
    assert all(f.exists() for f in files), [f for f in files if not f.exists()]
    made = backup.make(db, tmp_path / "backup.sqlite3")
    lost = {"lost": str(mirror), "role": "mirror", "reason": "test", "since": "2031-01-01"}
    assert markers.write([str(primary)], {**lost, "row": None}, db.signing_key())
    resync.rebuild(str(primary), str(tmp_path / "rebuilt.sqlite3"))
    files += [made.path, markers.marker_path(str(primary)), tmp_path / "rebuilt.sqlite3"]
    assert {str(f): oct(mode(f)) for f in files} == {str(f): "0o600" for f in files}
    assert file_modes.readable_copies(db) == []
    db.close()


SIDE = ("", "-wal", "-shm", ".lock")


def test_a_journal_made_before_is_made_owner_only_when_it_is_opened(tmp_path, umask_022):
    path = tmp_path / "journal.sqlite3"
    old = SqliteDatabase(str(path))
    write_some(old)
    for suffix in SIDE:  # as a journal made before this change was left: readable by all
        os.chmod(f"{path}{suffix}", 0o644)
    old.close()
    reopened = SqliteDatabase(str(path))
    migrations.upgrade(reopened)
    with reopened.transaction(chain_lock=True):
        pass
    assert {s: oct(mode(f"{path}{s}")) for s in SIDE} == {s: "0o600" for s in SIDE}
    reopened.close()


def test_a_read_only_journal_stays_read_only(tmp_path, umask_022):
    """Taking others' permissions off never adds the owner's: a fault stays what it is."""
    path = tmp_path / "journal.sqlite3"
    write_some(SqliteDatabase(str(path)))
    os.chmod(path, 0o444)
    create_owner_only(path)
    assert oct(mode(path)) == "0o400"


needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="giving a file to another user needs root"
)


@needs_root
def test_a_copy_others_can_read_is_named_by_journal_status(run, home, tmp_path):
    """A journal file another user owns, readable by all, cannot be made owner-only by this
    one: `journal status` names the copy (and still says the journal is ok: exit 0)."""
    assert run("db", "upgrade").exit_code == 0
    journal = home / "journal.sqlite3"
    os.chown(journal, 65534, 65534)
    os.chmod(journal, 0o644)
    said = run("journal", "status")
    assert said.exit_code == 0, said.stdout + said.stderr
    assert f"{journal} can be read by other users: its file system keeps no permissions" in (
        said.stdout
    )
    as_json = run("journal", "status", "--json")
    assert str(journal) in as_json.stdout and '"readable_by_others"' in as_json.stdout


@needs_root
def test_the_overview_names_a_copy_others_can_read(staffed):
    journal = staffed.setup.db_path
    page = staffed.director().get("/director/").get_data(as_text=True)
    assert "can be read by other users" not in page
    os.chown(journal, 65534, 65534)
    os.chmod(journal, 0o644)
    page = staffed.director().get("/director/").get_data(as_text=True)
    assert f"The journal's copy {journal} can be read by other users" in page
    french = staffed.director().get("/director/", headers={"Accept-Language": "fr"})
    assert f"La copie du journal {journal} peut être lue" in french.get_data(as_text=True)


@pytest.mark.parametrize("how", ["kernel", "fuse"])
def test_a_journal_on_a_fat_stick_is_said_to_be_readable_by_others(
    run, home, tmp_path, monkeypatch, how
):
    """A real FAT file system: files are shown 0755 whatever is asked, chmod does not take.
    The kernel's vfat holds a WAL journal; fusefat holds files but not SQLite's shared memory,
    so there the check is on the stick's files alone."""
    stick = tmp_path / "stick"
    with fat_stick(stick, how) as cannot:
        if cannot:
            pytest.skip(cannot)
        on_stick = stick / "journal.sqlite3"
        create_owner_only(on_stick)  # never raises where chmod is refused or ignored
        assert mode(on_stick) & 0o044, "a FAT file should show as readable by all"
        assert readable_by_others(on_stick)
        assert file_modes.readable_copies(SqliteDatabase(str(on_stick))) == [str(on_stick)]
        if how == "kernel":
            monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", str(on_stick))
            assert run("db", "upgrade").exit_code == 0
            said = run("journal", "status")
            assert f"{on_stick} can be read by other users" in said.stdout
