"""Shared fixtures: an isolated data home, tiny compiled lexicons, a CLI runner, a .dwg encoder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from adjudicator.cli import cli
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.director import fast_hashes  # noqa: F401 - fixtures for every test module
from support.hall import migrated_journal  # noqa: F401
from support.postgres import own_postgres, postgres  # noqa: F401
from support.words import TINY_WORDS


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--screenshots",
        action="store_true",
        help="write the README's pictures to docs/images (make screenshots)",
    )


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
