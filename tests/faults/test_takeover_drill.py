"""The hall survives its laptop (issue 34), on real servers.

The drill: laptop A serves two kiosks under load, its mirror in a folder that stands for the USB
stick, and is killed (SIGKILL) mid-load. Laptop B, a fresh data home with the same installed
program, takes the hall over from the stick (`kit open`, the director's passphrase) and serves.
Every verdict a kiosk holds a receipt for is in B's journal, no number is issued twice, A's
kiosk tokens judge on B, `journal audit` of A's receipts passes on B, B's CA is A's; the stick
holds no secret in clear; a wrong passphrase writes nothing; A, started again with the stick,
does not judge. And one hall judges: a hall whose stick is gone at its start does not judge
until the stick is back or the director confirms it is alone.
"""

from __future__ import annotations

import json
import time

import pytest

from support.kit import PASSPHRASE, assert_no_secret_on
from support.load import Load, assert_clean_refusal, assert_served_are_recorded, journal_rows
from support.servers import PreparedHome, Server, cli, free_port, get, post, prepare_home, run_cli

pytestmark = pytest.mark.slow


def stick_env(tmp_path):
    stick = tmp_path / "stick"
    stick.mkdir()
    return stick, {"ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3")}


def wait_for(condition, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.1)


def test_the_drill_laptop_a_dies_mid_load_and_laptop_b_takes_the_hall_over(tmp_path):
    stick, env = stick_env(tmp_path)
    a = prepare_home(tmp_path / "a", env=env)
    second = cli(a.path, "kiosk", "add", "k2", "--tournament", "hall", env=env)
    token2 = second.strip().splitlines()[-1]
    fingerprint = cli(a.path, "hall", "--fingerprint", env=env).strip()
    cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env, stdin=PASSPHRASE + "\n")

    server_a = Server(a, env=env).start()
    load = Load([(server_a.url, a.token), (server_a.url, token2)], threads=6).start()
    wait_for(lambda: len(load.served()) >= 60)
    server_a.kill()  # SIGKILL, mid-load: the laptop dies
    load.stop()
    served = load.served()
    assert len(served) >= 60

    # A wrong passphrase, on a third laptop, writes nothing.
    wrong = run_cli(tmp_path / "c", "kit", "open", str(stick), "--passphrase-stdin",
                    env=env, stdin="not the director's passphrase\n")  # fmt: skip
    assert wrong.returncode == 2 and "Wrong passphrase" in wrong.stderr
    assert not (tmp_path / "c").exists()

    # Laptop B takes the hall over.
    opened = run_cli(tmp_path / "b", "kit", "open", str(stick), "--passphrase-stdin",
                     env=env, stdin=PASSPHRASE + "\n")  # fmt: skip
    assert opened.returncode == 0, opened.stderr
    assert cli(tmp_path / "b", "hall", "--fingerprint", env=env).strip() == fingerprint
    b = PreparedHome(tmp_path / "b", a.token, a.pairing_code, env)
    rows_before = journal_rows(b.path, env)
    server_b = Server(b, env=env).start()
    try:
        first = post(server_b.url, a.token, ["QI", "ZA"])  # A's kiosk tokens judge on B
        other = post(server_b.url, token2, ["CAT"])
        assert (first[0], other[0]) == (201, 201), (first, other)
        assert [first[1]["id"], other[1]["id"]] == [len(rows_before) + 1, len(rows_before) + 2]
        rows = journal_rows(b.path, env)
        assert sorted(rows) == list(range(1, len(rows) + 1))  # one chain: no number twice
        assert_served_are_recorded(served + [first[1], other[1]], rows)
        # Every receipt A gave out verifies on B, against B's journal.
        receipts = tmp_path / "receipts.jsonl"
        receipts.write_text("".join(json.dumps(body["receipt"]) + "\n" for body in served))
        audit = run_cli(b.path, "journal", "audit", str(receipts), env=env)
        assert audit.returncode == 0, audit.stdout
        assert f"{len(served)} receipt(s) checked: {len(served)} held unchanged" in audit.stdout
        status = get(server_b.url + "/healthz")
        assert status == (200, {**status[1], "ok": True, "journal": "ok"}), status
    finally:
        server_b.stop()

    assert_no_secret_on(stick, a.path)

    # A, started again with the stick after B took over, does not judge.
    port = free_port()
    again = run_cli(a.path, "serve", "--bind", f"127.0.0.1:{port}", env=env)
    assert again.returncode == 2
    assert "THIS HALL WAS TAKEN OVER" in again.stderr and "Traceback" not in again.stderr


