"""Input a player or a careless form can send, against a real server (gunicorn): formulas that
would run in the director's spreadsheet, titles and names that lie, and requests that used to
answer 500. Each answer is 400-class with a message, and nothing reaches the journal."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterator

import pytest

from support.attacks import DIRECTOR_PASSWORD, cli_run, director, module_home
from support.http import Client
from support.postgres import PostgresServer, create_database, skip_reason
from support.servers import PreparedHome, Server, cli, prepare_home

pytestmark = pytest.mark.slow  # real servers (gunicorn) attacked under load

DB_URL = "ADJUDICATOR_DATABASE_URL"

FORMULAS = {
    "challenger": '=HYPERLINK("http://evil.example","x")',
    "player": "@SUM(1+1)",
    "table": "+1+1",
    "round": "-2+3",
}
LIES = {
    "bidi override": "Spring\u202e(LWN) nepO",
    "NUL": "Spring\x00Open",
    "ANSI escape": "Spring \x1b[31mOpen\x1b[0m",
    "zero-width": "Spring\u200bOpen",
    "too long": "S" * 101,
}


home = module_home("attack-inputs")
SERVER_WORKERS = 2  # `server` (tests/conftest.py) over this home


def journal_rows(home: PreparedHome) -> int:
    with sqlite3.connect(home.path / "journal.sqlite3") as connection:
        (count,) = connection.execute("SELECT COUNT(*) FROM adjudications").fetchone()
    connection.close()
    return count


# ---------- spreadsheet formulas ----------


def test_formulas_from_a_kiosk_reach_no_csv_as_formulas(home, server):
    status, answer = server.adjudicate(["QI"], **FORMULAS)
    assert status == 201 and answer["challenger"] == FORMULAS["challenger"]
    downloaded = director(server.url).get("/director/journal.csv")
    assert downloaded.status == 200
    exported = cli(home.path, "journal", "export", "--format", "csv")
    for text in (downloaded.body, exported):
        rows = [r for r in csv.DictReader(io.StringIO(text)) if r["id"] == str(answer["id"])]
        assert len(rows) == 1
        for field, value in FORMULAS.items():
            assert rows[0][field] == "'" + value, (field, rows[0][field])
        assert rows[0]["verdict"] == "ACCEPTABLE" and rows[0]["words"] == "QI"
    # the journal and the JSON export keep the text as recorded, and the chain holds
    as_json = json.loads(cli(home.path, "journal", "export", "--format", "json"))
    recorded = next(row for row in as_json if row["id"] == answer["id"])
    assert {field: recorded[field] for field in FORMULAS} == FORMULAS
    assert "Journal intact" in cli(home.path, "journal", "verify")  # exits 0, or cli() fails


# ---------- titles and names that lie ----------


SHELL_LIES = {k: v for k, v in LIES.items() if "\x00" not in v}  # no argv can hold a NUL


@pytest.mark.parametrize("lie", SHELL_LIES.values(), ids=SHELL_LIES.keys())
def test_a_lying_tournament_title_is_refused_by_the_cli(home, lie):
    done = cli_run(
        home,
        "tournament",
        "create",
        "liar",
        "--lexicon",
        "TINY",
        "--rule",
        "double",
        "--title",
        lie,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "tournament title" in done.stderr and "Traceback" not in done.stderr
    set_title = cli_run(home, "tournament", "set", "hall", "--title", lie)
    assert set_title.returncode == 2 and "tournament title" in set_title.stderr


def test_lying_names_and_titles_are_refused_by_the_pages(home, server):
    client = director(server.url)
    token = client.csrf("/director/tournaments")
    for lie in LIES.values():
        form = {"slug": "liar", "lexicon": "TINY", "rule": "double", "title": lie}
        page = client.post_form("/director/tournaments", form, token)
        if "\x00" in lie:  # refused before any view (see the NUL tests below)
            assert page.status == 400 and "NUL character" in page.body
            continue
        assert page.status == 302
        shown = client.get("/director/tournaments").body
        assert "tournament title" in shown and "liar" not in shown.split("<tbody")[-1]
    kiosk = client.post_form(
        "/director/kiosks", {"name": "table\u202e1", "tournament": "hall"}, token
    )
    assert kiosk.status == 302 and "Invalid kiosk name" in client.get("/director/kiosks").body
    listing = cli(home.path, "tournament", "list", "--json")
    assert [t["slug"] for t in json.loads(listing)] == ["hall"]


@pytest.mark.parametrize("field", ["table", "round", "challenger", "player"])
def test_a_lying_detail_from_a_kiosk_gets_400_and_no_verdict(home, server, field):
    before = journal_rows(home)
    status, answer = server.adjudicate(["QI"], **{field: "Bob\u202e"})
    assert status == 400 and "verdict" not in answer and "invisible" in answer["error"]
    status, answer = server.adjudicate(["QI"], **{field: "x" * 41})
    assert status == 400 and "verdict" not in answer
    assert journal_rows(home) == before


# ---------- what used to answer 500 ----------


def raw_post(server: Server, body: bytes):
    client = Client(server.url)
    return client.request(
        "POST",
        "/api/v1/adjudications",
        body=body,
        **{"Authorization": f"Bearer {server.home.token}", "Content-Type": "application/json"},
    )


def test_deep_nesting_and_duplicated_keys_get_400_and_no_verdict(home, server):
    before = journal_rows(home)
    nested = raw_post(server, b"[" * 4_000 + b"]" * 4_000)  # under the API's 8 KB
    assert nested.status == 400 and "nested too deeply" in json.loads(nested.body)["error"]
    deep_words = raw_post(server, b'{"words": ' + b"[" * 4_000 + b"]" * 4_000 + b"}")
    assert deep_words.status == 400
    too_big = raw_post(server, b"[" * 10_000 + b"]" * 10_000)  # refused from its head (issue 42)
    assert too_big.status == 413 and "at most 8 KB" in json.loads(too_big.body)["error"]
    twice = raw_post(server, b'{"words": ["QZ"], "words": ["QI"]}')
    assert twice.status == 400 and "'words' twice" in json.loads(twice.body)["error"]
    assert "verdict" not in twice.body
    assert journal_rows(home) == before
    assert "Traceback" not in server.read_log()


@pytest.mark.parametrize(
    "path",
    [
        "/judge/case?id=%C2%B2",  # a superscript two: a digit to str.isdigit, not to int()
        "/judge/case?id=%D9%A3",  # an Arabic-Indic three
        "/judge/case?id=12345678901234567890",
        "/director/journal.csv?since=garbage",
        "/director/journal.csv?until=2024-13-45",
        "/director/journal?since=garbage",
    ],
)
def test_odd_ids_and_filters_get_a_400_class_answer(server, path):
    reply = director(server.url).get(path)
    assert 300 <= reply.status < 500, (path, reply.status)
    assert "Traceback" not in reply.body and "Internal error" not in reply.body


def test_odd_ids_in_forms_get_a_400_class_answer(server):
    client = director(server.url)
    token = client.csrf("/director/flags")
    for path, form in (
        ("/director/flags/12345678901234567890/ruling", {"verdict": "ACCEPTABLE", "reason": "x"}),
        ("/judge/second-opinion", {"id": "12345678901234567890", "words": "QI"}),
        ("/judge/second-opinion", {"id": "\u0663", "words": "QI"}),
    ):
        reply = client.post_form(path, form, token)
        assert 300 <= reply.status < 500, (path, reply.status, reply.body[:300])
    assert "Traceback" not in server.read_log()


# ---------- NUL characters, and the journal gone during a download (PostgreSQL) ----------


@pytest.fixture(scope="module")
def pg_home(tmp_path_factory) -> Iterator[tuple[PreparedHome, PostgresServer]]:
    """A served home whose journal is a PostgreSQL cluster of its own (it is stopped here)."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    pg = PostgresServer().start()
    try:
        url = create_database(pg.url)
        home = prepare_home(tmp_path_factory.mktemp("attack-pg") / "home", env={DB_URL: url})
        cli(home.path, "director", "set-password", "--password-stdin", env=home.env,
            stdin=DIRECTOR_PASSWORD + "\n")  # fmt: skip
        yield home, pg
    finally:
        pg.remove()


