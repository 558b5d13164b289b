"""The floor for benchmarks/load_receipts.py: the kiosk app with issue 9's per-verdict costs
switched off (no receipt signed; no journal identity check: the plain chain-head query, no
stat of the journal's files before and after each commit). For measurement only."""

from __future__ import annotations

from adjudicator.hall import hall
from adjudicator.record.database import journal_health
from adjudicator.record.database.sqlite import SqliteDatabase


def _plain_head(db, cur):
    row = cur.execute(
        "SELECT id, row_hash, recorded_at FROM adjudications ORDER BY id DESC LIMIT 1"
    ).one()
    if row is None:
        return journal_health.Head(1, journal_health.GENESIS, "")
    return journal_health.Head(row["id"] + 1, row["row_hash"], row["recorded_at"])


journal_health.read_head = _plain_head
journal_health.after_commit = lambda db: None
SqliteDatabase.file_problem = lambda self: None
hall.Hall.receipt = lambda self, entry: None

from kiosk import create_app  # noqa: E402 - after the switches above

app = create_app()
