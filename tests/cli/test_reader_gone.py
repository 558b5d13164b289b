"""A command whose reader closes its output early (`adjudicator tsh show open | head`,
`kiosk list | head`) exits quietly: no "Broken pipe", no traceback, exit 141 as the shell
reports for `cat` in the same place (issue 44). The program runs as its own process, writing
into a real pipe: one whose reader is gone before the first line, and one whose reader takes
a line, as `head -1` does, and goes while the command still has pages to write."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from adjudicator.cli import READER_GONE_EXIT

from support import tsh_files
from support.servers import cli, prepare_home


@pytest.fixture(scope="module")
def linked(tmp_path_factory) -> Path:
    """A data home whose tournament `hall` is linked to a TSH event of one division of 200
    players and 24 rounds (2,400 games: `tsh show hall --all` writes about 140 kB, twice what a
    pipe and its writer's buffer hold)."""
    made = prepare_home(tmp_path_factory.mktemp("reader") / "home")
    event = tsh_files.make_event({"A": 200}, 24, 23)
    folder = tsh_files.write_folder(made.path.parent / "event", event)
    cli(made.path, "tsh", "link", "hall", str(folder))
    return made.path


def command(home: Path, *args: str) -> tuple[list[str], dict]:
    return [sys.executable, "-m", "adjudicator", *args], {
        **os.environ,
        "ADJUDICATOR_HOME": str(home),
    }


def into_a_closed_pipe(home: Path, *args: str) -> subprocess.CompletedProcess:
    """Run the command with its stdout a pipe whose reader closed before it wrote a byte."""
    read, write = os.pipe()
    os.close(read)
    argv, env = command(home, *args)
    try:
        return subprocess.run(argv, stdout=write, stderr=subprocess.PIPE, env=env, timeout=120)
    finally:
        os.close(write)


def read_one_line_and_go(home: Path, *args: str) -> tuple[bytes, int, bytes]:
    """`adjudicator ARGS | head -1`: the first line, then the reader closes the pipe."""
    argv, env = command(home, *args)
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as run:
        first = run.stdout.readline()
        run.stdout.close()
        error = run.stderr.read()
        return first, run.wait(timeout=120), error


@pytest.mark.parametrize(
    "args",
    [
        ("tsh", "show", "hall"),
        ("tsh", "show", "hall", "--all", "--json"),
        ("kiosk", "list"),
        ("journal", "export"),
        ("tournament", "list"),
        ("judge", "--lexicon", "TINY", "QI"),  # the fast path, without click
        ("--help",),  # printed while click parses, before any command runs
        ("kiosk", "--help"),
    ],
    ids=" ".join,
)
def test_a_command_whose_reader_is_gone_says_nothing(linked, args):
    done = into_a_closed_pipe(linked, *args)
    assert done.stderr.decode().replace(NOT_RECORDED, "") == "", done.stderr.decode()
    assert done.returncode == READER_GONE_EXIT


NOT_RECORDED = (  # what `judge --lexicon` says on stderr before it prints the verdict
    "Not recorded: a look-up with --lexicon is not journaled. Use --tournament SLUG to judge a "
    "challenge and record it.\n"
)


def test_tsh_show_into_head_gives_its_first_line_and_says_nothing_more(linked):
    first, code, error = read_one_line_and_go(linked, "tsh", "show", "hall", "--all")
    assert first.startswith(b"A  round 1  table ")
    assert error == b"", error.decode()
    assert code == READER_GONE_EXIT


def test_a_reader_that_takes_everything_gets_the_commands_own_exit_code(linked):
    argv, env = command(linked, "judge", "--lexicon", "TINY", "QI", "QX")
    done = subprocess.run(argv, capture_output=True, env=env, timeout=60)
    assert done.returncode == 1  # UNACCEPTABLE, as ever
    assert b"UNACCEPTABLE" in done.stdout
