"""A season's journal for the scaling benchmark: a data home with 40 tournaments, 400 kiosks
and a director, filled through the program's own append path (journal.append_batch: the
hashes, the chain, the tallies and cases, one transaction per batch, as group commit does).

One row in 200 is a second opinion on the row before it (every other one flagged for the
director), and each flagged case is ruled on by the next row, except one in a hundred left
open; the rest are challenges spread over the tournaments and kiosks.

A season is not appended in a few minutes: while filling, the journal's clock is a simulated
one, row n recorded n seconds after the season's start (a busy association's rate, spread
over 400 kiosks), so time filters and bursts see a season's spacing. The season starts a day
ahead of the real clock, so rows appended for real in between (by the servers the benchmark
starts) take the time of the row before them, and the chain's times never run backwards.
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.people import staff
from adjudicator.record.backends import connect
from adjudicator.record.database import migrations
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

TOURNAMENTS = 40
KIOSKS = 400
WORDS = ("AA", "AB", "QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA", "QUIXOTIC")
DIRECTOR_PASSWORD = "director-benchmark-1"
CHALLENGES = (("QI", "ZA"), ("CAT", "DOGX"), ("ZEBRA",), ("JO", "XI", "AA", "FOX"))


@dataclass
class Season:
    home: Path
    url: str  # the journal database
    token: str  # a kiosk's bearer token
    fingerprint: str
    start: datetime  # row n is recorded at start + n seconds

    @property
    def env(self) -> dict:
        return {"ADJUDICATOR_HOME": str(self.home), "ADJUDICATOR_DATABASE_URL": self.url}

    def db(self) -> Database:
        return connect(self.url)


def tournament_slug(n: int) -> str:
    return f"division-{n % TOURNAMENTS:02d}"


def kiosk_name(n: int) -> str:
    return f"kiosk-{n % KIOSKS:03d}"


def journal_url(stack: ExitStack, backend: str, folder: Path, prefix: str) -> str:
    """Where a benchmark's journal lives: an SQLite file in `folder`'s data home, or a new
    database on a temporary PostgreSQL cluster that `stack` stops at its end."""
    if backend != "postgresql":
        return str(folder / "home" / "journal.sqlite3")
    from tests.support.postgres import PostgresServer, create_database

    server = stack.enter_context(PostgresServer())
    return create_database(server.url, prefix=prefix)


def prepare(home: Path, url: str) -> Season:
    """The data home, its lexicon, tournaments, kiosks and director; an empty journal."""
    os.environ["ADJUDICATOR_HOME"] = str(home)
    store = LexiconStore(root=home / "lexicons")
    manifest = store.save("TINY", WordSet.of(WORDS), description="benchmark lexicon")
    db = connect(url)
    migrations.upgrade(db)
    for n in range(TOURNAMENTS):
        tournaments.create(db, store, tournament_slug(n), "TINY", "double", f"Division {n}")
    token = ""
    for n in range(KIOSKS):
        enrolment = kiosks.add(db, kiosk_name(n), tournament_slug(n), table=n % 30 + 1)
        token = token or enrolment.token
    staff.set_director_password(db, DIRECTOR_PASSWORD)
    db.close()
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(days=1)
    return Season(home, url, token, manifest.fingerprint, start)


def row(n: int, fingerprint: str) -> dict:
    """The fields of row number `n` (its id, once appended) of the season."""
    words = CHALLENGES[n % len(CHALLENGES)]
    fields = dict(
        kind="challenge",
        tournament=tournament_slug(n),
        kiosk=kiosk_name(n),
        lexicon_name="TINY",
        lexicon_fingerprint=fingerprint,
        lexicon_words=len(WORDS),
        rule="double",
        words=words,
        word_count=len(words),
        verdict="UNACCEPTABLE" if "DOGX" in words else "ACCEPTABLE",
        consequence="The play stands; the challenger loses their turn.",
        table=str(n % 30 + 1),
        round=str(n // 5000 % 12 + 1),
    )
    if n % 200 == 0:
        flagged = n % 400 == 0
        fields.update(
            kind="second-opinion",
            refers_to=n - 1,
            kiosk="judge:alice",
            tournament=tournament_slug(n - 1),
            note="flagged for the director: the verdict differs from the original's"
            if flagged
            else None,
            actor="alice",
        )
    elif n % 400 == 1 and n > 1 and (n - 1) % 40_000 != 0:
        fields.update(
            kind="ruling",
            refers_to=n - 2,
            kiosk="director",
            tournament=tournament_slug(n - 2),
            note="Checked against the slip",
            actor="director",
        )
    return fields


class SeasonClock:
    """Stands in for journal.datetime while filling: each now() is the next row's time."""

    def __init__(self, start: datetime):
        self.start = start
        self.row = 0

    def now(self, tz=None) -> datetime:
        moment = self.start + timedelta(seconds=self.row)
        self.row += 1
        return moment


def fill(season: Season, target: int, batch: int = 1000) -> int:
    """Append rows until the journal holds `target`; returns how many were added."""
    db = season.db()
    clock = SeasonClock(season.start)
    real = journal.datetime
    journal.datetime = clock
    try:
        start = journal.newest_id(db)
        for first in range(start + 1, target + 1, batch):
            last = min(first + batch, target + 1)
            pending = [journal.Pending(row(n, season.fingerprint)) for n in range(first, last)]
            clock.row = first
            journal.append_batch(db, pending)
            assert all(p.error is None for p in pending)
        return max(0, target - start)
    finally:
        journal.datetime = real
        db.close()