@pytest.mark.postgres  # a PostgreSQL cluster of its own
def test_nul_characters_get_400_on_postgresql_too(pg_home):
    home, _ = pg_home
    with Server(home) as server:
        client = director(server.url)
        token = client.csrf("/director/kiosks")
        for path in (
            "/director/journal?kiosk=a%00b",
            "/director/journal?tournament=%00",
            "/director/journal.csv?kiosk=%00",
            "/director/kiosks/k%00/pair",
        ):
            reply = client.get(path)
            assert reply.status == 400 and "NUL character" in reply.body, (path, reply.status)
        for path, form in (
            ("/director/alarms/acknowledge", {"kiosk": "k\x001", "row_id": "1"}),
            ("/director/kiosks", {"name": "table\x001", "tournament": "hall"}),
            ("/director/kiosks/k1/move", {"tournament": "\x00"}),
        ):
            reply = client.post_form(path, form, token)
            assert reply.status == 400 and "NUL character" in reply.body, (path, reply.status)
        guest = Client(server.url, "127.0.0.7")
        signing_in = guest.sign_in("director\x00", "x")
        paired = guest.post_form("/pair", {"code": "ABC\x00"}, guest.csrf("/pair"))
        assert signing_in.status == 400 and paired.status == 400
        assert client.get("/director/journal.csv").status == 200
        log = server.read_log()
        assert "Traceback" not in log and '" 5' not in log, log[-2000:]


@pytest.mark.postgres  # a PostgreSQL cluster of its own
def test_the_journal_gone_before_a_csv_download_is_503_not_500(pg_home):
    """(The session's look-up meets the outage first; the download's first rows are also read
    before its answer starts, so a failure there is a 503 rather than a cut stream.)"""
    home, pg = pg_home
    with Server(home) as server:
        client = director(server.url)
        assert client.get("/director/journal.csv").status == 200
        pg.stop("immediate")
        try:
            reply = client.get("/director/journal.csv")
            assert reply.status == 503 and "text/csv" not in reply.headers["Content-Type"]
        finally:
            pg.start()
        assert "Error handling request" not in server.read_log()


def test_a_reissue_names_the_challenge_it_replaces_in_ascii_digits(home, server):
    status, first = server.adjudicate(["QI"], table="7", round="3", challenger="Ann")
    assert status == 201
    before = journal_rows(home)
    arabic = "".join(chr(0x0660 + int(d)) for d in str(first["id"]))  # int() would read it
    for odd in (arabic, "\u00b2", "9" * 25, -first["id"], True):
        status, answer = server.adjudicate(
            ["QI", "ZA"], table="7", round="3", challenger="Ann", replaces=odd
        )
        assert status == 400 and "verdict" not in answer, (odd, answer)
        assert "replaces must be the number of the challenge" in answer["error"]
    assert journal_rows(home) == before
    status, answer = server.adjudicate(
        ["QI", "ZA"], table="7", round="3", challenger="Ann", replaces=str(first["id"])
    )
    assert status == 201 and answer["words"] == ["QI", "ZA"]
