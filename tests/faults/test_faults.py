"""Faults on one server with the SQLite journal, under load from client threads:
the journal's disk fills up; a compiled lexicon is damaged; a lexicon is replaced while serving.

What the product promises in each case:
- disk full: 503 "not judged" and no verdict; nothing is corrupted; judging resumes once
  space is freed, with the same app processes.
- a damaged lexicon: only its tournament's kiosks answer 503 "call the director"; the others
  keep judging.
- a lexicon replaced while serving: tournaments pin their lexicon's fingerprint. Re-importing
  the same words changes nothing a kiosk sees and fails no request. Importing different words
  under the same name makes that tournament's kiosks answer 503 "call the director" until the
  director re-pins it with `tournament set`; never a verdict from words the director did not set.
"""

from __future__ import annotations

import os
import resource
import sqlite3
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest

from adjudicator.record.database.journal_health import PROBE_SECONDS
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.filesystems import fill_up, small_filesystem
from support.load import Load, assert_clean_refusal, assert_served_are_recorded, journal_rows, post
from support.servers import SERVER_WORDS, Server, cli, get, prepare_home

pytestmark = pytest.mark.slow

OTHER_WORDS = ("AA", "QI", "ZA", "CH", "ZO", "CAT", "DOG", "JO", "XI", "FOX", "ZEBRA")


# --- the SQLite journal's disk is full ----------------------------------------------------------


