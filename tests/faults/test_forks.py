"""A fork is never a loss (issue 33), each fault made as a real hall would meet it.

Someone holds the USB stick (the journal's mirror) while the hall is stopped: they flip a verdict
on it and recompute its chain with the program's own code, and take the rest the source allows
(the keyed hashes they cannot make, the keyed and begun statements, the receipts, checkpoints
and head record the copy keeps, the mark beside it), with or without its newest rows deleted.
Then the laptop's copy is lost. The start, `journal resync`, `journal accept-loss`,
`journal verify` and `journal status` (before the start and after) each refuse the copy, name
it a fork, never advise accepting it as a loss, and nothing is judged.

And `journal status` and `journal verify` before a start, on a journal rolled back from a
snapshot with its id changed by hand (and its begun statement gone too), both exit non-zero.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from support.http import signed_in_director
from support.journal import rewrite_with_a_recomputed_chain
from support.servers import Server, StoppedServer, cli, get, post, prepare_home, run_cli

pytestmark = pytest.mark.slow  # real servers and CLI processes

ADVICE = "records the loss"  # how REMEDIES advises `accept-loss` for rows gone for good


def mirrored_home(tmp_path: Path):
    stick = tmp_path / "stick"
    stick.mkdir()
    mirror = stick / "journal.sqlite3"
    home = prepare_home(tmp_path / "home", env={"ADJUDICATOR_JOURNAL_MIRROR": str(mirror)})
    return home, home.path / "journal.sqlite3", mirror


def judge(server, home, words: list[list[str]]) -> list[dict]:
    answers = [post(server.url, home.token, each) for each in words]
    assert [status for status, _ in answers] == [201] * len(words), answers
    return [body for _, body in answers]


def rows(path: Path) -> list[tuple[int, str]]:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        return connection.execute("SELECT id, verdict FROM adjudications ORDER BY id").fetchall()
    finally:
        connection.close()


def execute(path: Path, *statements: str) -> None:
    connection = sqlite3.connect(path, timeout=30)
    with connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()


def remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def assert_a_fork(outcome, stream: str, code: int) -> str:
    text = getattr(outcome, stream)
    assert outcome.returncode == code, (outcome.stdout, outcome.stderr)
    assert "FORK" in text, text
    assert ADVICE not in outcome.stdout + outcome.stderr
    return text


@pytest.mark.parametrize("cut", [False, True], ids=["whole", "newest-rows-deleted"])
@pytest.mark.parametrize("stripped", [False, True], ids=["keyed-hashes-kept", "all-it-can-strip"])
def test_a_rewritten_stick_with_the_laptops_copy_lost_is_a_fork_everywhere(tmp_path, cut, stripped):
    home, primary, mirror = mirrored_home(tmp_path)
    with Server(home, workers=2) as server:
        served = judge(
            server, home, [["QI"], ["XX"], ["ZA"], ["QI"], ["ZA"], ["QI"], ["ZA"], ["QI"]]
        )
        cli(home.path, "journal", "checkpoint", env=home.env)
    assert served[1]["verdict"] == "UNACCEPTABLE"

    # The stick, taken while the hall is stopped: row 2's verdict flipped, the chain recomputed.
    rewrite_with_a_recomputed_chain(mirror, 2, verdict="ACCEPTABLE")
    if stripped:  # everything the source says a copy keeps about itself, gone
        execute(
            mirror,
            "UPDATE adjudications SET keyed_hash = NULL",
            "UPDATE journal_identity SET keyed = NULL, begun = NULL",
            "DELETE FROM kiosk_witnesses",
            "DELETE FROM checkpoints",
            "DELETE FROM journal_rollbacks",
            "DELETE FROM journal_head",
        )
        Path(f"{mirror}.high-water").unlink()
    if cut:
        execute(mirror, "DELETE FROM adjudications WHERE id > 6")
    held = rows(mirror)
    assert held[1] == (2, "ACCEPTABLE") and len(held) == (6 if cut else 8)
    remove(primary)  # then the laptop's copy is lost

    # Before the start: status and verify already say what the start will.
    told = run_cli(home.path, "journal", "status", env=home.env)
    assert_a_fork(told, "stdout", 1)
    assert "ok: recording verdicts" not in told.stdout and "whole: verified" not in told.stdout
    # Where the keyed hashes are left, the fork is pinned at the row rewritten; stripped of
    # them, at the first row that lacks one.
    first = "row 1 carries no valid keyed hash" if stripped else "row 2 carries no valid keyed"
    verified = assert_a_fork(run_cli(home.path, "journal", "verify", env=home.env), "stderr", 1)
    assert first in verified and "Journal intact" not in verified

    with StoppedServer(home, workers=2) as server:
        code, health = get(server.url + "/healthz")
        assert code == 503 and "verdict" not in health and ADVICE not in str(health)
        status, body = post(server.url, home.token, ["QI"])
        assert status == 503 and "verdict" not in body and "call the director" in body["error"]
        assert "FORK" in server.read_log()
        page = signed_in_director(server, home).get("/director/").body
        assert "FORK" in page and "journal-rows-missing" not in page  # no rows to accept lost
        assert "accept-loss --reason" not in page and ADVICE not in page

        resynced = run_cli(home.path, "journal", "resync", env=home.env)
        assert "never rebuilt from it" in assert_a_fork(resynced, "stderr", 2)
        accepted = run_cli(home.path, "journal", "accept-loss", "--reason", "x", env=home.env)
        assert "Nothing was recorded" in assert_a_fork(accepted, "stderr", 2)
        verified = run_cli(home.path, "journal", "verify", env=home.env)
        assert first in assert_a_fork(verified, "stderr", 1)
        told = run_cli(home.path, "journal", "status", env=home.env)
        assert_a_fork(told, "stdout", 1)

        status, body = post(server.url, home.token, ["QI"])  # still nothing judged
        assert status == 503 and "verdict" not in body
    assert rows(mirror) == held  # nothing adopted, filled, rebuilt or appended
    assert not primary.exists()


@pytest.mark.parametrize("mirrored", [False, True], ids=["one-copy", "mirrored"])
@pytest.mark.parametrize("begun", ["kept", "deleted"])
def test_status_and_verify_before_a_start_on_a_rollback_with_a_changed_id(
    tmp_path, mirrored, begun
):
    stick = tmp_path / "stick"
    stick.mkdir()
    env = {"ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3")} if mirrored else {}
    home = prepare_home(tmp_path / "home", env=env)
    snapshot = tmp_path / "snapshot.sqlite3"
    with Server(home, workers=2) as server:
        judge(server, home, [["QI"]] * 3)
        cli(home.path, "journal", "backup", str(snapshot), env=home.env)
        judge(server, home, [["QI"]] * 3)
    changes = ["UPDATE journal_identity SET journal_id = '" + "f" * 32 + "'"]
    if begun == "deleted":
        changes.append("UPDATE journal_identity SET begun = NULL, keyed = NULL")
    execute(snapshot, *changes)
    copies = [home.path / "journal.sqlite3"] + ([stick / "journal.sqlite3"] if mirrored else [])
    for copy in copies:
        remove(copy)
        shutil.copyfile(snapshot, copy)

    told = run_cli(home.path, "journal", "status", env=home.env)
    assert told.returncode == 1, told.stdout
    assert "ok" not in told.stdout.splitlines()[0] and "rows 4 to 6 are missing" in told.stdout
    verified = run_cli(home.path, "journal", "verify", env=home.env)
    assert verified.returncode == 1 and "Journal intact" not in verified.stdout
    assert "NOT verified as this hall's" in verified.stderr
    assert "changed by hand" in verified.stderr or "never signed it as begun" in verified.stderr

    with StoppedServer(home, workers=1) as server:  # and the start says the same
        status, body = post(server.url, home.token, ["QI"])
        assert status == 503 and "verdict" not in body
    told = run_cli(home.path, "journal", "status", env=home.env)
    assert told.returncode == 1 and "rows 4 to 6 are missing" in told.stdout
