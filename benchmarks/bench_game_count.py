"""Issue 11: counting the challenger's earlier unsuccessful challenges in a game stays flat as
the journal grows.

The count (game.earlier_unsuccessful) runs inside every append under the counting rules, so
its cost must not grow with the journal. Each benchmark runs it on a journal of 10,000 rows
and of 1,000,000 rows (a season: many tournaments, each with many games), next to the floor:
one primary-key lookup on the same journal. Target: the count's time over the floor is the
same at both sizes (within a factor of 1.5), i.e. it seeks the game, it does not scan.

Rows are written straight into the table (no hash chain: the chain is not what is measured).
Run: .venv/bin/python -m pytest benchmarks -k game_count --benchmark-only
"""

from __future__ import annotations

import random
import sys
import timeit
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adjudicator.judging.game import earlier_unsuccessful
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from benchmarks.sizing import sizes, smallest, timed  # noqa: E402
from benchmarks.synthetic_journal import insert_all, season_rows  # noqa: E402

SIZES = sizes(10_000, 1_000_000)
GAME = ("final", "3", "12", "ANN")  # tournament, round, table, challenger: 6 challenges
INSERT = (
    "INSERT INTO adjudications (id, recorded_at, kind, refers_to, tournament, kiosk, "
    "lexicon_name, lexicon_fingerprint, lexicon_words, rule, words, word_count, verdict, "
    "consequence, table_no, round_no, challenger, player, actor, note, prev_hash, row_hash) "
    "VALUES (?, '2025-01-01T00:00:00', ?, ?, ?, 'tablet', 'CSW24', 'f', 280887, 'dingle', "
    "'QI ZA', 2, ?, 'c', ?, ?, ?, NULL, NULL, NULL, 'p', 'h')"
)


def _journal(folder: Path, rows: int) -> SqliteDatabase:
    """A journal of `rows` challenges over 50 tournaments x 20 rounds x 40 tables x 2 players,
    with one void and one ruling in every 100 rows (about 12 challenges a game at 1,000,000
    rows); GAME holds 6 challenges."""
    db = SqliteDatabase(str(folder / f"journal-{rows}.sqlite3"))
    migrations.upgrade(db)
    game_rows = {k * (rows // 7) + 3 for k in range(1, 7)}  # six challenges, none void
    values = (
        (n, kind, refers, g[0], verdict, g[2], g[1], g[3])
        for n, kind, refers, game, verdict in season_rows(rows, seed=rows)
        for g in [GAME if n in game_rows else game]
    )
    return insert_all(db, INSERT, values)


@pytest.fixture(scope="module", params=SIZES, ids=[f"{n:,}-rows" for n in SIZES])
def journal_db(request, tmp_path_factory: pytest.TempPathFactory) -> SqliteDatabase:
    return _journal(tmp_path_factory.mktemp("game-count"), request.param)


def _floor_seconds(db: SqliteDatabase, rows: int, repeat: int = 2000, rounds: int = 7) -> float:
    """The median over `rounds` of one primary-key lookup's mean time (random rows)."""
    repeat, rounds, times = smallest(repeat, 1), smallest(rounds, 1), []
    with db.transaction() as cur:
        for _ in range(rounds):
            ids = [random.randrange(1, rows) for _ in range(repeat)]
            started = timeit.default_timer()
            for entry_id in ids:
                cur.execute("SELECT id, verdict FROM adjudications WHERE id = ?", (entry_id,)).one()
            times.append((timeit.default_timer() - started) / repeat)
    return sorted(times)[rounds // 2]


def test_count_is_flat_as_the_journal_grows(benchmark, journal_db):
    rows = int(journal_db.path.stem.split("-")[1])
    with journal_db.transaction() as cur:
        count = benchmark(earlier_unsuccessful, cur, *GAME)
    assert 0 < count <= 6
    floor = _floor_seconds(journal_db, rows)
    if not timed():
        return
    median = benchmark.stats.stats.median
    benchmark.extra_info.update(
        rows=rows,
        count=count,
        median_us=round(median * 1e6, 2),
        floor_pk_lookup_us=round(floor * 1e6, 2),
        ratio_to_floor=round(median / floor, 2),
    )
