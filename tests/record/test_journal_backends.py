"""The journal on both backends, SQLite and PostgreSQL: append, verify, tamper detection,
concurrent appends from threads and processes, migrations (also two `db upgrade` at once),
and what happens when PostgreSQL drops the connection."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import replace

import pytest

from adjudicator.errors import AdjudicatorError
from adjudicator.record.backends import connect
from adjudicator.record.database import migrations
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal
from adjudicator.record.journal.group_commit import GroupCommitter

from support.journal import appended_in_threads, assert_one_chain, challenge_fields
from support.paths import ROOT


@pytest.fixture
def db(migrated_db):
    return migrated_db


def fill(db, count: int) -> list[journal.Entry]:
    verdicts = ("ACCEPTABLE", "UNACCEPTABLE")
    return [
        journal.append(db, **challenge_fields(verdict=verdicts[n % 2], table=str(n)))
        for n in range(count)
    ]


def tamper(db, sql: str, params=()) -> None:
    """Edit rows behind the journal's back, through a plain transaction."""
    with db.transaction() as cur:
        cur.execute(sql, params)


def test_backend_is_the_one_asked_for(db, db_url):
    assert db.backend == ("sqlite" if not db_url.startswith("postgresql") else "postgresql")


def test_append_numbers_chains_and_reads_back(db):
    written = fill(db, 6)
    assert [e.id for e in written] == [1, 2, 3, 4, 5, 6]
    assert written[0].prev_hash == journal.GENESIS
    assert all(b.prev_hash == a.row_hash for a, b in zip(written, written[1:], strict=False))
    assert list(journal.entries(db)) == written
    assert list(journal.entries(db, batch=4)) == written
    assert journal.get(db, 3) == written[2] and journal.get(db, 99) is None
    result = journal.verify(db)
    assert result.ok and result.rows == 6


def test_unicode_and_empty_details_round_trip(db):
    entry = journal.append(
        db, **challenge_fields(player="Zoë Ōtani", challenger="?%s'", table=None)
    )
    assert journal.get(db, entry.id) == entry
    assert journal.verify(db).ok


def test_an_edited_field_is_named(db):
    fill(db, 5)
    tamper(db, "UPDATE adjudications SET verdict = ? WHERE id = ?", ("ACCEPTABLE", 2))
    result = journal.verify(db)
    assert (result.ok, result.first_bad_id, result.rows) == (False, 2, 1)
    assert "altered" in result.problem


def test_an_edit_with_a_recomputed_hash_breaks_the_next_link(db):
    fill(db, 5)
    forged = replace(journal.get(db, 2), verdict="ACCEPTABLE")
    tamper(
        db,
        "UPDATE adjudications SET verdict = ?, row_hash = ? WHERE id = 2",
        ("ACCEPTABLE", forged.compute_hash()),
    )
    result = journal.verify(db)
    assert result.first_bad_id == 3 and result.rows == 2
    assert "does not link" in result.problem


def test_a_deleted_row_is_named(db):
    fill(db, 5)
    tamper(db, "DELETE FROM adjudications WHERE id = 3")
    result = journal.verify(db)
    assert result.first_bad_id == 4 and "row 3 is missing" in result.problem


def test_a_copied_row_is_named(db):
    fill(db, 3)
    tamper(
        db,
        "INSERT INTO adjudications SELECT 4, recorded_at, kind, refers_to, tournament, "
        "kiosk, lexicon_name, lexicon_fingerprint, lexicon_words, rule, words, word_count, "
        "verdict, consequence, table_no, round_no, challenger, player, actor, note, "
        "prev_hash, row_hash, penalty, flag, dictionary, flag_reasons, details, division, players, "
        "keyed_hash, install "
        "FROM adjudications WHERE id = 3",
    )
    assert journal.verify(db).first_bad_id == 4


def test_a_refused_row_is_skipped_and_the_chain_goes_on(db):
    def refuse(cur):
        raise AdjudicatorError("over the limit")

    batch = [
        journal.Pending(challenge_fields(table="1")),
        journal.Pending(challenge_fields(table="2"), refuse),
        journal.Pending(challenge_fields(table="3")),
    ]
    journal.append_batch(db, batch)
    assert [p.entry.id if p.entry else None for p in batch] == [1, None, 2]
    assert isinstance(batch[1].error, AdjudicatorError)
    assert journal.verify(db).rows == 2


