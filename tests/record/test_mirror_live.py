"""A journal on two disks, with real servers under load: the primary deleted, the mirror's
folder removed, the mirror read-only or full, the server killed mid-commit, copies that
disagree. In every case each verdict served is in a surviving copy, and that copy verifies."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal

from support.filesystems import fill_up, small_filesystem
from support.load import Load, assert_served_are_recorded, journal_rows
from support.servers import Server, cli, get, prepare_home

pytestmark = pytest.mark.slow


def mirrored_home(tmp_path: Path, usb: Path | None = None):
    usb = usb or tmp_path / "usb"
    usb.mkdir(exist_ok=True)
    mirror = usb / "journal.sqlite3"
    home = prepare_home(tmp_path / "home", env={"ADJUDICATOR_JOURNAL_MIRROR": str(mirror)})
    return home, home.path / "journal.sqlite3", mirror


def copy_env(path: Path) -> dict:
    """One copy alone, as a backup or a copy is read."""
    return {"ADJUDICATOR_DATABASE_URL": str(path), "ADJUDICATOR_JOURNAL_MIRROR": ""}


def copy_rows(home, path: Path) -> dict[int, dict]:
    return journal_rows(home.path, copy_env(path))


def verifies(home, path: Path) -> bool:
    return "Journal intact" in cli(home.path, "journal", "verify", env=copy_env(path))


def run_load(server: Server, home, fault, before: float = 1.0, after: float = 1.5) -> Load:
    load = Load([(server.url, home.token)], threads=6).start()
    time.sleep(before)
    fault()
    time.sleep(after)
    return load.stop()


def status(home) -> subprocess.CompletedProcess:
    import os
    import sys

    return subprocess.run(
        [sys.executable, "-m", "adjudicator", "journal", "status"],
        env={**os.environ, "ADJUDICATOR_HOME": str(home.path), **home.env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_every_verdict_is_on_both_disks(tmp_path):
    home, primary, mirror = mirrored_home(tmp_path)
    with Server(home, workers=2) as server:
        load = Load([(server.url, home.token)], threads=6, per_thread=15).start().join()
    served = load.served()
    assert len(served) == 90
    for copy in (primary, mirror):
        assert_served_are_recorded(served, copy_rows(home, copy))
        assert verifies(home, copy)
    assert copy_rows(home, primary) == copy_rows(home, mirror)


def test_primary_deleted_under_load_serving_goes_on_from_the_mirror(tmp_path):
    home, primary, mirror = mirrored_home(tmp_path)
    with Server(home, workers=2) as server:

        def delete_primary():
            for suffix in ("", "-wal", "-shm"):
                Path(f"{primary}{suffix}").unlink(missing_ok=True)

        load = run_load(server, home, delete_primary)
        after = [r for r in load.replies if r.sent > load.replies[0].sent + 1.2]
        code, health = get(server.url + "/healthz")
        _, kiosk = get(server.url + "/api/v1/kiosk", home.token)
        told = status(home)

        served = load.served()
        assert {r.status for r in load.replies} <= {201, 503}
        assert sum(r.status == 201 for r in after) >= len(after) * 0.9  # served on
        assert code == 200 and health["journal"] == "degraded: one copy (the primary is lost)"
        assert "journal resync" in health["advice"]
        assert kiosk["journal"] == {"ok": True, "state": "ok", "message": ""}  # kiosks: nothing
        assert told.returncode == 1
        assert "degraded: one copy" in told.stdout and "LOST" in told.stdout
        assert str(primary) in told.stdout and "journal resync" in told.stdout

        assert_served_are_recorded(served, copy_rows(home, mirror))
        assert verifies(home, mirror)

        # The director brings the copy back while the hall serves.
        out = cli(home.path, "journal", "resync", env=home.env)
        assert "rebuilt from the mirror" in out
        time.sleep(0.2)
        more = Load([(server.url, home.token)], threads=3, per_thread=5).start().join()
        assert [r.status for r in more.replies] == [201] * 15
        assert get(server.url + "/healthz")[1]["journal"] == "ok"
    served += more.served()
    for copy in (primary, mirror):
        assert_served_are_recorded(served, copy_rows(home, copy))
        assert verifies(home, copy)
    assert copy_rows(home, primary) == copy_rows(home, mirror)
    assert status(home).returncode == 0


def test_mirror_folder_removed_under_load(tmp_path):
    home, primary, mirror = mirrored_home(tmp_path)
    with Server(home, workers=2) as server:
        load = run_load(server, home, lambda: shutil.rmtree(mirror.parent))
        _, health = get(server.url + "/healthz")
        assert health["journal"] == "degraded: one copy (the mirror is lost)"
        failed = subprocess.run(
            [*cli_argv(), "journal", "resync"], env=env_of(home), capture_output=True, text=True
        )
        assert failed.returncode == 2
        assert "does not exist: put its disk back" in failed.stderr
        mirror.parent.mkdir()
        assert "rebuilt from the primary" in cli(home.path, "journal", "resync", env=home.env)
        time.sleep(0.2)
        more = Load([(server.url, home.token)], threads=2, per_thread=5).start().join()
        assert [r.status for r in more.replies] == [201] * 10
    served = load.served() + more.served()
    assert len(load.served()) >= len(load.replies) * 0.9
    assert_served_are_recorded(served, copy_rows(home, primary))
    assert_served_are_recorded(served, copy_rows(home, mirror))
    assert verifies(home, primary) and verifies(home, mirror)


def cli_argv() -> list[str]:
    import sys

    return [sys.executable, "-m", "adjudicator"]


def env_of(home) -> dict:
    import os

    return {**os.environ, "ADJUDICATOR_HOME": str(home.path), **home.env}


def test_mirror_disk_full_under_load(tmp_path):
    usb = tmp_path / "usb"
    with small_filesystem(usb, size_kb=8192) as mounted:
        if not mounted:
            pytest.skip("mounting a small file system needs root")
        home, primary, mirror = mirrored_home(tmp_path, usb)
        with Server(home, workers=2) as server:
            filler = []
            load = run_load(server, home, lambda: filler.append(fill_up(usb)))
            _, full = get(server.url + "/healthz")
            assert full["journal"] == "degraded: one copy (the mirror is lost)"
            filler[0].unlink()
            assert "rebuilt from the primary" in cli(home.path, "journal", "resync", env=home.env)
            time.sleep(0.2)
            more = Load([(server.url, home.token)], threads=2, per_thread=5).start().join()
            assert [r.status for r in more.replies] == [201] * 10
            assert get(server.url + "/healthz")[1]["journal"] == "ok"
        served = load.served() + more.served()
        assert len(load.served()) >= len(load.replies) * 0.9
        for copy in (primary, mirror):
            assert_served_are_recorded(served, copy_rows(home, copy))
            assert verifies(home, copy)


def test_killed_between_commits_the_copy_behind_is_rebuilt_at_start(tmp_path, monkeypatch):
    home, primary, mirror = mirrored_home(tmp_path)
    monkeypatch.setenv("ADJUDICATOR_HOME", str(home.path))  # rows keyed with the hall's key
    served = []
    for _ in range(3):  # killed at random moments under load: mid-commit sooner or later
        with Server(home, workers=2) as server:
            load = Load([(server.url, home.token)], threads=6).start()
            time.sleep(0.8)
            server.kill()
            served += load.stop().served()
    # The mirror one row behind, as if killed between the two commits of a row.
    extra = SqliteDatabase(str(primary))
    journal.append(extra, **first_row(extra))
    extra.close()
    assert len(copy_rows(home, primary)) > len(copy_rows(home, mirror))
    with Server(home, workers=2) as server:
        assert "was rebuilt from the primary" in server.read_log()
        assert get(server.url + "/healthz")[1]["journal"] == "ok"
    assert copy_rows(home, primary) == copy_rows(home, mirror)
    for copy in (primary, mirror):
        assert_served_are_recorded(served, copy_rows(home, copy))
        assert verifies(home, copy)


def first_row(db) -> dict:
    """Row 1's fields, to append another like it to one copy alone."""
    entry = journal.get(db, 1)
    return {name: getattr(entry, name) for name in FIELDS_IN}


