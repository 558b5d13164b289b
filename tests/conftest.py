"""Shared fixtures, written once (their helpers are in tests/support/).

- A data home, tiny compiled lexicons, the CLI run in-process: `home`, `store`, `tiny`, `run`.
- A journal database on each backend: `db_url`, `migrated_db` (SQLite, then PostgreSQL), and
  a hall's receipt key made in tmp_path, by its path: `key_path`;
  a real PostgreSQL: `postgres` (shared, fresh databases), `own_postgres` (private).
- A hall in-process: `setup`, its web app `app` and test `client`, the app with staff
  `staffed`; over the real lists, each rulebook's lists built once a session: `rulebook_lists`,
  and a hall over them with a journal of its own: `rulebooks_hall` (support.rulebook_lexicons),
  the CLI on that hall: `rulebooks_cli`.
- The staff's cheap password hashes: `fast_hashes` (a module asks for it); a migrated SQLite
  journal in tmp_path: `db` (support.hall.migrated_journal).
- A served app over a module's own `home`: `server`; headless Chromium: `browser`; a page at
  a viewport: `new_page`; a page paired as a kiosk: `paired`; WebKit through Selenium: `webkit`.
- The hall's network in namespaces of the test's own: `hall_network` (support.netns), and a
  unique hall name: `hall_name`. Every test is watched: an mDNS datagram leaving the machine
  during it fails it under CI, and is a warning elsewhere (support.mdns_watch).

Markers (setup.cfg): a test that takes a PostgreSQL fixture (or the PostgreSQL side of `db_url`)
is marked `postgres`, one that takes a browser fixture `browser`, one that takes a build of the
real lists `slow`, by pytest_collection_modifyitems; modules mark the rest. `make check` runs
what none of them marks.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from adjudicator.cli import cli
from adjudicator.record.backends import connect
from adjudicator.record.database import migrations
from adjudicator.record.journal import receipt_key
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support import mdns_watch, rulebook_lexicons, servers
from support.browser import browser_missing_reason, launched_chromium, open_page, pair_page
from support.director import Staffed, build_staffed, fast_hashes  # noqa: F401 - fixtures
from support.hall import Setup, build_setup, make_app, migrated_journal  # noqa: F401
from support.mdns_watch import MdnsWatch
from support.netns import hall_network  # noqa: F401 - fixture
from support.postgres import own_postgres, postgres  # noqa: F401
from support.running_hall import hall_name  # noqa: F401 - fixture
from support.webkit import webkit_driver, webkit_missing_reason, xvfb_display
from support.words import TINY_WORDS


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--screenshots",
        action="store_true",
        help="write the README's pictures to docs/images (make screenshots)",
    )


POSTGRES_FIXTURES = {"postgres", "own_postgres"}
BROWSER_FIXTURES = {"browser", "new_page", "paired", "webkit"}
# Module-wide builds of the big real lists (tests/words, tests/cli): seconds each.
SLOW_FIXTURES = {"real", "real_sets", "real_home", "editions", "rulebook_lists"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `postgres` every test that takes a PostgreSQL fixture or runs on the PostgreSQL
    side of `db_url`, `browser` every test that takes a browser fixture, and `slow` every test
    that takes a build of the real lists. (Modules mark the rest with `pytestmark`.)"""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("db_url") if callspec else None
        if names & POSTGRES_FIXTURES or backend == "postgresql":
            item.add_marker(pytest.mark.postgres)
        if names & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        if names & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def _no_real_data_home(tmp_path_factory: pytest.TempPathFactory):
    """No test writes the data home of whoever runs them: a test with no `home` of its own
    (a hall built in-process, whose pairing codes are keyed under the data home's receipt key)
    gets one data home for the whole session."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ADJUDICATOR_HOME", str(tmp_path_factory.mktemp("session-home")))
        yield


@pytest.fixture(scope="session", autouse=True)
def _mdns_watch():
    """One watch for the session, from before any module's fixtures (support.mdns_watch); None
    where no packet socket can be opened (not root: tests/hall/test_netns.py says so)."""
    try:
        watch = MdnsWatch()
    except OSError:
        yield None
        return
    with watch:
        yield watch
        mdns_watch.report(watch.take(), "after the last test (a module's fixtures ending)")


@pytest.fixture(autouse=True)
def _no_mdns_leaves_the_machine(_mdns_watch):
    """An mDNS datagram that left one of the machine's interfaces (loopback aside) during a test,
    its fixtures included, fails it under CI and is a warning elsewhere (mdns_watch.report)."""
    yield
    if _mdns_watch is not None:
        mdns_watch.report(_mdns_watch.take(), "during the test")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty journal database on each backend: a SQLite file, then a new database on
    the session's PostgreSQL (marked `postgres` by pytest_collection_modifyitems)."""
    if request.param == "sqlite":
        return str(tmp_path / "journal.sqlite3")
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture
def migrated_db(db_url: str):
    """db_url connected and upgraded to the newest schema; closed at the end."""
    database = connect(db_url)
    migrations.upgrade(database)
    yield database
    database.close()


