"""`adjudicator kiosk sheet` in-process: the file it writes, what it says, and its refusals
(exit 2, a message saying what to type, nothing written)."""

from __future__ import annotations

import os
import re

import pytest


@pytest.fixture
def tournament(run, tiny, monkeypatch, tmp_path):
    monkeypatch.delenv("ADJUDICATOR_PUBLIC_URL", raising=False)
    monkeypatch.delenv("ADJUDICATOR_BIND", raising=False)
    monkeypatch.chdir(tmp_path)
    created = run("tournament", "create", "open", "--lexicon", "TINY", "--rule", "double")
    assert created.exit_code == 0, created.stderr
    return "open"


def test_the_sheet_is_written_here_by_default_and_says_it_is_not_https(run, tournament, tmp_path):
    done = run("kiosk", "sheet", "--tournament", tournament, "--tables", "1-3,5")
    assert done.exit_code == 0, done.stderr
    path = tmp_path / "pairing-sheet-open.html"
    assert f"Wrote {path.name}: 4 table(s) of open (4 kiosk(s) enrolled, 0 given a new code)" in (
        done.stdout
    )
    assert "not HTTPS" in done.stdout and "adjudicator hall" in done.stdout
    assert os.stat(path).st_mode & 0o777 == 0o600
    page = path.read_text()
    assert re.findall(r'id="table-(\d+)"', page) == ["1", "2", "3", "5"]
    listed = run("kiosk", "list").stdout
    assert "open table 5" in listed and "not paired" in listed
    again = run("kiosk", "sheet", "--tournament", tournament, "--tables", "5-6", "-o", "b.html")
    assert "(1 kiosk(s) enrolled, 1 given a new code)" in again.stdout
    pair = run("kiosk", "pair", "open table 5")
    assert "until" in pair.stdout and "UTC" in pair.stdout  # a code by hand: 24 hours


@pytest.mark.parametrize(
    "args, says",
    [
        (("--tables", "3-1"), "the smaller number first"),
        (("--tables", "one"), "such as 1-20"),
        (("--tables", "1-2", "--tournament", "nope"), "No tournament 'nope'"),
    ],
)
def test_refusals_exit_2_and_write_nothing(run, tournament, tmp_path, args, says):
    argv = ["kiosk", "sheet", *args]
    if "--tournament" not in args:
        argv += ["--tournament", tournament]
    done = run(*argv)
    assert done.exit_code == 2
    assert says in done.stderr
    assert not list(tmp_path.glob("*.html"))
