"""No copy of the record trusted without proof (issue 27), each fault made as a hall serves:
a mirror rolled back in place (rows deleted through SQLite, in the same file), a restart with
the laptop's copy gone and a broken mirror, both copies rolled back with a changed journal id,
and a forged `copy-lost` marker on the stick. Real `adjudicator serve` processes, two workers.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest

from support.http import signed_in_director as director
from support.servers import Server, StoppedServer, cli, get, post, prepare_home

pytestmark = pytest.mark.slow


def mirrored_home(tmp_path: Path):
    usb = tmp_path / "usb"
    usb.mkdir(exist_ok=True)
    mirror = usb / "journal.sqlite3"
    home = prepare_home(tmp_path / "home", env={"ADJUDICATOR_JOURNAL_MIRROR": str(mirror)})
    return home, home.path / "journal.sqlite3", mirror


def judge(server, home, count: int) -> list[dict]:
    answers = [post(server.url, home.token, ["QI"]) for _ in range(count)]
    assert [status for status, _ in answers] == [201] * count, answers
    return [body for _, body in answers]


def run(home, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "adjudicator", *args],
        env={**os.environ, "ADJUDICATOR_HOME": str(home.path), **home.env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def delete_rows(path: Path, from_id: int) -> None:
    """Roll a copy back in place: its rows from `from_id` on deleted through SQLite."""
    connection = sqlite3.connect(path, timeout=30)
    with connection:
        connection.execute("DELETE FROM adjudications WHERE id >= ?", (from_id,))
    connection.close()


def ids(path: Path) -> list[int]:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        return [row[0] for row in connection.execute("SELECT id FROM adjudications ORDER BY id")]
    finally:
        connection.close()


def copy_env(path: Path) -> dict:
    return {"ADJUDICATOR_DATABASE_URL": str(path), "ADJUDICATOR_JOURNAL_MIRROR": ""}


def verifies(home, path: Path) -> bool:
    return "Journal intact" in cli(home.path, "journal", "verify", env=copy_env(path))


def witness(server, home, receipt: dict) -> int:
    """The kiosk reports `receipt` with its status poll, as its page does."""
    request = urllib.request.Request(
        server.url + "/api/v1/kiosk",
        data=json.dumps({"witness": receipt}).encode(),
        headers={"Authorization": f"Bearer {home.token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


# -- 1. a mirror rolled back in place while the hall serves ---------------------------------


def test_a_mirror_rolled_back_in_place_is_reported_within_one_commit(tmp_path):
    home, primary, mirror = mirrored_home(tmp_path)
    with Server(home, workers=2) as server:
        office = director(server, home)
        judge(server, home, 6)
        delete_rows(mirror, 5)  # rows 5 and 6 gone from the stick: no file-level check sees it

        status, body = post(server.url, home.token, ["QI"])  # one commit
        assert status == 201 and body["id"] == 7

        code, health = get(server.url + "/healthz")
        assert code == 200
        assert health["journal"] == "degraded: one copy (the mirror disagrees at row 5)"
        told = run(home, "journal", "status")
        assert told.returncode == 1
        assert "degraded" in told.stdout and "the mirror disagrees at row 5" in told.stdout
        page = office.get("/director/").body
        assert "Journal degraded: one copy" in page and "disagrees at row 5" in page

        # Verdicts go on being recorded, on the laptop's copy alone.
        more = judge(server, home, 3)
        assert [b["id"] for b in more] == [8, 9, 10]
    assert ids(primary) == list(range(1, 11)) and verifies(home, primary)
    assert ids(mirror) == [1, 2, 3, 4]  # never written again after the drop


def test_a_laptop_copy_rolled_back_in_place_is_dropped_and_the_mirror_serves(tmp_path):
    home, primary, mirror = mirrored_home(tmp_path)
    with Server(home, workers=2) as server:
        judge(server, home, 6)
        delete_rows(primary, 4)
        status, body = post(server.url, home.token, ["QI"])
        assert status == 201 and body["id"] == 7  # never 4: a receipt carries 4
        code, health = get(server.url + "/healthz")
        assert code == 200
        assert health["journal"] == "degraded: one copy (the primary disagrees at row 4)"
        judge(server, home, 2)
    assert ids(mirror) == list(range(1, 10)) and verifies(home, mirror)
    assert ids(primary) == [1, 2, 3]


# -- 2. a restart with the laptop's copy gone and a broken mirror -----------------------------


def laptop_gone_mirror_broken(tmp_path):
    """A hall that recorded 8 rows (a whole backup of them kept); the mirror rolled back in
    place to row 4 while serving, then the laptop's copy lost while stopped."""
    home, primary, mirror = mirrored_home(tmp_path)
    backup = tmp_path / "backup-8.sqlite3"
    with Server(home, workers=2) as server:
        served = judge(server, home, 6)
        delete_rows(mirror, 5)
        served += judge(server, home, 2)
        cli(home.path, "journal", "backup", str(backup), env=home.env)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{primary}{suffix}").unlink(missing_ok=True)
    return home, primary, mirror, backup, served


