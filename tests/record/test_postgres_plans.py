"""At a season's size (1,000,000 rows), every statement PostgreSQL runs for a kiosk's request
and for the director's pages reads through an index: none scans the journal or its tallies."""

from __future__ import annotations

import pytest

from adjudicator.record.database.postgres import PostgresDatabase

from support.query_plans import SCANNED, exercise, fill_fast, plans, recording

ROWS = 1_000_000


@pytest.fixture
def season(postgres, tmp_path):
    db = PostgresDatabase(postgres.new_database())
    fill_fast(db, ROWS)
    yield db
    db.close()


def test_every_query_uses_an_index_at_a_million_rows(season, tmp_path, monkeypatch):
    steps = ["setup"]
    with recording(monkeypatch.setattr, lambda: steps[-1]) as seen:
        exercise(season, tmp_path, steps)
    checked = plans(season, [s for s in seen if s.label != "setup"])
    labels = {statement.label for statement, _ in checked}
    assert {
        "kiosk: adjudicate (tournament, rate limit, append, tallies)",
        "director: overview",
        "director: flags",
        "director: journal, a time range",
    } <= labels
    scans = [
        f"{statement.label}: {statement.sql}\n{plan}"
        for statement, plan in checked
        if any(scan in plan for scan in SCANNED)
    ]
    assert scans == [], "\n\n".join(scans)