FIELDS_IN = (
    "kind",
    "tournament",
    "kiosk",
    "lexicon_name",
    "lexicon_fingerprint",
    "lexicon_words",
    "rule",
    "words",
    "word_count",
    "verdict",
    "consequence",
)


def test_copies_that_disagree_are_never_overwritten(tmp_path, monkeypatch):
    home, primary, mirror = mirrored_home(tmp_path)
    monkeypatch.setenv("ADJUDICATOR_HOME", str(home.path))  # rows keyed with the hall's key
    with Server(home, workers=1) as server:
        Load([(server.url, home.token)], threads=2, per_thread=3).start().join()
    for path, verdict in ((primary, "ACCEPTABLE"), (mirror, "UNACCEPTABLE")):
        copy = SqliteDatabase(str(path))
        journal.append(copy, **{**first_row(copy), "verdict": verdict})
        copy.close()
    refused = subprocess.run(
        [*cli_argv(), "serve", "--workers", "1"], env=env_of(home), capture_output=True, text=True
    )
    assert refused.returncode == 2 and "two copies disagree" in refused.stderr
    unchosen = subprocess.run(
        [*cli_argv(), "journal", "resync"], env=env_of(home), capture_output=True, text=True
    )
    assert unchosen.returncode == 2 and "--keep" in unchosen.stderr
    mirror_rows = copy_rows(home, mirror)
    out = cli(home.path, "journal", "resync", "--keep", "primary", env=home.env)
    assert "set aside as" in out
    kept = next(
        p for p in mirror.parent.iterdir() if re.fullmatch(r".*\.set-aside-\d{8}T\d{6}Z", p.name)
    )
    assert copy_rows(home, kept) == mirror_rows  # the disagreeing copy, kept as it was
    assert copy_rows(home, primary) == copy_rows(home, mirror)
    with Server(home, workers=1) as server:
        assert get(server.url + "/healthz")[1]["journal"] == "ok"


