"""Issue 20: the export with every challenge's penalty recounted from its game (recount.py).

Under the rules that count a game's challenges (dingle, 5-then-10, ladders), each challenge's
effective penalty is recounted from its game as it stands, after every ruling and void. This
measures `journal export --format csv` (export.csv_records + csv_chunks) on the same journal of
100,000 challenges (50 tournaments x 20 rounds x 40 tables x 2 players, one void and one ruling
in every 100 rows, each in its challenge's game) recorded once under `dingle` (the games with a
correction recounted: two indexed queries a game, each read once per export; the others keep
their recorded penalties) and once under `double` (nothing to recount: the export's floor).
Target: the recount costs at most 3x the floor.

Rows are written straight into the table (no hash chain: the chain is not what is measured).
Run: .venv/bin/python -m pytest benchmarks -k recount --benchmark-only
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adjudicator.hall.director import export
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal
from benchmarks.sizing import smallest, timed  # noqa: E402
from benchmarks.synthetic_journal import insert_all, season_rows  # noqa: E402

ROWS = smallest(100_000, 2_000)
INSERT = (
    "INSERT INTO adjudications (id, recorded_at, kind, refers_to, tournament, kiosk, "
    "lexicon_name, lexicon_fingerprint, lexicon_words, rule, words, word_count, verdict, "
    "consequence, table_no, round_no, challenger, player, actor, note, prev_hash, row_hash, "
    "penalty) VALUES (?, '2025-01-01T00:00:00', ?, ?, ?, 'tablet', 'CSW24', 'f', 280887, ?, "
    "'QI ZA', 2, ?, 'c', ?, ?, ?, NULL, NULL, NULL, 'p', 'h', ?)"
)
PENALTY = (
    '{"challenger_loses_turn":false,"play_stands":true,"points_to_challenger":0,'
    '"points_to_player":0}'
)


def _journal(folder: Path, rule: str) -> SqliteDatabase:
    db = SqliteDatabase(str(folder / f"journal-{rule}.sqlite3"))
    migrations.upgrade(db)
    games = {}
    values = []
    for n, kind, refers, game, verdict in season_rows(ROWS, seed=ROWS):
        if refers is not None:  # a correction copies its challenge's game, as the program does
            game = games[refers]
        games[n] = game
        values.append((n, kind, refers, game[0], rule, verdict, game[2], game[1], game[3], PENALTY))
    return insert_all(db, INSERT, values)


@pytest.fixture(scope="module", params=["double", "dingle"])
def journal_db(request, tmp_path_factory: pytest.TempPathFactory) -> SqliteDatabase:
    return _journal(tmp_path_factory.mktemp("recount"), request.param)


def _export(db: SqliteDatabase) -> int:
    out = io.StringIO()
    for chunk in export.csv_chunks(export.csv_records(db, journal.batches(db))):
        out.write(chunk)
    return out.tell()


def test_export_with_penalties_recounted(benchmark, journal_db):
    size = benchmark.pedantic(_export, args=(journal_db,), rounds=3, iterations=1)
    assert size > ROWS * 100
    if timed():
        benchmark.extra_info.update(
            rule=journal_db.path.stem.split("-")[1],
            median_s=round(benchmark.stats.stats.median, 3),
        )
