"""PostgreSQL's plans for the statements a kiosk's request and the director's pages run, on a
journal of a season's size, as quoted in benchmarks/RESULTS.md.

    python benchmarks/explain_plans.py [--rows 1000000] [--analyze]

Fills a temporary cluster with tests/support/query_plans.fill_fast (generate_series: the shape of a
season, made-up hashes), does what the hall and the director do (recording every statement),
and prints each distinct statement with its EXPLAIN (or EXPLAIN ANALYZE) as Markdown.
tests/record/test_postgres_plans.py asserts the same at 1,000,000 rows: no scan of the journal.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adjudicator.record.database.postgres import PostgresCursor, PostgresDatabase  # noqa: E402

from tests.support.postgres import PostgresServer, create_database  # noqa: E402
from tests.support.query_plans import Statement, exercise, fill_fast, plans, recording  # noqa: E402


def analyzed(db: PostgresDatabase, statement: Statement) -> str:
    with db.transaction() as cur:
        rows = cur._raw.execute(
            "EXPLAIN (ANALYZE, BUFFERS OFF) " + PostgresCursor(cur._raw).sql(statement.sql),
            statement.params,
        ).fetchall()
    return "\n".join(row[0] for row in rows)


def main(argv: list[str] | None = None) -> list[tuple[str, str]]:
    """Each statement's label and its plan, as printed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--analyze", action="store_true", help="EXPLAIN ANALYZE the reads")
    args = parser.parse_args(argv)
    undo = []
    found = []

    def patch(owner, name, value):
        undo.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    with PostgresServer() as server, tempfile.TemporaryDirectory() as folder:
        db = PostgresDatabase(create_database(server.url, prefix="plans"))
        fill_fast(db, args.rows)
        steps = ["setup"]
        with recording(patch, lambda: steps[-1]) as seen:
            exercise(db, Path(folder), steps)
        for owner, name, value in reversed(undo):
            setattr(owner, name, value)
        print(f"PostgreSQL plans at {args.rows:,} rows\n")
        for statement, plan in plans(db, [s for s in seen if s.label != "setup"]):
            if args.analyze and statement.sql.lstrip().upper().startswith("SELECT"):
                plan = analyzed(db, statement)
            print(f"**{statement.label}**\n```\n{statement.sql}\n\n{plan}\n```\n")
            found.append((statement.label, plan))
        db.close()
    return found


if __name__ == "__main__":
    main()
