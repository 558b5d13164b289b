"""The server notices when its journal is no longer the one it opened, and stops judging.

SQLite: the file deleted or replaced, its -wal or -shm gone. PostgreSQL: another database behind
the same URL, a dropped (and re-made) table. Also on both: rows this process recorded, removed
or changed under it. Once lost, every challenge is 503 NOT JUDGED, /healthz is 503 and the
director's overview says why, until the process restarts. The real-server version, with files
deleted under a live gunicorn, is in test_journal_files_live.py.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
import time

import pytest

from adjudicator.hall import kiosks
from adjudicator.hall.hall import Hall
from adjudicator.record.backends import connect
from adjudicator.record.database import journal_health, migrations
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.database.journal_health import JournalLost
from adjudicator.record.journal import journal

from support.hall import FailingCommits, build_setup, make_app, pair_browser
from support.journal import challenge_fields


def challenge(setup, words=("QI",)):
    return setup.hall.adjudicate(kiosks.get(setup.hall.db, "table-1"), list(words))


def assert_lost_everywhere(setup, why: str) -> None:
    """Challenges, /healthz, the kiosk's status and the health record all say so."""
    app = make_app(setup.hall)
    client = app.test_client()
    answer = client.post("/api/v1/adjudications", json={"words": ["QI"]}, headers=setup.headers())
    assert answer.status_code == 503
    body = answer.get_json()
    assert "verdict" not in body and "receipt" not in body
    assert "not the one this server opened" in body["error"]
    health = client.get("/healthz")
    assert health.status_code == 503
    assert "not the one this server opened" in health.get_json()["error"]
    status = setup.hall.journal_health()
    assert status.state == "lost" and why in status.detail
    assert "journal.sqlite3" not in body["error"] + health.get_json()["error"]


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_a_deleted_journal_file_stops_judging_for_good(setup, suffix):
    challenge(setup)
    path = setup.db_path.with_name(setup.db_path.name + suffix)
    kept = setup.db_path.parent / "kept"
    kept.mkdir()
    os.link(path, kept / path.name)  # what an attacker removed, kept to restore it
    path.unlink()
    with pytest.raises(JournalLost):
        challenge(setup)
    assert_lost_everywhere(setup, "was deleted")
    os.link(kept / path.name, path)  # put back: still lost until the server restarts
    with pytest.raises(JournalLost):
        challenge(setup)
    assert setup.hall.journal_health().state == "lost"


def test_a_replaced_journal_file_stops_judging(setup, tmp_path):
    challenge(setup)
    other = build_setup(tmp_path / "elsewhere")  # a whole other hall's journal
    shutil.copy(other.db_path, tmp_path / "swap.sqlite3")
    os.replace(tmp_path / "swap.sqlite3", setup.db_path)
    with pytest.raises(JournalLost):
        challenge(setup)
    assert_lost_everywhere(setup, "was replaced")


def test_a_new_connection_never_creates_a_fresh_empty_journal(setup):
    challenge(setup)
    for suffix in ("", "-wal", "-shm"):
        setup.db_path.with_name(setup.db_path.name + suffix).unlink()
    errors = []

    def new_request_thread() -> None:  # a thread with no connection yet opens one
        try:
            kiosks.get(setup.hall.db, "table-1")
        except DatabaseUnavailable as exc:
            errors.append(exc)

    thread = threading.Thread(target=new_request_thread)
    thread.start()
    thread.join(10)
    assert len(errors) == 1
    assert not setup.db_path.exists()
    with pytest.raises(JournalLost):
        challenge(setup)


def test_rows_removed_under_the_server_stop_it(setup):
    for _ in range(3):
        challenge(setup)
    with sqlite3.connect(setup.db_path) as connection:
        connection.execute("DELETE FROM adjudications WHERE id = 3")  # cut off the end
    connection.close()
    with pytest.raises(JournalLost, match="row 3"):
        challenge(setup)
    assert [e.id for e in journal.entries(setup.hall.db)] == [1, 2]  # no row 3 made anew


