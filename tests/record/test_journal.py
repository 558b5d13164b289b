"""The journal: append-only rows chained by hashes; `verify` names the first row that was
edited, removed or moved; concurrent writers (threads, processes) keep one unbroken chain."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from collections import Counter

import pytest

from adjudicator.hall import kiosks
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal

from support.hall import NWL, append_rows, build_setup, row_fields
from support.journal import appended_in_threads, assert_one_chain


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "journal.sqlite3"


@pytest.fixture
def db(db_path):
    database = SqliteDatabase(str(db_path))
    migrations.upgrade(database)
    yield database
    database.close()


def fill(db, count: int = 5) -> list[journal.Entry]:
    words = [("QI",), ("ZA", "QX"), ("CAT", "DOG", "FOX"), ("ZEBRA",), ("JO", "XI")]
    verdicts = ["ACCEPTABLE", "UNACCEPTABLE", "ACCEPTABLE", "ACCEPTABLE", "ACCEPTABLE"]
    return [
        journal.append(db, **row_fields(words=words[n % 5], verdict=verdicts[n % 5], table=str(n)))
        for n in range(count)
    ]


def tamper(db_path, sql: str, params=()) -> None:
    """Edit the SQLite file behind the program's back, as someone with the file could."""
    with sqlite3.connect(db_path) as connection:
        connection.execute(sql, params)
    connection.close()


# --- append, get, verify ----------------------------------------------------------------------


def test_an_empty_journal_verifies(db):
    result = journal.verify(db)
    assert result.ok and result.rows == 0


def test_appended_rows_are_numbered_chained_and_read_back(db):
    written = fill(db, 5)
    assert [e.id for e in written] == [1, 2, 3, 4, 5]
    assert written[0].prev_hash == journal.GENESIS
    for before, after in zip(written, written[1:], strict=False):
        assert after.prev_hash == before.row_hash
    assert list(journal.entries(db)) == written
    assert journal.get(db, 2) == written[1]
    assert journal.get(db, 2).words == ("ZA", "QX") and journal.get(db, 2).word_count == 2
    assert journal.get(db, 99) is None
    result = journal.verify(db)
    assert result.ok and result.rows == 5


def test_entries_filter_by_tournament_and_kiosk(db):
    journal.append(db, **row_fields(kiosk="table-1"))
    journal.append(db, **row_fields(kiosk="table-2", tournament="spring-csw"))
    journal.append(db, **row_fields(kiosk="table-1"))
    assert [e.id for e in journal.entries(db, NWL)] == [1, 3]
    assert [e.id for e in journal.entries(db, "spring-csw")] == [2]
    assert [e.id for e in journal.entries(db, kiosk="table-1")] == [1, 3]
    assert [e.id for e in journal.entries(db, batch=2)] == [1, 2, 3]


@pytest.mark.parametrize(
    "column, value",
    [
        ("verdict", "ACCEPTABLE"),
        ("words", "ZA QI"),
        ("word_count", 1),
        ("consequence", "The play stands; no penalty."),
        ("lexicon_fingerprint", "0" * 64),
        ("rule", "single"),
        ("recorded_at", "2020-01-01T00:00:00.000000+00:00"),
        ("kiosk", "table-9"),
        ("table_no", "7"),
        ("player", "Someone"),
    ],
)
def test_verify_names_the_row_whose_field_was_edited(db, db_path, column, value):
    fill(db, 5)
    tamper(db_path, f"UPDATE adjudications SET {column} = ? WHERE id = 2", (value,))
    result = journal.verify(db)
    assert not result.ok
    assert result.first_bad_id == 2 and result.rows == 1
    assert "row 2" in result.problem and "altered" in result.problem


@pytest.mark.parametrize("deleted", [3, 1], ids=["middle-row", "first-row"])
def test_verify_names_the_row_after_a_deleted_row(db, db_path, deleted):
    fill(db, 5)
    tamper(db_path, "DELETE FROM adjudications WHERE id = ?", (deleted,))
    result = journal.verify(db)
    assert result.first_bad_id == deleted + 1 and result.rows == deleted - 1
    assert f"row {deleted} is missing" in result.problem


def test_verify_detects_two_rows_swapped(db, db_path):
    fill(db, 5)
    tamper(db_path, "UPDATE adjudications SET id = -2 WHERE id = 2")
    tamper(db_path, "UPDATE adjudications SET id = 2 WHERE id = 3")
    tamper(db_path, "UPDATE adjudications SET id = 3 WHERE id = -2")
    result = journal.verify(db)
    assert result.first_bad_id == 2 and result.rows == 1


def test_verify_detects_rows_contents_swapped_under_their_ids(db, db_path):
    fill(db, 5)
    columns = "words, word_count, verdict, table_no"
    with sqlite3.connect(db_path) as connection:
        two = connection.execute(f"SELECT {columns} FROM adjudications WHERE id = 2").fetchone()
        four = connection.execute(f"SELECT {columns} FROM adjudications WHERE id = 4").fetchone()
        sets = "words = ?, word_count = ?, verdict = ?, table_no = ?"
        connection.execute(f"UPDATE adjudications SET {sets} WHERE id = 2", four)
        connection.execute(f"UPDATE adjudications SET {sets} WHERE id = 4", two)
    connection.close()
    assert journal.verify(db).first_bad_id == 2