def test_a_hall_whose_stick_is_gone_at_its_start_does_not_judge_until_the_director_acts(tmp_path):
    stick, env = stick_env(tmp_path)
    a = prepare_home(tmp_path / "a", env=env)
    with Server(a, env=env) as server:
        assert server.adjudicate(["QI"])[0] == 201  # the journal writes to the stick
    away = tmp_path / "stick-away"
    stick.rename(away)

    server = Server(a, env=env).start(judging=False)
    try:
        health = get(server.url + "/healthz")
        assert health[0] == 503 and "waits for the director" in health[1]["error"], health
        refused = server.adjudicate(["ZA"])
        assert_clean_refusal(server_reply(refused), "waits for the director")
        assert "JUDGING HELD" in server.read_log()
        assert "may be serving another laptop" in server.read_log()
        # The stick is back: `journal resync` brings it in, and judging resumes, no restart.
        away.rename(stick)
        resynced = run_cli(a.path, "journal", "resync", env=env)
        assert resynced.returncode == 0, resynced.stderr
        wait_for(lambda: server.adjudicate(["ZA"])[0] == 201)
    finally:
        server.stop()

    stick.rename(away)  # gone again, and for good this time
    server = Server(a, env=env).start(judging=False)
    try:
        assert server.adjudicate(["QI"])[0] == 503
        confirmed = run_cli(a.path, "journal", "confirm-alone", "--reason",
                            "the stick broke; no other laptop", env=env)  # fmt: skip
        assert confirmed.returncode == 0, confirmed.stderr
        judged = server.adjudicate(["QI"])  # the running hall judges again, on its own disk
        assert judged[0] == 201 and judged[1]["id"] == 3, judged
        health = get(server.url + "/healthz")
        assert health[0] == 200 and health[1]["journal"].startswith("degraded: one copy")
    finally:
        server.stop()