def test_a_database_failure_inside_a_guard_fails_the_whole_batch(db):
    """A guard's query failing (the server restarting under it) is no refusal of one row: the
    batch writes nothing and every caller hears "not judged", never a raw driver error."""

    def query_fails(cur):
        cur.execute("SELECT * FROM no_such_table")

    batch = [
        journal.Pending(challenge_fields(table="1")),
        journal.Pending(challenge_fields(table="2"), query_fails),
    ]
    with pytest.raises(DatabaseUnavailable):
        journal.append_batch(db, batch)
    assert [p.entry for p in batch] == [None, None]
    assert journal.verify(db).rows == 0
    committer = GroupCommitter(db)
    with pytest.raises(DatabaseUnavailable):
        committer.append(guard=query_fails, **challenge_fields(table="3"))


def test_an_error_inside_the_transaction_writes_nothing(db):
    fill(db, 2)
    with pytest.raises(RuntimeError):
        with db.transaction(chain_lock=True) as cur:
            cur.execute("DELETE FROM adjudications")
            raise RuntimeError("abandon")
    assert journal.verify(db).rows == 2
    fill(db, 1)  # the connection is usable after the rollback
    assert journal.verify(db).rows == 3


def test_threads_appending_at_once_make_one_chain(db, db_url):
    each = 25

    def database_for(n: int):
        return db if n % 2 else connect(db_url)  # shared object and separate objects

    assert appended_in_threads(8, each, database_for) == []
    entries = assert_one_chain(db, 8 * each)
    assert Counter(e.kiosk for e in entries) == {f"thread-{n}": each for n in range(8)}


def test_group_commit_from_many_threads_makes_one_chain(db):
    committer = GroupCommitter(db)
    served: list[journal.Entry] = []

    def player(n: int) -> None:
        for _ in range(20):
            served.append(committer.append(**challenge_fields(kiosk=f"player-{n}")))

    threads = [threading.Thread(target=player, args=(n,)) for n in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    entries = assert_one_chain(db, 200)
    assert sorted(served, key=lambda e: e.id) == entries


APPENDER = """
import sys
from adjudicator.record.journal import journal
from adjudicator.record.backends import connect
url, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
db = connect(url)
for _ in range(count):
    journal.append(db, **{fields!r}, kiosk=name)
"""


def test_processes_appending_at_once_make_one_chain(db, db_url):
    base = {k: v for k, v in challenge_fields().items() if k != "kiosk"}
    script = APPENDER.format(fields=base)
    each = 30
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script, db_url, f"process-{n}", str(each)],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    for _ in range(each):
        journal.append(db, **challenge_fields(kiosk="parent"))
    for worker in workers:
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
    entries = assert_one_chain(db, 5 * each)
    assert Counter(e.kiosk for e in entries) == {
        "parent": each,
        **{f"process-{n}": each for n in range(4)},
    }


# --- migrations -------------------------------------------------------------------------------


def test_upgrade_is_idempotent(db_url):
    database = connect(db_url)
    assert migrations.current_version(database) == 0
    assert migrations.upgrade(database) == [v for v, _, _ in migrations.MIGRATIONS]
    fill(database, 2)
    assert migrations.upgrade(database) == []
    assert migrations.upgrade(connect(db_url)) == []
    assert migrations.current_version(database) == migrations.LATEST
    with database.transaction() as cur:
        versions = [
            r["version"]
            for r in cur.execute("SELECT version FROM schema_migrations ORDER BY version").all()
        ]
    assert versions == [v for v, _, _ in migrations.MIGRATIONS]
    assert journal.verify(database).rows == 2


