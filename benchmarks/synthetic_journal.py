"""Synthetic journal rows for the benchmarks: the one challenge the per-verdict benchmarks
append (CHALLENGE), and a season's rows for the query benchmarks, spread over 50 tournaments x
20 rounds x 40 tables x 2 players, with one void and one ruling in every 100 rows, and written
straight into the table (no hash chain: the chain is not what those benchmarks measure).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterable, Iterator

from adjudicator.record.database.sqlite import SqliteDatabase

from tests.support.journal import challenge_fields

BATCH = 50_000
CHALLENGE = challenge_fields(
    tournament="open",
    lexicon_name="CSW24",
    lexicon_words=280_887,
    words=("QI", "ZA", "CAT"),
    word_count=3,
)
"""A three-word CSW24 challenge: the row the per-verdict benchmarks append."""


def season_rows(rows: int, seed: int) -> Iterator[tuple[int, str, int | None, tuple, str]]:
    """(id, kind, refers_to, game, verdict) for `rows` rows, the same for the same `seed`; a
    game is (tournament, round, table, challenger). Row n % 100 == 0 voids the row before it,
    row n % 100 == 50 rules on row n - 7."""
    rng = random.Random(seed)
    for n in range(1, rows + 1):
        kind, refers = "challenge", None
        if n % 100 == 0:
            kind, refers = "void", n - 1
        elif n % 100 == 50:
            kind, refers = "ruling", n - 7
        game = (
            f"season-{rng.randrange(50)}",
            str(rng.randrange(20)),
            str(rng.randrange(40)),
            rng.choice(("ANN", "BOB")),
        )
        verdict = "ACCEPTABLE" if rng.random() < 0.7 else "UNACCEPTABLE"
        yield n, kind, refers, game, verdict


def insert_all(db: SqliteDatabase, insert: str, values: Iterable[tuple]) -> SqliteDatabase:
    """Run `insert` for each of `values` in batches of BATCH, then ANALYZE; returns `db`."""
    connection = sqlite3.connect(db.path)
    batch = []
    for row in values:
        batch.append(row)
        if len(batch) == BATCH:
            connection.executemany(insert, batch)
            connection.commit()
            batch = []
    connection.executemany(insert, batch)
    connection.commit()
    connection.execute("ANALYZE")
    connection.close()
    return db