def test_a_stick_put_back_from_an_older_snapshot_is_caught_by_the_first_kiosk_receipt(tmp_path):
    """Whoever holds the stick rolls back its copy and its marks together (an older snapshot of
    the whole stick) before the takeover: it verifies, and B serves it; the kiosk's receipt for
    a later row then proves rows missing, and B stops judging at once, as any hall does."""
    import shutil

    stick, env = stick_env(tmp_path)
    a = prepare_home(tmp_path / "a", env=env)
    cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env, stdin=PASSPHRASE + "\n")
    with Server(a, env=env) as server:
        assert server.adjudicate(["QI"])[0] == 201
    snapshot = tmp_path / "snapshot"
    shutil.copytree(stick, snapshot)  # the stick as it was after row 1
    with Server(a, env=env) as server:
        judged = [server.adjudicate(["ZA"]) for _ in range(2)]
    assert [reply[1]["id"] for reply in judged] == [2, 3]
    shutil.rmtree(stick)
    shutil.copytree(snapshot, stick)  # put back: copy, mark and head record, all of row 1

    opened = run_cli(tmp_path / "b", "kit", "open", str(stick), "--passphrase-stdin",
                     env=env, stdin=PASSPHRASE + "\n")  # fmt: skip
    assert opened.returncode == 0, opened.stderr
    assert "1 rows copied from the stick" in opened.stdout
    b = PreparedHome(tmp_path / "b", a.token, a.pairing_code, env)
    server = Server(b, env=env).start()
    try:
        witness = json.dumps({"witness": judged[-1][1]["receipt"]}).encode()
        import urllib.request

        request = urllib.request.Request(
            server.url + "/api/v1/kiosk", data=witness, method="POST",
            headers={"Authorization": f"Bearer {a.token}", "Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200
        refused = server.adjudicate(["QI"])
        assert refused[0] == 503 and "verdict" not in refused[1], refused
        health = get(server.url + "/healthz")
        assert health[0] == 503 and "missing verdicts" in health[1]["error"], health
        assert journal_rows(b.path, env).keys() == {1}  # numbers 2 and 3 never issued again
    finally:
        server.stop()


def server_reply(reply):
    """(status, body) as a load Reply, for assert_clean_refusal."""
    from support.load import Reply

    return Reply(0.0, "", reply[0], reply[1], [])


def send_witness(server, token: str, receipt: dict) -> None:
    """A kiosk's poll carrying a receipt as its witness."""
    import urllib.request

    request = urllib.request.Request(
        server.url + "/api/v1/kiosk", data=json.dumps({"witness": receipt}).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200


def test_a_receipt_whose_row_has_another_hash_stops_judging_as_a_fork(tmp_path):
    """Issue 41: the stick put back whole from an older snapshot (every file of it), B takes
    over and judges rows 2 and 3 again, with other hashes; the kiosk's genuine receipt for A's
    row 3 contradicts B's row 3: judging stops, as for a row missing, and names the fork."""
    import shutil

    stick, env = stick_env(tmp_path)
    a = prepare_home(tmp_path / "a", env=env)
    cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env, stdin=PASSPHRASE + "\n")
    with Server(a, env=env) as server:
        assert server.adjudicate(["QI"])[0] == 201
    snapshot = tmp_path / "snapshot"
    shutil.copytree(stick, snapshot)
    with Server(a, env=env) as server:
        judged = [server.adjudicate(["ZA"]) for _ in range(2)]
    assert [reply[1]["id"] for reply in judged] == [2, 3]
    shutil.rmtree(stick)
    shutil.copytree(snapshot, stick)

    opened = run_cli(tmp_path / "b", "kit", "open", str(stick), "--passphrase-stdin",
                     env=env, stdin=PASSPHRASE + "\n")  # fmt: skip
    assert opened.returncode == 0, opened.stderr
    b = PreparedHome(tmp_path / "b", a.token, a.pairing_code, env)
    server = Server(b, env=env).start()
    try:
        again = [server.adjudicate(["QI"]) for _ in range(2)]
        assert [reply[1]["id"] for reply in again] == [2, 3]
        assert again[1][1]["receipt"]["row_hash"] != judged[1][1]["receipt"]["row_hash"]
        send_witness(server, a.token, judged[1][1]["receipt"])
        refused = server.adjudicate(["QI"])
        assert refused[0] == 503 and "verdict" not in refused[1], refused
        health = get(server.url + "/healthz")
        assert health[0] == 503, health
        assert "FORK" in health[1]["error"] or "missing verdicts" in health[1]["error"], health
        assert journal_rows(b.path, env).keys() == {1, 2, 3}  # no number issued past it
        status = run_cli(b.path, "journal", "status", env=env)
        assert status.returncode == 1 and "FORK" in status.stdout, status.stdout
    finally:
        server.stop()


def test_a_drills_receipt_never_stops_the_real_hall(tmp_path):
    """`kit open --drill` on a third laptop, from a copy of the stick: the drill judges under a
    journal of its own; its receipt, sent to the real hall by a kiosk (the real hall behind
    that row), is practice, and the real hall judges on."""
    import shutil

    stick, env = stick_env(tmp_path)
    a = prepare_home(tmp_path / "a", env=env)
    cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env, stdin=PASSPHRASE + "\n")
    with Server(a, env=env) as server:
        assert server.adjudicate(["QI"])[0] == 201
    copy = tmp_path / "stick-copy"
    shutil.copytree(stick, copy)
    drill_env = {"ADJUDICATOR_JOURNAL_MIRROR": str(copy / "journal.sqlite3")}
    drilled = run_cli(tmp_path / "c", "kit", "open", str(copy), "--drill",
                      "--passphrase-stdin", env=drill_env, stdin=PASSPHRASE + "\n")  # fmt: skip
    assert drilled.returncode == 0, drilled.stderr
    c = PreparedHome(tmp_path / "c", a.token, a.pairing_code, {})
    with Server(c, env={}) as drill:
        practice = [drill.adjudicate(["ZA"]) for _ in range(3)]
    assert [reply[0] for reply in practice] == [201, 201, 201]
    receipt = practice[-1][1]["receipt"]
    assert receipt["id"] == 4 and receipt["journal"].startswith("drill-")

    with Server(a, env=env) as server:
        send_witness(server, a.token, receipt)
        judged = server.adjudicate(["QI"])
        assert judged[0] == 201 and judged[1]["id"] == 2, judged
        health = get(server.url + "/healthz")
        assert health[0] == 200 and health[1]["journal"] == "ok", health


def test_the_first_verdicts_of_a_new_journal_renew_the_manifest_at_once(tmp_path):
    """A kit sealed before any verdict names no keyed rows; the serving hall renews its
    manifest within a second or so of the first verdict, not a minute later."""
    stick, env = stick_env(tmp_path)
    a = prepare_home(tmp_path / "a", env=env)
    cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env, stdin=PASSPHRASE + "\n")
    manifest = stick / "hall-kit" / "manifest.json"
    assert json.loads(manifest.read_text())["journal"]["row"] == 0
    with Server(a, env={**env, "ADJUDICATOR_KIT_REFRESH_SECONDS": "3600"}) as server:
        assert server.adjudicate(["QI"])[0] == 201
        wait_for(lambda: json.loads(manifest.read_text())["journal"]["keyed_from"] == 1, 30)
        assert json.loads(manifest.read_text())["journal"]["row"] == 1
