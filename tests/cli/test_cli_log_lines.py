"""The library's log lines on the command line (real processes: `python -m adjudicator`): a
journal degraded to one copy, or a mirror withheld, is said once, by the command, never as a
log line beside the command's own message saying the same."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support.servers import prepare_home, run_cli

pytestmark = pytest.mark.slow  # a few real processes


def lines_about(text: str, *words: str) -> list[str]:
    return [line for line in text.splitlines() if any(word in line for word in words)]


@pytest.fixture
def behind(tmp_path) -> tuple[Path, dict, Path]:
    """A data home whose mirror (on `stick/`) is one row behind its own copy, as after a
    copy put back from before the last verdict: the next command drops it."""
    stick = tmp_path / "stick"
    stick.mkdir()
    env = {"ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3")}
    home = prepare_home(tmp_path / "home", env=env).path
    assert run_cli(home, "judge", "--tournament", "hall", "QI", env=env).returncode == 0
    shutil.copyfile(stick / "journal.sqlite3", tmp_path / "older.sqlite3")
    assert run_cli(home, "judge", "--tournament", "hall", "QI", env=env).returncode == 0
    shutil.copyfile(tmp_path / "older.sqlite3", stick / "journal.sqlite3")
    return home, env, stick


def test_a_journal_degraded_by_a_command_is_said_once(behind):
    home, env, _ = behind
    judged = run_cli(home, "judge", "--tournament", "hall", "QI", env=env)
    assert judged.returncode == 0 and "Recorded: adjudication #3" in judged.stdout, judged
    said = lines_about(judged.stderr, "degraded", "one copy")
    assert len(said) == 1 and said[0].startswith("Warning: journal degraded to one copy"), said
    assert judged.stderr.strip() == said[0], judged.stderr


def test_journal_status_says_the_state_once_and_no_log_line(behind):
    home, env, _ = behind
    status = run_cli(home, "journal", "status", env=env)
    assert status.returncode == 1, status
    assert len(lines_about(status.stdout, "Degraded: one copy")) == 1, status.stdout
    assert status.stderr == "", status.stderr


def test_a_command_held_for_a_missing_stick_says_why_once(behind, tmp_path):
    home, env, stick = behind
    assert run_cli(home, "journal", "resync", env=env).returncode == 0  # both copies again
    stick.rename(tmp_path / "stick-away")
    refused = run_cli(home, "judge", "--tournament", "hall", "QI", env=env)
    assert refused.returncode == 2 and refused.stdout == "", refused
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1, refused.stderr
    assert lines[0].startswith("Error: JUDGING HELD: The journal's mirror"), lines
    assert "is missing" in lines[0] and "confirm-alone --reason TEXT" in lines[0]