def test_a_mirror_set_on_a_hall_already_judging_is_filled_at_start(tmp_path):
    home = prepare_home(tmp_path / "home")  # judging for a while on one disk
    with Server(home, workers=1) as server:
        before = Load([(server.url, home.token)], threads=2, per_thread=5).start().join()
    mirror = tmp_path / "usb" / "journal.sqlite3"
    mirror.parent.mkdir()
    home.env = {"ADJUDICATOR_JOURNAL_MIRROR": str(mirror)}
    with Server(home, workers=2) as server:
        assert "was rebuilt from the primary" in server.read_log()
        after = Load([(server.url, home.token)], threads=2, per_thread=5).start().join()
    served = before.served() + after.served()
    assert len(served) == 20
    for copy in (home.path / "journal.sqlite3", mirror):
        assert_served_are_recorded(served, copy_rows(home, copy))
        assert verifies(home, copy)


def test_a_stick_row_changed_while_the_hall_serves_is_found_by_its_background_check(tmp_path):
    """The full verification every ADJUDICATOR_JOURNAL_VERIFY_MINUTES, which one worker has a
    child process run: a stick row changed in place below the head, where no commit's head
    check looks, drops the stick in every worker, and verdicts go on, on the laptop."""
    home, primary, mirror = mirrored_home(tmp_path)
    with Server(home, workers=2, env={"ADJUDICATOR_JOURNAL_VERIFY_MINUTES": "1"}) as server:
        first = Load([(server.url, home.token)], threads=2, per_thread=5).start().join()
        assert [r.status for r in first.replies] == [201] * 10
        connection = sqlite3.connect(mirror)
        with connection:
            connection.execute(  # the verdict turned over
                "UPDATE adjudications SET verdict = CASE verdict WHEN 'ACCEPTABLE' "
                "THEN 'UNACCEPTABLE' ELSE 'ACCEPTABLE' END WHERE id = 3"
            )
        connection.close()
        deadline = time.monotonic() + 120  # the start's verification, then 60 to 84 s later
        health: dict = {}
        while time.monotonic() < deadline:
            health = get(server.url + "/healthz")[1]
            if health.get("journal") != "ok":
                break
            time.sleep(0.5)
        assert health["journal"] == "degraded: one copy (the mirror disagrees at row 3)"
        # the child's drop marker is followed at once; its finding is logged when it has ended
        logged, said = "", time.monotonic() + 30
        while not re.search(r"journal copies: .*row 3", logged) and time.monotonic() < said:
            time.sleep(0.2)
            logged = server.log_path.read_text()
        assert re.search(r"journal copies: .*row 3", logged), logged[-3000:]
        later = Load([(server.url, home.token)], threads=2, per_thread=5).start().join()
        assert [r.status for r in later.replies] == [201] * 10
    assert_served_are_recorded(first.served() + later.served(), copy_rows(home, primary))
    assert verifies(home, primary)