@pytest.fixture
def children_started(monkeypatch) -> list:
    """Each child process the program starts (adjudicator/children.py), in order, each with the
    CPU priority it was started at (`.priority`)."""
    from adjudicator import children

    made: list = []
    start = children.start

    def spy(*args, **kwargs):
        child = start(*args, **kwargs)
        if child is not None:  # its CPU priority as started (it has barely begun)
            child.priority = os.getpriority(os.PRIO_PROCESS, child.pid)
        made.append(child)
        return child

    monkeypatch.setattr(children, "start", spy)
    return made


@pytest.fixture
def key_path(tmp_path: Path) -> Path:
    """A hall's receipt key, made in tmp_path/keys: its path."""
    path = tmp_path / "keys" / "receipt_key.pem"
    receipt_key.load_or_create(path)
    return path


@pytest.fixture(scope="session")
def rulebook_lists(tmp_path_factory: pytest.TempPathFactory) -> LexiconStore:
    """Every rulebook's lists (and others) built from the real lists, once a session: the
    builds take seconds each (support.rulebook_lexicons; skipped when the lists are missing)."""
    return rulebook_lexicons.build(tmp_path_factory.mktemp("rulebook-lists"))


@pytest.fixture
def rulebooks_hall(
    request: pytest.FixtureRequest, rulebook_lists, tmp_path: Path
) -> rulebook_lexicons.RulebookHall:
    """A hall over `rulebook_lists` (read only) with its own journal, director and judges
    (cheap password hashes)."""
    request.getfixturevalue("fast_hashes")
    return rulebook_lexicons.rulebook_hall(rulebook_lists, tmp_path)


@pytest.fixture
def rulebooks_cli(rulebooks_hall, run, home: Path, monkeypatch: pytest.MonkeyPatch):
    """`run` (the CLI in-process) on `rulebooks_hall`'s journal, its lists linked into `home`."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "lexicons").symlink_to(rulebooks_hall.store.root)
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", rulebooks_hall.db.url)
    return run


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Setup:
    """A hall in-process (support.hall.build_setup): lexicons, a migrated journal, the NWL and
    CSW tournaments with a kiosk each; ADJUDICATOR_HOME in tmp_path."""
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    return build_setup(tmp_path)


@pytest.fixture
def app(setup: Setup):
    """The web app over that hall, for Flask's test client."""
    return make_app(setup.hall)


@pytest.fixture
def client(app):
    """Flask's test client of that app (a browser with no kiosk paired)."""
    return app.test_client()


@pytest.fixture
def staffed_cli(run, staffed, monkeypatch):
    """`run` (the CLI in-process) on the `staffed` hall's journal and lexicons."""
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", staffed.db.url)
    monkeypatch.setenv("ADJUDICATOR_HOME", str(staffed.setup.store.root.parent))
    return run