@contextmanager
def file_size_limit(limit: int):
    """Children started inside inherit RLIMIT_FSIZE = `limit` (the fallback for no mount)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def send(server: Server, token: str, count: int) -> list[tuple[int | None, dict]]:
    return [post(server.url, token, ["QI", "ZA", "CAT"]) for _ in range(count)]


def test_journal_disk_full_gives_not_judged_corrupts_nothing_and_recovers(tmp_path):
    disk = tmp_path / "disk"
    # 4 MB: after the filler goes, the WAL (not checkpointed yet) has room for 20 more rows
    with small_filesystem(disk, size_kb=4096) as mounted:
        db_path = disk / "journal.sqlite3"
        env = {"ADJUDICATOR_DATABASE_URL": str(db_path)}
        home = prepare_home(tmp_path / "home", env=env)
        served: list[dict] = []
        if mounted:
            with Server(home, workers=2) as server:
                served += [b for s, b in send(server, home.token, 20) if s == 201]
                assert len(served) == 20
                filler = fill_up(disk)
                full = send(server, home.token, 400)
                first = next(i for i, (status, _) in enumerate(full) if status == 503)
                full_after = full[first:]
                # /healthz and the kiosks tell the truth while the disk is full (issue 10)
                told = [get(server.url + "/healthz") for _ in range(6)]
                kiosk = [get(server.url + "/api/v1/kiosk", home.token) for _ in range(4)]
                filler.unlink()
                time.sleep(PROBE_SECONDS + 0.5)  # a failed commit is re-tried by a probe
                healthy = [get(server.url + "/healthz") for _ in range(6)]
                resumed = send(server, home.token, 20)  # the same processes: no restart
            assert {status for status, _ in told} == {503}, told
            assert all("cannot be written" in body["error"] for _, body in told)
            for status, body in kiosk:
                assert status == 200 and body["journal"]["state"] == "cannot-write", body
                assert body["lexicon"]["available"] is True  # not blamed on the lexicon
            assert {status for status, _ in healthy} == {200}, healthy
        else:  # no mount here: the server may not grow any file past a limit instead
            db_size = max(p.stat().st_size for p in disk.iterdir())
            limit = db_size + 256 * 1024
            server = Server(home, workers=2, env={"ADJUDICATOR_THREADS": "4"})
            (server.log_path).write_bytes(b"")
            with file_size_limit(limit), server:
                full = send(server, home.token, 1500)
                first = next(i for i, (status, _) in enumerate(full) if status == 503)
                full_after = full[first:]
            with Server(home, workers=2) as server:
                resumed = send(server, home.token, 20)

        served += [b for s, b in full if s == 201]
        assert {status for status, _ in full} <= {201, 503}
        for status, body in full_after:
            if status == 503:
                assert "verdict" not in body and "not judged" in body["error"].lower(), body
        assert Counter(s for s, _ in full_after)[503] >= len(full_after) // 2
        assert [s for s, _ in resumed] == [201] * 20
        served += [b for _, b in resumed]

        rows = journal_rows(home.path, env)
        assert_served_are_recorded(served, rows)
        assert len(rows) == len({b["id"] for b in served})  # no row without a served verdict
        assert "Journal intact" in cli(home.path, "journal", "verify", env=env)
        with sqlite3.connect(db_path) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        connection.close()


# --- a damaged compiled lexicon ---------------------------------------------------------------


def two_tournament_home(path: Path):
    """`hall` on TINY (kiosk k1, home.token) and `other` on OTHER (kiosk k2, its token)."""
    home = prepare_home(path)
    LexiconStore(root=path / "lexicons").save("OTHER", WordSet.of(OTHER_WORDS))
    cli(path, "tournament", "create", "other", "--lexicon", "OTHER", "--rule", "single")
    other_token = cli(path, "kiosk", "add", "k2", "--tournament", "other").strip().splitlines()[-1]
    return home, other_token


def test_damaged_lexicon_stops_only_its_tournament(tmp_path):
    home, other_token = two_tournament_home(tmp_path / "home")
    store = LexiconStore(root=home.path / "lexicons")
    with Server(home, workers=2) as server:
        targets = [(server.url, home.token), (server.url, other_token)]
        warm = [post(url, token, ["QI"]) for url, token in targets * 4]  # both workers mmap both
        assert [s for s, _ in warm] == [201] * 8

        compiled = home.path / "lexicons" / store.manifest("TINY").compiled_file
        with open(compiled, "r+b") as handle:  # damage it in place, under the open mmaps
            handle.seek(compiled.stat().st_size // 2)
            handle.write(b"\xff" * 64)
        load = Load(targets, threads=4, per_thread=25).start().join()

        assert status_of(load, home.token) == {503}
        assert status_of(load, other_token) == {201}
        for reply in load.replies:
            if reply.status == 503:
                assert_clean_refusal(reply, "call the director")
                assert "unavailable" in reply.body["error"].lower()

        # The director imports it again: the same kiosks judge again, no restart.
        store.save("TINY", WordSet.of(SERVER_WORDS), description="tiny test lexicon")
        assert post(server.url, home.token, ["QI"])[0] == 201
    assert "Journal intact" in cli(home.path, "journal", "verify")


def status_of(load: Load, token: str) -> set:
    return {r.status for r in load.replies if r.token == token}


# --- a lexicon replaced while serving ---------------------------------------------------------


def write_list(path: Path, words) -> Path:
    path.write_text("\n".join(words) + "\n")
    return path


def test_same_words_reimported_under_load_fail_no_request(tmp_path):
    home = prepare_home(tmp_path / "home")
    same = write_list(tmp_path / "tiny.txt", SERVER_WORDS)
    with Server(home, workers=2) as server:
        load = Load([(server.url, home.token)], threads=6).start()
        time.sleep(0.5)
        for _ in range(3):
            cli(home.path, "lexicon", "import", str(same), "--name", "TINY", "--force")
            time.sleep(0.3)
        load.stop()
    statuses = Counter(r.status for r in load.replies)
    assert set(statuses) == {201}, statuses
    assert len({r.body["lexicon"]["fingerprint"] for r in load.replies}) == 1
    rows = journal_rows(home.path)
    assert len(rows) == len(load.served())
    assert_served_are_recorded(load.served(), rows)


def test_different_words_reimported_under_load_refuse_cleanly_until_repinned(tmp_path):
    home = prepare_home(tmp_path / "home")
    old = LexiconStore(root=home.path / "lexicons").manifest("TINY").fingerprint
    changed = write_list(tmp_path / "tiny2.txt", (*SERVER_WORDS, "OK", "EW"))
    with Server(home, workers=2) as server:
        load = Load([(server.url, home.token)], threads=6).start()
        time.sleep(0.5)
        imported_at = time.monotonic()
        cli(home.path, "lexicon", "import", str(changed), "--name", "TINY", "--force")
        imported_by = time.monotonic()
        time.sleep(0.7)
        repin_from = time.monotonic()
        cli(home.path, "tournament", "set", "hall", "--lexicon", "TINY")
        repinned_at = time.monotonic()
        time.sleep(0.7)
        load.stop()
    new = LexiconStore(root=home.path / "lexicons").manifest("TINY").fingerprint
    assert new != old
    replies = load.replies
    assert {r.status for r in replies} <= {201, 503}, Counter(r.status for r in replies)
    for reply in replies:
        if reply.status == 503:
            assert_clean_refusal(reply, "call the director")
    # By when each request was sent: one sent before the import may still answer after it.
    window = [r for r in replies if imported_by < r.sent and r.at < repin_from]
    assert window and {r.status for r in window} == {503}
    settled = [r for r in replies if r.sent > repinned_at]
    assert settled and {r.status for r in settled} == {201}
    for reply in replies:
        if reply.status == 201:
            fingerprint = reply.body["lexicon"]["fingerprint"]
            assert fingerprint in (old, new)
            if fingerprint == new:
                assert reply.at > imported_at
    rows = journal_rows(home.path)
    assert len(rows) == len(load.served())
    assert_served_are_recorded(load.served(), rows)


# --- a compiled lexicon damaged in place with its timestamps put back -------------------------


def damage_keeping_times(path: Path, offset: int, data: bytes) -> None:
    before = path.stat()
    with open(path, "r+b") as handle:
        handle.seek(offset)
        handle.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_a_lexicon_damaged_with_its_mtime_restored_is_out_of_service_within_the_interval(
    tmp_path, where
):
    home, other_token = two_tournament_home(tmp_path / "home")
    store = LexiconStore(root=home.path / "lexicons")
    compiled = home.path / "lexicons" / store.manifest("TINY").compiled_file
    original = compiled.read_bytes()
    with Server(home, workers=2, env={"ADJUDICATOR_LEXICON_RECHECK_SECONDS": "1"}) as server:
        warm = [post(server.url, home.token, ["QI", "ZA"]) for _ in range(8)]  # both workers
        assert {status for status, _ in warm} == {201}
        offset = {"start": 0, "middle": len(original) // 2, "end": len(original) - 16}[where]
        damage_keeping_times(compiled, offset, bytes(b ^ 0xFF for b in original[offset:][:16]))
        damaged_at = time.monotonic()
        replies = []
        while time.monotonic() < damaged_at + 4:
            status, body = post(server.url, home.token, ["QI", "ZA"])
            replies.append((time.monotonic() - damaged_at, status, body))
            if status == 201:
                assert body["verdict"] == "ACCEPTABLE"  # never a verdict from damaged words
            time.sleep(0.05)
        refused = [seconds for seconds, status, _ in replies if status == 503]
        assert refused and refused[0] <= 1 + 1.0, replies[:5]  # the interval, plus slack
        after = [status for seconds, status, _ in replies if seconds > refused[0] + 1.2]
        assert after and set(after) == {503}  # both workers, and it stays out of service
        for _, status, body in replies:
            if status == 503:
                assert "verdict" not in body
                assert "lexicon unavailable" in body["error"].lower()
                assert "call the director" in body["error"].lower()
        assert post(server.url, other_token, ["QI"])[0] == 201  # other tournaments judge on
        status, kiosk = get(server.url + "/api/v1/kiosk", home.token)
        assert status == 200 and kiosk["lexicon"]["available"] is False

        compiled.write_bytes(original)  # put back: out of service until the director verifies
        time.sleep(1.2)
        assert post(server.url, home.token, ["QI"])[0] == 503
        cli(home.path, "lexicon", "verify", "TINY")
        assert post(server.url, home.token, ["QI"])[0] == 201
        log = server.read_log()
    assert log.count("Booting worker") == 2, "a worker died and was replaced"
    assert "SIGSEGV" not in log and "SIGBUS" not in log
