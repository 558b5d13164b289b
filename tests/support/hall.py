"""Helpers for the hall, API and journal tests: a hall on tiny lexicons, kiosks, app clients.

A hall here has two tournaments on two tiny lexicons (an NWL-like and a CSW-like division),
an SQLite journal in tmp_path, and no rate limit unless a test asks for one.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.hall.people.ratelimit import RateLimit
from adjudicator.record.database import migrations
from adjudicator.record.database.db import Database
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet
from kiosk import create_app

NWL_WORDS = ("AA", "QI", "ZA", "JO", "XI", "OK", "EW", "CAT", "DOG", "FOX", "ZEBRA", "QUIXOTIC")
CSW_WORDS = ("AA", "QI", "ZA", "CH", "ZO", "CAT", "DOG")
NWL = "spring-nwl"
CSW = "spring-csw"
SECRET_KEY = "test-secret-key-" + "x" * 32
DETAIL_FIELDS = ("table", "round", "challenger", "player")
API_FIELDS = (
    "id",
    "verdict",
    "words",
    "word_count",
    "tournament",
    "lexicon",
    "rule",
    "consequence",
    "recorded_at",
)


@dataclass
class Setup:
    """A hall with tournaments NWL and CSW and one enrolled kiosk per tournament."""

    hall: Hall
    store: LexiconStore
    db_path: Path
    nwl: kiosks.Enrolment
    csw: kiosks.Enrolment

    def headers(self, enrolment: kiosks.Enrolment | None = None) -> dict[str, str]:
        """The Authorization header of a kiosk (default: the NWL kiosk)."""
        return {"Authorization": f"Bearer {(enrolment or self.nwl).token}"}


@pytest.fixture(name="db")
def migrated_journal(tmp_path: Path) -> Iterator[SqliteDatabase]:
    """The `db` fixture: an SQLite journal in tmp_path with every migration applied."""
    database = SqliteDatabase(str(tmp_path / "journal.sqlite3"))
    migrations.upgrade(database)
    yield database
    database.close()


def build_store(root: Path) -> LexiconStore:
    """A store holding TINY-NWL and TINY-CSW."""
    store = LexiconStore(root=root)
    store.save("TINY-NWL", WordSet.of(NWL_WORDS), description="tiny NWL-like list")
    store.save("TINY-CSW", WordSet.of(CSW_WORDS), description="tiny CSW-like list")
    return store


def build_setup(
    tmp_path: Path, rate_limit: RateLimit | None = None, db: Database | None = None
) -> Setup:
    """Lexicons, a migrated journal, two tournaments and a kiosk for each, under tmp_path."""
    store = build_store(tmp_path / "lexicons")
    db_path = tmp_path / "journal.sqlite3"
    base = SqliteDatabase(str(db_path))
    key = tmp_path / "receipt_key.pem"
    hall = Hall(store, base, rate_limit=rate_limit, key_path=key)
    hall.upgrade()
    tournaments.create(base, store, NWL, "TINY-NWL", "5-per-word", "Spring Open (NWL division)")
    tournaments.create(base, store, CSW, "TINY-CSW", "double", "Spring Open (CSW division)")
    nwl = kiosks.add(base, "table-1", NWL)
    csw = kiosks.add(base, "table-2", CSW)
    if db is not None:
        hall = Hall(store, db, rate_limit=rate_limit, key_path=key)
    return Setup(hall, store, db_path, nwl, csw)


def make_app(hall: Hall, **config) -> Flask:
    """The kiosk app on `hall`, with a fixed secret key."""
    return create_app({"HALL": hall, "SECRET_KEY": SECRET_KEY, "TESTING": True, **config})


CSRF_INPUT = re.compile(r'name="csrf_token" value="([^"]+)"')


def submit_pairing_code(client: FlaskClient, code: str):
    """Open the pairing form as a browser would, then submit `code` with the form's CSRF token.

    Returns the response to the POST /pair (302 when the code paired this client).
    """
    form = client.get("/pair").get_data(as_text=True)
    match = CSRF_INPUT.search(form)
    assert match, "no CSRF token in the pairing form"
    return client.post("/pair", data={"code": code, "csrf_token": match.group(1)})


def pair_browser(app: Flask, enrolment: kiosks.Enrolment) -> FlaskClient:
    """A test client that has redeemed the kiosk's pairing code (so holds its cookie)."""
    client = app.test_client()
    response = submit_pairing_code(client, enrolment.pairing_code)
    assert response.status_code == 302, response.get_data(as_text=True)
    return client