def test_verify_detects_a_row_inserted_with_a_made_up_hash(db, db_path):
    fill(db, 3)
    tamper(
        db_path,
        "INSERT INTO adjudications SELECT 4, recorded_at, kind, refers_to, tournament, kiosk, "
        "lexicon_name, lexicon_fingerprint, lexicon_words, rule, words, word_count, verdict, "
        "consequence, table_no, round_no, challenger, player, actor, note, prev_hash, row_hash, "
        "penalty, flag, dictionary, flag_reasons, details, division, players, keyed_hash, install "
        "FROM adjudications WHERE id = 3",
    )
    result = journal.verify(db)
    assert result.first_bad_id == 4 and result.rows == 3


def test_appends_after_a_good_chain_keep_it_good(db):
    fill(db, 3)
    assert journal.verify(db).ok
    fill(db, 3)
    result = journal.verify(db)
    assert result.ok and result.rows == 6


# --- concurrency --------------------------------------------------------------------------------


def test_threads_appending_at_once_make_one_chain(db_path, db):
    threads_n, each = 8, 25

    def database_for(n: int):
        return db if n % 2 == 0 else SqliteDatabase(str(db_path))

    assert appended_in_threads(threads_n, each, database_for, row_fields) == []
    rows = assert_one_chain(db, threads_n * each)
    assert Counter(e.kiosk for e in rows) == {f"thread-{n}": each for n in range(threads_n)}


@pytest.mark.slow  # processes started and joined: seconds
def test_processes_appending_at_once_make_one_chain(db_path, db):
    processes_n, each = 4, 30
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [
        context.Process(target=append_rows, args=(str(db_path), n, each, start))
        for n in range(processes_n)
    ]
    for worker in workers:
        worker.start()
    start.set()
    for _ in range(each):  # the test process writes too
        journal.append(db, **row_fields(kiosk="parent"))
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0] * processes_n
    rows = assert_one_chain(db, (processes_n + 1) * each)
    counts = Counter(e.kiosk for e in rows)
    assert counts == {"parent": each, **{f"writer-{n}": each for n in range(processes_n)}}


def test_concurrent_adjudications_through_the_hall_make_one_chain(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    setup = build_setup(tmp_path)
    kiosk = kiosks.get(setup.hall.db, "table-1")
    results, errors = [], []

    def player(n: int) -> None:
        try:
            for words in (["QI", "ZA"], ["QX"], ["CAT"], ["ZEBRA", "FOX"], ["JO"]):
                results.append(setup.hall.adjudicate(kiosk, words, table=str(n)))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=player, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    rows = assert_one_chain(SqliteDatabase(str(setup.db_path)), 40)
    assert sorted(results, key=lambda e: e.id) == rows  # every verdict returned is on record
    assert Counter(e.verdict for e in rows) == {"ACCEPTABLE": 32, "UNACCEPTABLE": 8}


# --- migrations -------------------------------------------------------------------------------


def test_migrations_are_idempotent_and_keep_the_data(db_path):
    database = SqliteDatabase(str(db_path))
    assert migrations.current_version(database) == 0
    assert migrations.upgrade(database) == [version for version, _, _ in migrations.MIGRATIONS]
    fill(database, 2)
    assert migrations.upgrade(database) == []
    assert migrations.upgrade(SqliteDatabase(str(db_path))) == []
    assert migrations.current_version(database) == migrations.LATEST
    with sqlite3.connect(db_path) as connection:
        applied = connection.execute("SELECT version FROM schema_migrations").fetchall()
    connection.close()
    assert applied == [(version,) for version, _, _ in migrations.MIGRATIONS]
    assert journal.verify(database).rows == 2


def test_a_migration_landed_out_of_order_is_still_applied(db_path, monkeypatch):
    """Branches land in any order: a database at versions {1, 2, 4} still gets 3 later."""
    database = SqliteDatabase(str(db_path))
    every = migrations.MIGRATIONS
    monkeypatch.setattr(migrations, "MIGRATIONS", tuple(m for m in every if m[0] != 3))
    assert 4 in migrations.upgrade(database)
    monkeypatch.setattr(migrations, "MIGRATIONS", every)
    assert migrations.upgrade(database) == [3]
    assert migrations.upgrade(database) == []
    with database.transaction() as cur:
        assert cur.execute("SELECT COUNT(*) AS n FROM journal_tallies").one() == {"n": 0}


def test_each_journal_gets_its_own_random_id(tmp_path):
    ids = set()
    for name in ("a", "b"):
        database = SqliteDatabase(str(tmp_path / f"{name}.sqlite3"))
        migrations.upgrade(database)
        migrations.upgrade(database)  # idempotent: one id, never a second
        with database.transaction() as cur:
            rows = cur.execute("SELECT journal_id FROM journal_identity").all()
        assert len(rows) == 1 and len(rows[0]["journal_id"]) == 32
        ids.add(rows[0]["journal_id"])
    assert len(ids) == 2


def test_the_journal_is_durable_sqlite(db, db_path):
    fill(db, 1)
    with sqlite3.connect(db_path) as connection:
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
    connection.close()
    assert mode == "wal"
    with db.transaction() as cur:
        assert cur.execute("PRAGMA synchronous").one() == {"synchronous": 2}  # FULL
