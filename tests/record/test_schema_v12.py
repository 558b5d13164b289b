"""Schema version 12 (issue 29): a challenge row's `division` and `players`; old journals go on.

A journal written before version 12 upgrades in place: its rows keep their hashes (the new
fields are hashed only when set, as migration 7's `details` was), `journal verify` still passes,
new rows extend the chain, and a changed `players` on a new row is a broken chain.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace

from test_schema_v6 import OLD_ENTRY, OLD_HASH

from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal, journal_entry

from support.journal import challenge_fields

PLAYERS = '["Lee, Ann", "Park, Ben"]'


def test_a_row_without_a_tsh_game_hashes_as_before_and_one_with_it_hashes_its_game():
    assert replace(OLD_ENTRY, division=None, players=None).compute_hash() == OLD_HASH
    linked = replace(OLD_ENTRY, division="A", players=PLAYERS)
    assert linked.compute_hash() != OLD_HASH
    assert replace(linked, players='["Park, Ben", "Lee, Ann"]').compute_hash() != (
        linked.compute_hash()
    )


def test_a_journal_before_version_12_upgrades_and_goes_on(tmp_path):
    path = tmp_path / "journal.sqlite3"
    db = SqliteDatabase(str(path))
    with db.transaction(chain_lock=True) as cur:
        migrations._ensure_table(cur)
        for version, description, statements in sorted(migrations.MIGRATIONS):
            if version >= 12:
                continue
            for statement in statements:
                statement(cur) if callable(statement) else cur.execute(statement)
            cur.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, description, "then")
            )
    journal_before = []  # rows as a version-10 journal holds them (no division, no players)
    prev = journal_entry.GENESIS
    for number, changes in enumerate(
        ({"details": '{"final_play":true}'}, {"table": "4", "round": "2", "challenger": "ANN"}),
        start=1,
    ):
        entry = journal_entry.new_entry(
            {
                **challenge_fields(**changes),
                "id": number,
                "prev_hash": prev,
                "recorded_at": f"2024-05-01T14:00:0{number}.000000+00:00",
            }
        )
        kept = [c for c in journal_entry.COLUMNS if c not in ("division", "players", "install")]
        values = dict(zip(journal_entry.COLUMNS, journal_entry.stored_values(entry), strict=True))
        with db.transaction(chain_lock=True) as cur:
            cur.execute(
                f"INSERT INTO adjudications ({', '.join(kept)}) "
                f"VALUES ({', '.join('?' for _ in kept)})",
                [values[c] for c in kept],
            )
        journal_before.append(entry)
        prev = entry.row_hash
    assert migrations.upgrade(db) == [v for v, _, _ in sorted(migrations.MIGRATIONS) if v >= 12]
    assert [journal.get(db, e.id).row_hash for e in journal_before] == [
        e.row_hash for e in journal_before
    ]
    linked = journal.append(
        db,
        **challenge_fields(
            table="4", round="3", challenger="Lee, Ann", division="A", players=PLAYERS
        ),
    )
    assert journal.get(db, linked.id).to_api()["players"] == ["Lee, Ann", "Park, Ben"]
    assert journal.get(db, linked.id).to_api()["division"] == "A"
    assert journal.verify(db).ok
    db.close()
    with sqlite3.connect(path) as raw:  # someone swaps the players of the recorded game
        raw.execute(
            "UPDATE adjudications SET players = ? WHERE id = ?",
            ('["Park, Ben", "Lee, Ann"]', linked.id),
        )
    db = SqliteDatabase(str(path))
    assert journal.verify(db).first_bad_id == linked.id
    db.close()
