"""Shared fixtures: an isolated data home, tiny compiled lexicons, a CLI runner, a .dwg encoder."""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from adjudicator.cli import cli
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

SHARED_LEXICONS = Path(__file__).resolve().parents[2] / "shared" / "lexicons"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--screenshots",
        action="store_true",
        help="write the README's pictures to docs/images (make screenshots)",
    )


# A tiny lexicon: a few real two- and three-letter words and some longer ones.
TINY_WORDS = (
    "AA",
    "AB",
    "QI",
    "ZA",
    "JO",
    "XI",
    "OK",
    "EW",
    "CAT",
    "DOG",
    "FOX",
    "ZEBRA",
    "QUIXOTIC",
    "RETAINERS",
    "ANTIDISESTABLISHMENTARIANISM",  # 28 letters: kept, never playable
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


def encode_dwg(words: Iterable[str]) -> bytes:
    """Encode words as a Zyzzyva word graph (a plain tree; sibling lists breadth first)."""
    root: dict = {}
    for word in words:
        node = root
        for letter in word:
            node = node.setdefault(letter, {})
        node[""] = {}
    nodes: list[list[int]] = []
    pending = [(0, root)]
    while pending:
        parent, subtree = pending.pop(0)
        letters = sorted(key for key in subtree if key)
        if not letters:
            continue
        start = len(nodes) + 1
        if parent:
            nodes[parent - 1][3] = start
        for offset, letter in enumerate(letters):
            child = subtree[letter]
            nodes.append([ord(letter), int("" in child), int(offset == len(letters) - 1), 0])
            pending.append((start + offset, child))
    packed = [letter << 24 | end << 23 | last << 22 | child for letter, end, last, child in nodes]
    return struct.pack(f"<I{len(packed)}I", len(packed), *packed)


def mask(text: str, words: Iterable[str]) -> str:
    """Replace each of `words` (as whole words, any case) with a placeholder."""
    alternatives = "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))
    return re.sub(rf"\b(?:{alternatives})\b", "<WORD>", text, flags=re.IGNORECASE)