def assert_refuses_to_judge(server, home, missing: str) -> None:
    code, health = get(server.url + "/healthz")
    assert code == 503 and "verdict" not in health
    status, body = post(server.url, home.token, ["QI"])
    assert status == 503 and "verdict" not in body and "call the director" in body["error"]
    told = run(home, "journal", "status")
    assert told.returncode == 1
    assert missing in told.stdout, told.stdout
    assert "backup" in told.stdout and "accept-loss" in told.stdout


def test_a_restart_from_a_broken_mirror_refuses_to_judge_until_a_backup_is_restored(tmp_path):
    home, primary, mirror, backup, served = laptop_gone_mirror_broken(tmp_path)
    with StoppedServer(home, workers=2) as server:
        assert_refuses_to_judge(server, home, "rows 5 to 8")
        page = director(server, home).get("/director/").body
        assert "rows 5 to 8" in page and "accept-loss" in page
    assert ids(mirror) == [1, 2, 3, 4]  # nothing rebuilt from it, nothing written to it
    assert not primary.exists()

    shutil.copyfile(backup, primary)  # the director restores the backup
    with Server(home, workers=2) as server:
        assert get(server.url + "/healthz")[1]["journal"] == "ok"  # no accept-loss needed
        status, body = post(server.url, home.token, ["QI"])
        assert status == 201 and body["id"] == 9
    for copy in (primary, mirror):
        assert ids(copy) == list(range(1, 10)) and verifies(home, copy)


def test_a_restart_from_a_broken_mirror_judges_again_once_the_loss_is_accepted(tmp_path):
    home, primary, mirror, _, served = laptop_gone_mirror_broken(tmp_path)
    with StoppedServer(home, workers=2) as server:
        assert_refuses_to_judge(server, home, "rows 5 to 8")
        out = cli(home.path, "journal", "accept-loss", "--reason", "laptop disk died", env=home.env)
        assert "Rows 5 to 8 recorded as lost" in out
        status, body = post(server.url, home.token, ["QI"])
        assert status == 201 and body["id"] == 9  # never 5..8: receipts carry them
        assert get(server.url + "/healthz")[1]["journal"].startswith("degraded: one copy")
        assert "rebuilt from the mirror" in cli(home.path, "journal", "resync", env=home.env)
    for copy in (primary, mirror):
        assert ids(copy) == list(range(1, 10)) and verifies(home, copy)


def test_a_mirror_whose_chain_is_broken_is_never_the_source_of_a_rebuild(tmp_path):
    home, primary, mirror = mirrored_home(tmp_path)
    with Server(home, workers=1) as server:
        judge(server, home, 6)
    connection = sqlite3.connect(mirror)
    with connection:
        connection.execute("DELETE FROM adjudications WHERE id = 3")  # a hole in the chain
    connection.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{primary}{suffix}").unlink(missing_ok=True)
    with StoppedServer(home, workers=1) as server:
        assert_refuses_to_judge(server, home, "rows 3 to 6")
        assert "chain is broken at row 3" in server.read_log()
        (aside,) = mirror.parent.glob("journal.sqlite3.set-aside-*[0-9]Z")
        assert ids(aside) == [1, 2, 4, 5, 6]  # kept as it was, for the record
        assert ids(mirror) == [1, 2]  # the rows that verify, nothing rebuilt from the rest
        assert not primary.exists()
        out = cli(home.path, "journal", "accept-loss", "--reason", "disks damaged", env=home.env)
        assert "Rows 3 to 6 recorded as lost" in out
        status, body = post(server.url, home.token, ["QI"])
        assert status == 201 and body["id"] == 7
    assert ids(mirror) == list(range(1, 8)) and verifies(home, mirror)


# -- 3. both copies rolled back, with a changed journal id ------------------------------------