@pytest.fixture
def staffed(request: pytest.FixtureRequest, tmp_path: Path) -> Staffed:
    """The web app in-process over a hall with two paired kiosks (NWL and CSW tournaments), the
    director's password and judges alice and bob: .director() and .judge() are test clients
    signed in, .kiosk_browser() one paired, .challenge(words) a challenge through the hall."""
    request.getfixturevalue("fast_hashes")
    return build_staffed(tmp_path)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data home for this test; settings that could leak in from the shell are cleared."""
    home = tmp_path / "home"
    monkeypatch.setenv("ADJUDICATOR_HOME", str(home))
    for name in ("DEFAULT_LEXICON", "DEFAULT_RULE", "DATABASE_URL"):
        monkeypatch.delenv(f"ADJUDICATOR_{name}", raising=False)
    return home


@pytest.fixture
def store(home: Path) -> LexiconStore:
    """The lexicon store under the isolated home, as the CLI sees it."""
    return LexiconStore()


@pytest.fixture
def tiny(store: LexiconStore):
    """A compiled lexicon TINY holding TINY_WORDS, opened with mmap."""
    store.save("TINY", WordSet.of(TINY_WORDS), description="tiny test lexicon")
    return store.open("TINY")


@dataclass
class Outcome:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def run(home: Path):
    """Run the CLI in-process: run("judge", "-l", "TINY", "QI") -> exit code, stdout, stderr."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Outcome:
        result = runner.invoke(cli, list(args), input=input, prog_name="adjudicator")
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception  # a traceback a user would see: fail the test loudly
        return Outcome(result.exit_code, result.stdout, result.stderr)

    return invoke


# ---------- the served app and the browsers (tests/kiosk/*_browser.py and friends) ----------


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, home):
    """`adjudicator serve` over the module's own `home` (a module-scoped data home the module
    prepares), with the module's SERVER_SETTINGS (e.g. {"verdict_seconds": "300"}) and
    SERVER_WORKERS (1 unless it says); stopped at the end of the module."""
    settings = getattr(request.module, "SERVER_SETTINGS", {})
    env = {f"ADJUDICATOR_{name.upper()}": value for name, value in settings.items()}
    workers = getattr(request.module, "SERVER_WORKERS", 1)
    running = servers.Server(home, workers=workers, env=env).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium under Playwright for the module (skipped, saying why, if missing)."""
    reason = browser_missing_reason()
    if reason:
        pytest.skip(reason)
    with launched_chromium() as chromium:
        yield chromium


@pytest.fixture
def new_page(browser):
    """new_page(viewport) -> a page in a fresh context (a 1080p screen unless given); an error
    in any page (an exception, or an error on the console) fails the test."""
    pages, errors = [], []

    def make(viewport: dict | None = None):
        page = open_page(browser, viewport, timeout=8000)
        pages.append(page)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on(
            "console",
            lambda msg: (
                errors.append(msg.text)
                if msg.type == "error" and "Failed to load resource" not in msg.text
                else None
            ),
        )
        return page

    yield make
    for page in pages:
        page.context.close()
    assert not errors, f"errors in the page: {errors}"


@pytest.fixture
def paired(home, server, new_page):
    """paired(tournament, on=server, viewport=None) -> a new_page paired as a new kiosk of the
    tournament, through the pairing link as printed (the code after '#')."""

    def pair(tournament: str = "open", on=None, viewport: dict | None = None):
        on = on or server
        code = home.pairing_code(f"kiosk-{uuid.uuid4().hex[:8]}", tournament)
        return pair_page(new_page(viewport), on.url, code, link="/pair#")

    return pair


@pytest.fixture(scope="module")
def webkit_display():
    """A private Xvfb display for WebKit; skipped when WebKit is missing, failed under CI."""
    reason = webkit_missing_reason()
    if reason and not os.environ.get("CI"):
        pytest.skip(reason)
    assert reason is None, reason  # under CI, a missing WebKit fails rather than skips
    with xvfb_display() as name:
        yield name


@pytest.fixture
def webkit(webkit_display: str):
    """A Selenium session in WebKitGTK (the engine of iPads) on that display, quit at the end."""
    with webkit_driver(webkit_display) as driver:
        yield driver