def test_two_db_upgrade_commands_at_once_apply_each_migration_once(db_url, tmp_path):
    env = {
        **os.environ,
        "ADJUDICATOR_HOME": str(tmp_path / "home"),
        "ADJUDICATOR_DATABASE_URL": db_url,
    }
    commands = [
        subprocess.Popen(
            [sys.executable, "-m", "adjudicator", "db", "upgrade"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [command.communicate(timeout=120) for command in commands]
    assert [c.returncode for c in commands] == [0, 0, 0], outputs
    applied = [out for out, _ in outputs if out.startswith("Applied migrations")]
    assert len(applied) == 1, outputs  # exactly one of them did the work
    database = connect(db_url)
    assert migrations.current_version(database) == migrations.LATEST
    with database.transaction() as cur:
        rows = cur.execute("SELECT COUNT(*) AS n FROM schema_migrations").one()
    assert rows["n"] == len(migrations.MIGRATIONS)


# --- PostgreSQL specifics -----------------------------------------------------------------------


def test_placeholders_translate_and_literals_stay():
    from adjudicator.record.database.postgres import translate

    assert (
        translate("SELECT * FROM t WHERE a = ? AND b = ?")
        == "SELECT * FROM t WHERE a = %s AND b = %s"
    )
    assert translate("SELECT '?', 'it''s ?' WHERE x = ?") == "SELECT '?', 'it''s ?' WHERE x = %s"
    assert translate("SELECT 5 % 3, '%' WHERE x = ?") == "SELECT 5 %% 3, '%%' WHERE x = %s"


def test_postgres_literals_reach_the_server_unchanged(postgres):
    database = connect(postgres.new_database())
    with database.transaction() as cur:
        row = cur.execute("SELECT '?' AS q, 7 % 4 AS m, ? AS p, '100%' AS pct", ("x",)).one()
    assert row == {"q": "?", "m": 3, "p": "x", "pct": "100%"}


def test_unreachable_postgres_is_database_unavailable_quickly():
    from support.servers import free_port

    database = connect(f"postgresql://nobody@127.0.0.1:{free_port()}/none")
    started = time.monotonic()
    with pytest.raises(DatabaseUnavailable) as caught:
        with database.transaction():
            pass
    assert time.monotonic() - started < 5
    assert "cannot be reached" in str(caught.value)


def _terminate_others(admin_url: str, url: str) -> int:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(admin_url, autocommit=True) as admin:
        return admin.execute(
            "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        ).fetchone()[0]


def test_a_dropped_idle_connection_is_replaced_without_an_error(postgres):
    url = postgres.new_database()
    database = connect(url)
    migrations.upgrade(database)
    fill(database, 2)
    assert _terminate_others(postgres.url, url) >= 1
    time.sleep(0.2)  # let the goodbye reach the client's socket
    fill(database, 2)  # the stale connection is noticed before use and replaced
    assert journal.verify(database).rows == 4


def test_a_connection_dropped_mid_transaction_is_unavailable_then_recovers(postgres):
    url = postgres.new_database()
    database = connect(url)
    migrations.upgrade(database)
    fill(database, 1)
    with pytest.raises(DatabaseUnavailable):
        with database.transaction(chain_lock=True) as cur:
            cur.execute("SELECT 1")
            _terminate_others(postgres.url, url)
            cur.execute("SELECT 1")
    fill(database, 1)
    assert journal.verify(database).rows == 2


def test_the_chain_lock_is_released_when_a_writer_dies(postgres):
    url = postgres.new_database()
    holder, waiter = connect(url), connect(url)
    migrations.upgrade(holder)
    took = threading.Event()
    release = threading.Event()

    def hold() -> None:
        try:
            with holder.transaction(chain_lock=True):
                took.set()
                release.wait(10)
                time.sleep(0.5)
        except DatabaseUnavailable:
            pass

    thread = threading.Thread(target=hold)
    thread.start()
    assert took.wait(10)
    release.set()
    _terminate_others(postgres.url, url)  # the holder's backend dies with the lock held
    journal.append(waiter, **challenge_fields())  # gets the lock: it died with its session
    thread.join(10)
    assert journal.verify(waiter).rows == 1


def test_sqlite_unopenable_path_is_database_unavailable(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    database = SqliteDatabase(str(blocker / "journal.sqlite3"))
    with pytest.raises(DatabaseUnavailable):
        with database.transaction():
            pass
