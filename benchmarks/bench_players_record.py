"""Issue 46: the season's figures, an event's report and what an append pays for the players'
record, each beside its floor in the same run (benchmarks/alternating.py).

- the season (`season.build`) and an event's report over a season of 10,000 rows filled through
  the program's append path (benchmarks/players_record.py), against a bare
  `SELECT challenger, COUNT(*) ... GROUP BY challenger` over the same rows;
- one challenge appended (journal.append, one transaction) with the players' tallies and the
  closed-event check, against the same append with both left out.

The sizes that matter (100k, 1M, PostgreSQL) are run by `python -m benchmarks.players_record`;
their numbers are in RESULTS.md, issue 46.
Run: .venv/bin/python -m pytest benchmarks/bench_players_record.py --benchmark-only -s
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adjudicator.hall.director import report, season  # noqa: E402
from adjudicator.record.database import journal_health  # noqa: E402
from adjudicator.record.journal import (  # noqa: E402
    closings,
    journal_entry,
    player_tallies,
    tallies,
)
from benchmarks import players_record  # noqa: E402
from benchmarks.alternating import alternate, timed  # noqa: E402
from benchmarks.alternating import report as record_result  # noqa: E402

ROWS = 10_000


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("players-record") / "home"
    fingerprint, made = players_record.prepare(home, str(home / "journal.sqlite3"))
    players_record.fill(made, fingerprint, ROWS)
    made.fingerprint = fingerprint
    yield made
    made.db.close()


def _floor(hall, where: str = "", params: tuple = ()):
    with hall.db.transaction() as cur:
        return cur.execute(
            f"SELECT challenger, COUNT(*) FROM adjudications {where} GROUP BY challenger", params
        ).tuples()


def test_the_season_beside_its_floor(benchmark, hall):
    def the_season():
        return season.build(hall, "2025-01-01", "2025-12-31")

    found = benchmark.pedantic(the_season, rounds=3, iterations=1)
    assert len(found.players) == players_record.POOL
    target, floor = alternate(timed(the_season, 1), timed(lambda: _floor(hall), 1), rounds=3)
    record_result(benchmark, "ms", ("season", "season", target), ("floor", "floor", floor))


def test_an_event_report_beside_its_floor(benchmark, hall):
    event = players_record.slug(1)

    def the_report():
        return report.build(hall, event)

    found = benchmark.pedantic(the_report, rounds=3, iterations=1)
    assert found.totals["challenges_made"] > 0
    target, floor = alternate(
        timed(the_report, 1),
        timed(lambda: _floor(hall, "WHERE tournament = ?", (event,)), 1),
        rounds=3,
    )
    record_result(benchmark, "ms", ("report", "report", target), ("floor", "floor", floor))


def test_what_an_append_pays_beside_the_tallies_it_paid_already(benchmark, hall):
    """Inside an append's transaction (rolled back here, so no fsync hides anything): the
    players' tallies and the closed-event check for one challenge, against the journal's own
    tallies and cases for the same row (what every append paid before issue 46)."""
    entry = journal_entry.new_entry(
        {**players_record.challenge(3, hall.fingerprint), "id": 10**9,
         "recorded_at": "2025-06-01T10:00:00+00:00"}
    )  # fmt: skip
    journal_id = journal_health.journal_id(hall.db)

    def inside(work):
        class Done(Exception):
            pass

        def run():
            try:
                with hall.db.transaction(chain_lock=True) as cur:
                    for _ in range(200):
                        work(cur)
                    raise Done
            except Done:
                pass

        return run

    def players_record_work(cur):
        closings.refuse_if_closed(cur, {"kind": "challenge", "tournament": entry.tournament},
                                  None, journal_id, {})  # fmt: skip
        player_tallies.record(cur, [entry])

    def tallies_work(cur):
        original = player_tallies.record
        player_tallies.record = lambda cur, entries: None
        try:
            tallies.record(cur, [entry])
        finally:
            player_tallies.record = original

    benchmark.pedantic(inside(players_record_work), rounds=5, iterations=1)
    target, floor = alternate(
        timed(inside(players_record_work), 1), timed(inside(tallies_work), 1), rounds=5
    )
    record_result(
        benchmark,
        "us",
        ("players_record_x200", "players' tallies and close check, 200 rows", target),
        ("tallies_x200", "the journal's tallies and cases, 200 rows", floor),
    )
