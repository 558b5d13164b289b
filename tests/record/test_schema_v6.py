"""Schema version 6 (issue 11): penalty and flag columns, the game index; old journals go on.

A journal written before version 6 upgrades in place: its rows keep their hashes (a field added
later is hashed only when set), `journal verify` still passes, and new rows extend the chain.
Migrations are applied by the set of versions done, so one landing out of order (6 before 3)
is still applied.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal
from adjudicator.record.journal.journal import Entry

from support.journal import challenge_fields

# A row hashed by the code before version 6 (main at 27c01e7), for this exact entry.
OLD_ENTRY = Entry(
    id=1,
    recorded_at="2024-05-01T14:00:00.000000+00:00",
    **challenge_fields(consequence="The play stands; the challenger loses their turn.", table="4"),
)
OLD_HASH = "5c5d4bb3273029d94995f6f358eacab5a7d3e894036fcab406971f7e978fc0b0"
OLD_COLUMNS = (
    "id, recorded_at, kind, refers_to, tournament, kiosk, lexicon_name, lexicon_fingerprint, "
    "lexicon_words, rule, words, word_count, verdict, consequence, table_no, round_no, "
    "challenger, player, actor, note, prev_hash, row_hash"
)


def test_a_row_written_before_version_6_keeps_its_hash():
    assert OLD_ENTRY.compute_hash() == OLD_HASH
    with_penalty = replace(OLD_ENTRY, penalty='{"play_stands":true}')
    assert with_penalty.compute_hash() != OLD_HASH  # once set, the new fields are hashed


def test_an_old_journal_upgrades_and_its_chain_goes_on(tmp_path):
    db = SqliteDatabase(str(tmp_path / "journal.sqlite3"))
    with db.transaction(chain_lock=True) as cur:  # the schema and one row as version 2 left it
        migrations._ensure_table(cur)
        for version, description, statements in migrations.MIGRATIONS:
            if version > 2:
                continue
            for statement in statements:
                cur.execute(statement)
            cur.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, description, "then")
            )
        old = replace(OLD_ENTRY, row_hash=OLD_HASH)
        cur.execute(
            f"INSERT INTO adjudications ({OLD_COLUMNS}) VALUES ({', '.join('?' * 22)})",
            (
                old.id, old.recorded_at, old.kind, None, old.tournament, old.kiosk,
                old.lexicon_name, old.lexicon_fingerprint, old.lexicon_words, old.rule,
                "QI ZA", old.word_count, old.verdict, old.consequence, old.table, None, None,
                None, None, None, old.prev_hash, old.row_hash,
            ),
        )  # fmt: skip
    assert migrations.upgrade(db) == [v for v, _, _ in sorted(migrations.MIGRATIONS) if v > 2]
    assert journal.get(db, 1).penalty is None and journal.get(db, 1).to_api()["penalty"] is None
    new = journal.append(db, **{**_fields(), "penalty": '{"play_stands":true}'})
    assert new.prev_hash == OLD_HASH
    result = journal.verify(db)
    assert result.ok and result.rows == 2


def test_migrations_apply_by_the_set_done_not_the_highest(tmp_path, monkeypatch):
    db = SqliteDatabase(str(tmp_path / "journal.sqlite3"))
    assert migrations.upgrade(db) == [v for v, _, _ in sorted(migrations.MIGRATIONS)]
    free = sorted(set(range(1, migrations.LATEST)) - {v for v, _, _ in migrations.MIGRATIONS})
    if not free:
        pytest.skip("every version below the latest has landed")
    late = (free[0], "a version that landed late", ("CREATE TABLE landed_late (x INTEGER)",))
    monkeypatch.setattr(migrations, "MIGRATIONS", (*migrations.MIGRATIONS, late))
    assert migrations.upgrade(db) == [free[0]]
    assert migrations.upgrade(db) == []
    with db.transaction() as cur:
        assert cur.execute("SELECT COUNT(*) AS n FROM landed_late").one()["n"] == 0


@pytest.mark.parametrize("column", ["penalty", "flag"])
def test_the_new_columns_exist(tmp_path, column):
    db = SqliteDatabase(str(tmp_path / "journal.sqlite3"))
    migrations.upgrade(db)
    with db.transaction() as cur:
        names = cur.execute("SELECT * FROM adjudications LIMIT 0").columns()
    assert column in names


def _fields() -> dict:
    return challenge_fields(
        words=("QI",), word_count=1, consequence="The play stands; the challenger loses their turn."
    )