class FailingCommits(Database):
    """A database whose journal writes fail at commit (disk full, I/O error); reads work."""

    backend = "sqlite"

    def __init__(self, inner: SqliteDatabase):
        self.inner = inner
        self.url = inner.url
        self.attempts = 0

    @contextmanager
    def transaction(self, *, chain_lock: bool = False) -> Iterator:
        with self.inner.transaction(chain_lock=chain_lock) as cur:
            yield cur
            if chain_lock:
                self.attempts += 1
                raise sqlite3.OperationalError("disk I/O error")

    def close(self) -> None:
        self.inner.close()


def block_inserts(db_path: Path) -> None:
    """Make every INSERT into the journal fail inside SQLite itself, as a full disk would."""
    with sqlite3.connect(db_path) as connection:
        connection.execute(
            "CREATE TRIGGER refuse_writes BEFORE INSERT ON adjudications "
            "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
        )
    connection.close()


def flip_byte(path: Path, offset: int | None = None) -> None:
    """Corrupt a file in place by inverting one byte (the middle one by default)."""
    data = bytearray(path.read_bytes())
    index = len(data) // 2 if offset is None else offset
    data[index] ^= 0xFF
    path.write_bytes(bytes(data))


def compiled_file(store: LexiconStore, name: str) -> Path:
    """The .marisa file a lexicon's manifest names."""
    return store.root / store.manifest(name).compiled_file


def mask_words(text: str, words: Iterable[str]) -> str:
    """Replace each of `words` (whole words, any case) with <WORD>."""
    alternatives = "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))
    return re.sub(rf"\b(?:{alternatives})\b", "<WORD>", text, flags=re.IGNORECASE)


VOLATILE = re.compile(
    r"\d{4}-\d\d-\d\dT[\d:.]+(?:\+00:00|Z)?"  # times
    r"|\b[0-9a-f]{64}\b"  # hashes
    r'|(?<="signature": ")[A-Za-z0-9_=-]+'  # receipts' signatures (over the row's hash)
)


def mask_volatile(text: str) -> str:
    """Mask times and 64-hex hashes, which differ between any two rows."""
    return VOLATILE.sub("<X>", text)


def append_rows(db_url: str, writer: int, count: int, start=None) -> None:
    """Append `count` journal rows from a fresh connection (run in a separate process),
    once `start` (a multiprocessing Event) is set, so that the writers overlap."""
    db = SqliteDatabase(db_url)
    if start is not None:
        start.wait(30)
    for n in range(count):
        words = ("QI", "Z" + "A" * (n % 3 + 1))
        journal.append(db, **row_fields(kiosk=f"writer-{writer}", words=words))
    db.close()


def row_fields(kiosk: str = "table-1", words: tuple[str, ...] = ("QI",), **extra) -> dict:
    """Fields of a plausible challenge row for journal.append."""
    fields = dict(
        kind="challenge",
        tournament=NWL,
        kiosk=kiosk,
        lexicon_name="TINY-NWL",
        lexicon_fingerprint="f" * 64,
        lexicon_words=len(NWL_WORDS),
        rule="double",
        words=tuple(words),
        word_count=len(words),
        verdict="ACCEPTABLE",
        consequence="The play stands; the challenger loses their turn.",
    )
    fields.update(extra)
    return fields


def ok(outcome) -> str:
    """A CLI outcome that succeeded cleanly: its stdout."""
    assert outcome.exit_code == 0, outcome.stderr
    assert outcome.stderr == ""
    return outcome.stdout


def spring_kiosks(run, store, monkeypatch, *names: str) -> dict[str, str]:
    """Through the CLI: the `spring` tournament (TINY-NWL, double; TINY-CSW saved too) and the
    kiosks `names`, with no rate limit on them. Returns {kiosk: token}."""
    monkeypatch.setenv("ADJUDICATOR_KIOSK_RATE_LIMIT", "off")
    store.save("TINY-NWL", WordSet.of(NWL_WORDS))
    store.save("TINY-CSW", WordSet.of(CSW_WORDS))
    ok(run("tournament", "create", "spring", "--lexicon", "TINY-NWL", "--rule", "double"))
    return {
        name: ok(run("kiosk", "add", name, "--tournament", "spring")).splitlines()[-1]
        for name in names
    }


def judged_by_api(client: FlaskClient, token: str, words: list[str]) -> dict:
    """A challenge through the kiosk API with `token`: its 201 answer."""
    response = client.post(
        "/api/v1/adjudications", json={"words": words}, headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 201
    return response.get_json()


def refused(outcome, *fragments: str) -> str:
    """A CLI outcome refused with exit 2: nothing on stdout, the fragments on stderr."""
    assert outcome.exit_code == 2, (outcome.stdout, outcome.stderr)
    assert outcome.stdout == ""
    for fragment in fragments:
        assert fragment in outcome.stderr
    assert "Traceback" not in outcome.stderr
    return outcome.stderr
