"""`journal backup DEST` while a real server serves under load; its bad destinations; a
PostgreSQL journal (backup and mirror refused, saying why); a mirror on the primary's disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.filesystems import small_filesystem
from support.load import Load
from support.servers import Server, cli, prepare_home

pytestmark = pytest.mark.slow


def run(home: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "adjudicator", *args],
        env={**os.environ, "ADJUDICATOR_HOME": str(home), **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def alone(path: Path) -> dict:
    return {"ADJUDICATOR_DATABASE_URL": str(path), "ADJUDICATOR_JOURNAL_MIRROR": ""}


def test_backup_while_serving_verifies_and_audits_on_its_own(tmp_path):
    home = prepare_home(tmp_path / "home")
    dest = tmp_path / "backups" / "saturday.sqlite3"
    dest.parent.mkdir()
    with Server(home, workers=2) as server:
        load = Load([(server.url, home.token)], threads=4).start()
        time.sleep(0.8)
        out = cli(home.path, "journal", "backup", str(dest))  # mid-load
        time.sleep(0.3)
        served = load.stop().served()
    rows = int(out.split(": ")[1].split(" rows")[0].replace(",", ""))
    assert 0 < rows < len(served)  # a moment's copy, taken while verdicts kept coming
    assert "hash chain verified" in out and f"ADJUDICATOR_DATABASE_URL={dest}" in out
    assert sorted(p.name for p in dest.parent.iterdir()) == ["saturday.sqlite3"]  # no leftovers

    verified = cli(home.path, "journal", "verify", env=alone(dest))
    assert f"Journal intact: {rows:,} rows" in verified
    receipts = tmp_path / "receipts.jsonl"
    held = [body["receipt"] for body in served if body["id"] <= rows]
    receipts.write_text("".join(json.dumps(r) + "\n" for r in held))
    audited = cli(home.path, "journal", "audit", str(receipts), env=alone(dest))
    assert f"{len(held):,} receipt(s) checked: {len(held):,} held unchanged" in audited
    later = [body["receipt"] for body in served if body["id"] > rows][:1]
    receipts.write_text(json.dumps(later[0]) + "\n")
    missing = run(home.path, "journal", "audit", str(receipts), env=alone(dest))
    assert missing.returncode == 1 and "BAD" in missing.stdout  # not in the earlier copy


def test_backup_refuses_a_destination_it_cannot_use_and_leaves_nothing(tmp_path):
    home = prepare_home(tmp_path / "home")
    cli(home.path, "judge", "--tournament", "hall", "QI")
    existing = tmp_path / "old.sqlite3"
    existing.write_bytes(b"yesterday")
    refused = run(home.path, "journal", "backup", str(existing))
    assert refused.returncode == 2 and "already exists" in refused.stderr
    assert existing.read_bytes() == b"yesterday"

    nowhere = run(home.path, "journal", "backup", str(tmp_path / "no-such" / "b.sqlite3"))
    assert nowhere.returncode == 2 and "does not exist" in nowhere.stderr

    with small_filesystem(tmp_path / "stick", size_kb=64) as mounted:
        if not mounted:
            pytest.skip("mounting a small file system needs root")
        too_small = run(home.path, "journal", "backup", str(tmp_path / "stick" / "b.sqlite3"))
        assert too_small.returncode == 2 and "failed" in too_small.stderr, too_small.stderr
        assert "Traceback" not in too_small.stderr
        assert list((tmp_path / "stick").iterdir()) == []  # nothing half-written
        subprocess.run(["mount", "-o", "remount,ro", str(tmp_path / "stick")], check=True)
        read_only = run(home.path, "journal", "backup", str(tmp_path / "stick" / "b.sqlite3"))
        assert read_only.returncode == 2 and "not writable" in read_only.stderr


def test_a_postgresql_journal_points_to_postgresqls_own_backups(tmp_path):
    url = "postgresql://nobody@127.0.0.1:9/none"
    backup = run(
        tmp_path, "journal", "backup", str(tmp_path / "b"), env={"ADJUDICATOR_DATABASE_URL": url}
    )
    assert backup.returncode == 2 and "pg_basebackup" in backup.stderr
    mirrored = run(
        tmp_path,
        "journal",
        "status",
        env={"ADJUDICATOR_DATABASE_URL": url, "ADJUDICATOR_JOURNAL_MIRROR": str(tmp_path / "m")},
    )
    assert mirrored.returncode == 2
    assert "a mirror only copies an SQLite journal" in mirrored.stderr
    assert "streaming replication" in mirrored.stderr


def test_a_mirror_on_the_primarys_disk_is_warned_about(tmp_path):
    env = {"ADJUDICATOR_JOURNAL_MIRROR": str(tmp_path / "same-disk" / "mirror.sqlite3")}
    (tmp_path / "same-disk").mkdir()
    home = prepare_home(tmp_path / "home", env=env)
    with Server(home, workers=1) as server:
        log = server.read_log()
    assert "on the same disk as the journal" in log and "guards nothing" in log


def test_journal_status_without_a_mirror_says_how_to_keep_one(tmp_path):
    home = prepare_home(tmp_path / "home")
    told = run(home.path, "journal", "status")
    assert told.returncode == 0
    assert "Journal: ok: recording verdicts" in told.stdout
    assert "ADJUDICATOR_JOURNAL_MIRROR" in told.stdout