def test_a_failed_commit_says_cannot_write_until_a_commit_succeeds(setup, monkeypatch):
    assert setup.hall.journal_health().ok
    failing = Hall(setup.store, FailingCommits(setup.hall.db), rate_limit=None)
    client = make_app(failing).test_client()
    answer = client.post("/api/v1/adjudications", json={"words": ["QI"]}, headers=setup.headers())
    assert answer.status_code == 503 and "verdict" not in answer.get_json()
    status = failing.journal_health()
    assert status.state == "cannot-write" and "disk I/O error" in status.detail
    health = client.get("/healthz")
    assert health.status_code == 503
    assert health.get_json()["error"].startswith("The journal cannot be written just now")
    monkeypatch.setattr(journal_health, "PROBE_SECONDS", 0.05)
    time.sleep(0.1)
    assert client.get("/healthz").status_code == 503  # the probe commit fails too

    working = Hall(setup.store, setup.hall.db, rate_limit=None)
    journal_health.of(working.db).commit_failed("database or disk is full.")
    time.sleep(0.1)
    assert make_app(working).test_client().get("/healthz").status_code == 200  # probe clears it
    assert working.journal_health().ok


def test_the_kiosk_status_tells_the_true_reason(setup):
    app = make_app(setup.hall)
    kiosk = pair_browser(app, setup.nwl)
    assert kiosk.get("/api/v1/kiosk").get_json()["journal"] == {
        "ok": True,
        "state": "ok",
        "message": "",
    }
    challenge(setup)
    setup.db_path.with_name(setup.db_path.name + "-wal").unlink()
    status = kiosk.get("/api/v1/kiosk")
    assert status.status_code == 200
    body = status.get_json()
    assert body["journal"]["ok"] is False and body["journal"]["state"] == "lost"
    assert "not the one this server opened" in body["journal"]["message"]
    assert body["lexicon"]["available"] is True  # not blamed on the lexicon


# --- PostgreSQL -----------------------------------------------------------------------------


@pytest.fixture
def pg_hall(postgres, tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    sqlite_setup = build_setup(tmp_path)
    url = postgres.new_database()
    db = connect(url)
    migrations.upgrade(db)
    hall = Hall(sqlite_setup.store, db, rate_limit=None, key_path=tmp_path / "key.pem")
    yield hall, url
    db.close()


def pg_append(hall):
    return journal.append(
        hall.db, **challenge_fields(tournament="t", kiosk="k", words=("QI",), word_count=1)
    )


def admin(postgres, url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)


def test_another_postgres_database_behind_the_same_url_is_not_the_journal(pg_hall, postgres):
    hall, url = pg_hall
    pg_append(hall)
    name = url.rsplit("/", 1)[1]
    admin(
        postgres, postgres.url, f'DROP DATABASE "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"'
    )
    migrations.upgrade(connect(url))  # a fresh, valid journal at the same address
    for _ in range(2):  # the first try may meet the dropped connection: unavailable either way
        with pytest.raises(DatabaseUnavailable):
            pg_append(hall)
    status = journal_health.check(hall.db)
    assert status.state == "lost" and "another journal" in status.detail
    with pytest.raises(JournalLost):
        pg_append(hall)


def test_a_dropped_postgres_table_is_not_the_journal(pg_hall, postgres):
    hall, url = pg_hall
    pg_append(hall)
    pg_append(hall)
    admin(postgres, url, "DROP TABLE adjudications")
    with pytest.raises(DatabaseUnavailable):
        pg_append(hall)
    assert journal_health.check(hall.db).state in ("cannot-write", "lost")
    # Someone makes an empty table of the same shape: still not the journal.
    statements = dict((v, s) for v, _, s in migrations.MIGRATIONS)[1]
    admin(postgres, url, next(s for s in statements if "CREATE TABLE adjudications" in s))
    with pytest.raises(JournalLost, match="row 2"):
        pg_append(hall)
    assert journal_health.check(hall.db).state == "lost"
