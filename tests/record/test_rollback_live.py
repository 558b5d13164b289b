"""A journal rolled back (issue 22, item 5), with real servers: 10 rows replaced by the
journal's own 5-row copy, and the server restarted. The signed high-water mark beside the key
(or a kiosk's receipt) proves rows are missing: judging stops, no number a receipt carries is
issued again, until the director accepts the loss. With a mirror that holds the rows, the
rollback heals at start without stopping."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from support.servers import Server, StoppedServer, cli, get, post, prepare_home

pytestmark = pytest.mark.slow


def judge(server, home, count: int) -> list[dict]:
    answers = [post(server.url, home.token, ["QI"]) for _ in range(count)]
    assert [status for status, _ in answers] == [201] * count
    return [body for _, body in answers]


def swap_in(copy, journal_path) -> None:
    for suffix in ("-wal", "-shm"):
        (journal_path.parent / (journal_path.name + suffix)).unlink(missing_ok=True)
    shutil.copyfile(copy, journal_path)


def test_a_journal_rolled_back_stops_judging_and_never_reuses_a_number(tmp_path):
    home = prepare_home(tmp_path / "home")
    journal_path = home.path / "journal.sqlite3"
    five = tmp_path / "five.sqlite3"
    with Server(home, workers=2) as server:
        served = judge(server, home, 5)
        cli(home.path, "journal", "backup", str(five))
        served += judge(server, home, 5)
    assert [body["id"] for body in served] == list(range(1, 11))
    swap_in(five, journal_path)
    assert "Journal intact: 5 rows" in cli(home.path, "journal", "verify")  # a valid prefix

    with StoppedServer(home, workers=2) as server:
        assert "JOURNAL ROLLED BACK" in server.read_log()
        status, body = post(server.url, home.token, ["QI"])
        assert status == 503 and "verdict" not in body and "call the director" in body["error"]
        assert get(server.url + "/healthz")[0] == 503
        _, kiosk = get(server.url + "/api/v1/kiosk", home.token)
        assert kiosk["journal"]["state"] == "rolled-back"
        out = cli(home.path, "journal", "accept-loss", "--reason", "laptop disk restored")
        assert "Rows 6 to 10 recorded as lost" in out
        status, body = post(server.url, home.token, ["QI"])
        assert status == 201 and body["id"] == 11  # never 6: a receipt carries 6
    assert "Journal intact: 11 rows" in cli(home.path, "journal", "verify")
    receipts = tmp_path / "receipts.jsonl"
    receipts.write_text(json.dumps(served[9]["receipt"]) + "\n")
    audit = subprocess.run(
        [sys.executable, "-m", "adjudicator", "journal", "audit", str(receipts)],
        env={**os.environ, "ADJUDICATOR_HOME": str(home.path)},
        capture_output=True,
        text=True,
    )
    assert audit.returncode == 1 and "BAD line 1 (row 10" in audit.stdout


def test_a_kiosks_receipt_proves_the_rollback_when_the_mark_is_gone_too(tmp_path):
    home = prepare_home(tmp_path / "home")
    journal_path = home.path / "journal.sqlite3"
    five = tmp_path / "five.sqlite3"
    with Server(home, workers=1) as server:
        judge(server, home, 5)
        cli(home.path, "journal", "backup", str(five))
        newest = judge(server, home, 5)[-1]
    swap_in(five, journal_path)
    for mark in ("receipt_key.pem.high-water", "journal.sqlite3.high-water"):
        (home.path / mark).unlink()  # the mark in the data home and the one beside the copy
    with Server(home, workers=1) as server:
        assert "JOURNAL ROLLED BACK" not in server.read_log()
        import urllib.request

        request = urllib.request.Request(
            server.url + "/api/v1/kiosk",
            data=json.dumps({"witness": newest["receipt"]}).encode(),
            headers={"Authorization": f"Bearer {home.token}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        status, body = post(server.url, home.token, ["QI"])
        assert status == 503 and "call the director" in body["error"]
    assert "Journal intact: 5 rows" in cli(home.path, "journal", "verify")  # no row 6 reissued


def test_with_a_mirror_that_holds_the_rows_the_rollback_heals_at_start(tmp_path):
    (tmp_path / "usb").mkdir()
    env = {"ADJUDICATOR_JOURNAL_MIRROR": str(tmp_path / "usb" / "journal.sqlite3")}
    home = prepare_home(tmp_path / "home", env=env)
    journal_path = home.path / "journal.sqlite3"
    five = tmp_path / "five.sqlite3"
    with Server(home, workers=2) as server:
        judge(server, home, 5)
        cli(home.path, "journal", "backup", str(five), env=env)
        judge(server, home, 5)
    swap_in(five, journal_path)
    with Server(home, workers=2) as server:
        assert "was rebuilt from the mirror" in server.read_log()
        assert "JOURNAL ROLLED BACK" not in server.read_log()
        status, body = post(server.url, home.token, ["QI"])
        assert status == 201 and body["id"] == 11