def test_a_rollback_of_both_copies_with_a_changed_journal_id_issues_no_number_twice(tmp_path):
    home, primary, mirror = mirrored_home(tmp_path)
    snapshot = tmp_path / "snapshot.sqlite3"
    with Server(home, workers=2) as server:
        judge(server, home, 3)
        cli(home.path, "journal", "backup", str(snapshot), env=home.env)
        newest = judge(server, home, 3)[-1]
    connection = sqlite3.connect(snapshot)
    with connection:
        connection.execute("UPDATE journal_identity SET journal_id = ?", ("f" * 32,))
    connection.close()
    for copy in (primary, mirror):
        for suffix in ("-wal", "-shm"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(snapshot, copy)

    with StoppedServer(home, workers=2) as server:
        code, health = get(server.url + "/healthz")
        assert code == 503
        status, body = post(server.url, home.token, ["QI"])
        assert status == 503 and "verdict" not in body
        assert witness(server, home, newest["receipt"]) == 200  # a kiosk's receipt for row 6
        status, body = post(server.url, home.token, ["QI"])
        assert status == 503 and "verdict" not in body
        told = run(home, "journal", "status")
        assert told.returncode == 1 and "rows 4 to 6 are missing" in told.stdout
        assert "its id was changed by hand" in told.stdout
    for copy in (primary, mirror):
        assert ids(copy) == [1, 2, 3]  # no number a receipt carries issued again


# -- 5. a forged marker on the stick ----------------------------------------------------------


def test_a_forged_marker_changes_nothing_but_a_warning(tmp_path):
    home, primary, mirror = mirrored_home(tmp_path)
    with Server(home, workers=2) as server:
        office = director(server, home)
        judge(server, home, 2)
        forged = {
            "lost": str(primary),
            "role": "primary",
            "reason": "the disk failed",
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        Path(f"{mirror}.copy-lost").write_text(json.dumps(forged))
        judge(server, home, 3)
        code, health = get(server.url + "/healthz")
        assert code == 200 and health["journal"] == "ok"
        page = office.get("/director/").body
        assert "Journal: recording verdicts." in page
        assert "not signed with this hall's key" in page
        told = run(home, "journal", "status")
        assert told.returncode == 0 and "not signed with this hall's key" in told.stdout
    for copy in (primary, mirror):
        assert ids(copy) == [1, 2, 3, 4, 5] and verifies(home, copy)


# -- a next event, afresh under the same key --------------------------------------------------


def test_a_next_event_begins_afresh_only_as_a_signed_step(tmp_path):
    home = prepare_home(tmp_path / "home")
    journal_path = home.path / "journal.sqlite3"
    with Server(home, workers=1) as server:
        judge(server, home, 3)
    for suffix in ("", "-wal", "-shm"):  # last event's journal moved away (kept elsewhere)
        Path(f"{journal_path}{suffix}").rename(tmp_path / f"last-event.sqlite3{suffix}")
    cli(home.path, "tournament", "create", "next", "--lexicon", "TINY", "--rule", "double")
    home.token = cli(home.path, "kiosk", "add", "k1", "--tournament", "next").splitlines()[-1]
    with StoppedServer(home, workers=1) as server:
        status, body = post(server.url, home.token, ["QI"])
        assert status == 503 and "verdict" not in body  # a deleted journal is no new event
        told = run(home, "journal", "status")
        assert "journal begin" in told.stdout
        out = cli(home.path, "journal", "begin", "--reason", "Spring Open")
        assert "begun under key" in out and "its newest signed row: 3" in out
        status, body = post(server.url, home.token, ["QI"])
        assert status == 201 and body["id"] == 1  # afresh, in a journal the key began
    with Server(home, workers=1) as server:  # and it stays begun across a restart
        assert get(server.url + "/healthz")[1]["journal"] == "ok"


# -- a sequence on one hall -------------------------------------------------------------------


def test_lost_copy_resync_rollback_in_place_forged_marker_and_restart_on_one_hall(tmp_path):
    home, primary, mirror = mirrored_home(tmp_path)
    served = []
    with Server(home, workers=2) as server:
        office = director(server, home)
        served += judge(server, home, 4)

        for suffix in ("", "-wal", "-shm"):  # the stick's copy lost
            Path(f"{mirror}{suffix}").unlink(missing_ok=True)
        served += judge(server, home, 2)
        health = get(server.url + "/healthz")[1]
        assert health["journal"] == "degraded: one copy (the mirror is lost)"
        assert "rebuilt from the primary" in cli(home.path, "journal", "resync", env=home.env)
        served += judge(server, home, 1)
        assert get(server.url + "/healthz")[1]["journal"] == "ok"

        delete_rows(mirror, 6)  # the stick's copy rolled back in place
        served += judge(server, home, 1)
        health = get(server.url + "/healthz")[1]
        assert health["journal"] == "degraded: one copy (the mirror disagrees at row 6)", (
            health,
            server.read_log()[-3000:],
        )

        forged = {"lost": str(primary), "role": "primary", "reason": "x", "since": ""}
        Path(f"{mirror}.copy-lost").write_text(json.dumps(forged))  # and a forged marker
        served += judge(server, home, 1)
        page = office.get("/director/").body
        assert "disagrees at row 6" in page, page[page.find('id="integrity"') :][:3000]
        assert "not signed with this hall" in page

        assert "rebuilt from the primary" in cli(home.path, "journal", "resync", env=home.env)
        served += judge(server, home, 1)
        assert get(server.url + "/healthz")[1]["journal"] == "ok"

        delete_rows(primary, 9)  # now the laptop's copy rolled back in place
        served += judge(server, home, 1)
        health = get(server.url + "/healthz")[1]
        assert health["journal"] == "degraded: one copy (the primary disagrees at row 9)"
        assert [b["id"] for b in served] == list(range(1, 12))

    with Server(home, workers=2) as server:  # a restart: the laptop's copy rebuilt, proven
        assert "rebuilt from the mirror" in server.read_log()
        assert get(server.url + "/healthz")[1]["journal"] == "ok"
        served += judge(server, home, 1)
    assert served[-1]["id"] == 12
    for copy in (primary, mirror):
        assert ids(copy) == list(range(1, 13)) and verifies(home, copy)
    receipts = tmp_path / "receipts.jsonl"
    receipts.write_text("".join(json.dumps(b["receipt"]) + "\n" for b in served))
    audit = run(home, "journal", "audit", str(receipts))
    assert audit.returncode == 0 and "12 held unchanged" in audit.stdout, audit.stdout
