"""PostgreSQL query plans at a season's size: fill a journal fast, record the SQL the program
really runs (request path and director's pages), and EXPLAIN each statement.

Used by tests/record/test_postgres_plans.py (every statement must use an index at 1,000,000
rows) and by benchmarks/bench_scaling.py (the plans quoted in benchmarks/RESULTS.md).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.director import director_decisions, export, hall_status, journal_review
from adjudicator.hall.director.journal_review import Filters
from adjudicator.hall.hall import Hall
from adjudicator.hall.people.ratelimit import RateLimit
from adjudicator.judging import director_flags, grant_uses, lookups, outcomes
from adjudicator.judging.corrections import final_ruling, second_opinion, voids
from adjudicator.record.database import migrations
from adjudicator.record.database.postgres import PostgresCursor, PostgresDatabase
from adjudicator.record.journal import journal

from .hall import CSW, NWL, build_store

TOURNAMENTS = 40
KIOSKS = 400
SCANNED = ("Seq Scan on adjudications", "Seq Scan on journal_tallies", "Seq Scan on journal_cases")


def fill_fast(db: PostgresDatabase, rows: int) -> None:
    """`rows` journal rows in one INSERT ... SELECT generate_series, then the tallies and cases
    as migration 3 builds them, then ANALYZE: a season's shape in seconds (hashes are made up:
    this journal is for plans, not for `verify`). One row in 200 is a second opinion, every
    other one flagged and ruled on by the next row, except one in a hundred left open;
    40 tournaments, 400 kiosks, a row a second."""
    migrations.upgrade(db)
    tallies_sql, cases_sql = (
        statement
        for version, _, statements in migrations.MIGRATIONS
        if version == 3
        for statement in statements
        if statement.startswith("INSERT INTO")
    )
    with db.transaction(chain_lock=True) as cur:
        cur.execute(
            f"""INSERT INTO adjudications (id, recorded_at, kind, refers_to, tournament, kiosk,
            lexicon_name, lexicon_fingerprint, lexicon_words, rule, words, word_count, verdict,
            consequence, table_no, round_no, challenger, player, actor, note, prev_hash, row_hash)
            SELECT g,
              to_char(TIMESTAMP '2024-01-01' + g * INTERVAL '1 second',
                      'YYYY-MM-DD"T"HH24:MI:SS.US') || '+00:00',
              CASE WHEN g % 400 = 1 AND g > 1 AND (g - 1) % 40000 <> 0 THEN 'ruling'
                   WHEN g % 200 = 0 THEN 'second-opinion' ELSE 'challenge' END,
              CASE WHEN g % 400 = 1 AND g > 1 AND (g - 1) % 40000 <> 0 THEN g - 2
                   WHEN g % 200 = 0 THEN g - 1 END,
              CASE g % {TOURNAMENTS} WHEN 0 THEN '{NWL}' WHEN 1 THEN '{CSW}'
                   ELSE 'division-' || (g % {TOURNAMENTS}) END,
              CASE g % {KIOSKS} WHEN 0 THEN 'table-1' WHEN 1 THEN 'table-2'
                   ELSE 'kiosk-' || (g % {KIOSKS}) END,
              'TINY-NWL', repeat('f', 64), 12, 'double', 'QI ZA', 2, 'ACCEPTABLE',
              'The play stands.', (g % 30)::text, (g % 12)::text, NULL, NULL, NULL,
              CASE WHEN g % 400 = 0 THEN 'flagged for the director: the verdict differs' END,
              md5((g - 1)::text) || md5((g - 1)::text), md5(g::text) || md5(g::text)
            FROM generate_series(1, {int(rows)}) AS g"""
        )
        cur.execute("DELETE FROM journal_tallies")
        cur.execute("DELETE FROM journal_cases")
        cur.execute(tallies_sql)
        cur.execute(cases_sql)
    with db.transaction() as cur:
        cur.execute("ANALYZE")


@dataclass
class Statement:
    label: str
    sql: str
    params: tuple


@contextmanager
def recording(monkeypatch_setattr, label_of):
    """Record every statement PostgresCursor runs, labelled by `label_of()` at the time."""
    seen: list[Statement] = []
    real_execute, real_many = PostgresCursor.execute, PostgresCursor.executemany

    def execute(self, sql, params=()):
        seen.append(Statement(label_of(), sql, tuple(params)))
        return real_execute(self, sql, params)

    def executemany(self, sql, rows):
        rows = list(rows)
        if rows:
            seen.append(Statement(label_of(), sql, tuple(rows[0])))
        return real_many(self, sql, rows)

    monkeypatch_setattr(PostgresCursor, "execute", execute)
    monkeypatch_setattr(PostgresCursor, "executemany", executemany)
    yield seen


def exercise(db: PostgresDatabase, root: Path, steps: list[str]) -> None:
    """Do what a hall and its director do, one labelled step at a time (`steps[-1]` is the
    label of the step running)."""
    store = build_store(root / "lexicons")
    tournaments.create(db, store, NWL, "TINY-NWL", "double", "Spring Open")
    tournaments.create(db, store, CSW, "TINY-CSW", "escalating", "Spring Open CSW")
    enrolment = kiosks.add(db, "table-1", NWL)
    counting = kiosks.add(db, "kiosk-7", CSW)  # a kiosk with a long history in the season
    hall = Hall(store, db, rate_limit=RateLimit(6, 60))
    newest = journal.newest_id(db)
    middle = newest // 2

    steps.append("kiosk: token")
    kiosk = kiosks.by_token(db, enrolment.token)
    steps.append("kiosk: adjudicate (tournament, rate limit, append, tallies)")
    original = hall.adjudicate(kiosk, ["QI", "ZAX"], table="3", round="2")
    steps.append("kiosk: adjudicate again (a possible separate look-up)")
    hall.adjudicate(kiosk, ["ZA"], table="3", round="2")
    steps.append("kiosk: adjudicate under a rule that counts the game's challenges")
    game = {"table": "4", "round": "2", "challenger": "ANN"}
    first = hall.adjudicate(kiosks.by_token(db, counting.token), ["QI", "ZAX"], **game)
    steps.append("kiosk: reissue")
    hall.adjudicate(kiosks.by_token(db, counting.token), ["QI", "ZA"], replaces=first.id, **game)
    steps.append("judge: second opinion")
    second_opinion.give(
        db,
        store,
        original.id,
        ["QI", "ZA"],
        actor="alice",
        station="judge:a",
        confirm_correction=True,  # the table played on (WESPA 3.10.13)
    )
    steps.append("director: ruling")
    final_ruling.record_ruling(
        db,
        original.id,
        "acceptable",
        "Slip checked",
        actor="director",
        station="director",
        words="QI ZA",
        confirm_correction=True,
    )
    steps.append("director: void")
    voids.void(db, middle + 2, "entered by mistake", actor="director", station="director")
    steps.append("director: revoke a void")
    voids.revoke(db, middle + 2, "the wrong row", actor="director", station="director")
    steps.append("kiosk: an unsuccessful challenge by a named player (the grants' seek)")
    hall.adjudicate(kiosk, ["ZA"], table="5", round="2", challenger="Bob")
    steps.append("director: a free challenge granted (issue 35)")
    director_decisions.grant_free_challenge(
        db, NWL, "Bob", "score written early", actor="director", station="director"
    )
    steps.append("kiosk: an unsuccessful challenge that uses a free challenge")
    hall.adjudicate(kiosk, ["QI"], table="5", round="2", challenger="Bob")
    steps.append("director: a challenge the director decides")
    director_decisions.decide_challenge(
        db, NWL, "exchange", "upheld", "bag had 5", actor="director", station="director"
    )
    steps.append("director: grants not yet used, decisions recorded lately")
    grant_uses.open_grants(db, NWL)
    journal.select(
        db,
        "kind IN (?, ?, ?) AND kind <> 'challenge'",
        ("free-challenge", "placement", "exchange"),
        "ORDER BY id DESC LIMIT 50",
    )
    steps.append("director: overview")
    hall_status.build(hall)
    steps.append("director: flags")
    second_opinion.cases(db, open_only=True)
    second_opinion.cases(db, closed_only=True, limit=50)
    list(outcomes.with_outcomes(db, lookups.flagged(db)))
    steps.append("director: flags (changed penalties, open look-ups)")
    director_flags.penalty_changes(db)
    director_flags.separate_lookups(db)
    since = journal_review.parse_time("2024-01-05T00:00")
    until = journal_review.parse_time("2024-01-05T06:00")
    pages = {
        "director: journal, newest page": (Filters(), {}),
        "director: journal, older page": (Filters(), {"before": middle}),
        "director: journal, newer page": (Filters(), {"after": middle}),
        "director: journal, one tournament": (Filters(tournament=CSW), {"before": middle}),
        "director: journal, one kiosk": (Filters(kiosk="table-2"), {"before": middle}),
        "director: journal, rulings": (Filters(kind="ruling"), {}),
        "director: journal, a time range": (Filters(since=since, until=until), {}),
    }
    for label, (filters, where) in pages.items():
        steps.append(label)
        found = journal_review.page(db, filters, **where)
        list(outcomes.with_outcomes(db, found.rows))
    steps.append("export/verify: one batch")
    list(export.csv_records(db, [next(journal.batches(db))]))
    steps.append("export: one tournament's batch")
    list(export.csv_records(db, [next(journal.batches(db, CSW))]))


def explain(db: PostgresDatabase, statement: Statement) -> str:
    """PostgreSQL's plan for one recorded statement, as text."""
    with db.transaction() as cur:
        rows = cur._raw.execute(
            "EXPLAIN " + PostgresCursor(cur._raw).sql(statement.sql), statement.params
        ).fetchall()
    return "\n".join(row[0] for row in rows)


def plans(db: PostgresDatabase, seen: list[Statement]) -> list[tuple[Statement, str]]:
    """Each distinct recorded read or update with its plan (inserts and DDL left out)."""
    done, found = set(), []
    for statement in seen:
        head = statement.sql.lstrip().split(None, 1)[0].upper()
        if head not in ("SELECT", "UPDATE", "DELETE") or statement.sql in done:
            continue
        if "pg_advisory_xact_lock" in statement.sql:
            continue
        done.add(statement.sql)
        found.append((statement, explain(db, statement)))
    return found
