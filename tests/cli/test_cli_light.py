"""A light command line: each command loads only what it uses, and the plain forms of `judge`
run without click yet print exactly what the click command prints."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from adjudicator.cli import cli, fast_judge
from adjudicator.cli.group import COMMANDS
from adjudicator.cli.judging import NOT_RECORDED

HEAVY = ("flask", "gunicorn", "psycopg", "argon2", "segno", "werkzeug", "jinja2")


def loaded_modules(home, *args: str, stdin: str = "") -> set[str]:
    """The top-level modules a fresh `adjudicator ARGS` process has imported when it exits."""
    probe = (
        "import atexit, sys\n"
        "report = lambda: print('MODULES', ' '.join(sorted(sys.modules)), file=sys.stderr)\n"
        "atexit.register(report)\n"
        "from adjudicator.cli import main\n"
        f"sys.argv = ['adjudicator', *{list(args)!r}]\n"
        "main()\n"
    )
    env = {**os.environ, "ADJUDICATOR_HOME": str(home)}
    env.pop("ADJUDICATOR_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", probe], input=stdin, capture_output=True, text=True, env=env
    )
    line = [ln for ln in done.stderr.splitlines() if ln.startswith("MODULES ")][-1]
    return {name.split(".")[0] for name in line.split()[1:]}


def test_judge_loads_neither_click_nor_the_web_nor_the_database(home, tiny):
    modules = loaded_modules(home, "judge", "--lexicon", "TINY", "QI", "ZA")
    assert "marisa_trie" in modules
    assert not modules & {"click", "sqlite3", *HEAVY}


@pytest.mark.parametrize(
    "args",
    [
        ("lexicon", "list"),
        ("tournament", "list"),
        ("journal", "verify"),
        ("judge", "--help"),
        ("flags",),
        ("ruling", "--help"),
    ],
)
def test_commands_that_need_no_web_server_load_none_of_it(home, tiny, args):
    assert not loaded_modules(home, *args) & set(HEAVY)


def test_serve_loads_the_web_app(home, tiny):
    assert "flask" in loaded_modules(home, "serve", "--get", "/healthz")


def test_every_command_is_registered_and_loads(run):
    assert sorted(COMMANDS) == sorted(cli.list_commands(None))
    for name in COMMANDS:
        assert cli.get_command(None, name).name == name


@pytest.mark.parametrize(
    "args,stdin",
    [
        (["--lexicon", "TINY", "qi", "ZA"], ""),
        (["-l", "TINY", "QI", "ZZ"], ""),
        (["--lexicon=TINY", "--rule", "single", "QI", "ZZZ"], ""),
        (["-l", "TINY", "-r", "5-per-word", "--json", "CAT", "DOG"], ""),
        (["CAT", "-l", "TINY", "--rule=10-per-turn", "DOG"], ""),
        (["-l", "TINY", "-"], "qi, za\njo\n"),
        (["-l", "TINY"], ""),
        (["-l", "TINY", "Q1"], ""),
        (["-l", "TINY", "QI", "ZA", "JO", "XI", "AA", "AB", "CAT", "DOG", "FOX"], ""),
        (["-l", "NOPE", "QI"], ""),
        (["-l", "../etc", "QI"], ""),
        (["QI"], ""),
        (["-l", "TINY", "--rule", "bogus", "QI"], ""),
        (["-l", "TINY", "-r", "7-per-word", "QI", "ZZ"], ""),
        (["-l", "TINY", "-r", "51-per-word", "QI"], ""),
        (["-l", "TINY", "-r", "dingle", "QI"], ""),
        (["-t", "spring", "QI"], ""),
        (["-l", "TINY", "--table", "3", "QI"], ""),
        (["-l", "TINY", "--help"], ""),
        (["-l", "TINY", "-l", "TINY", "QI"], ""),
        (["-l"], ""),
    ],
)
def test_the_fast_path_says_exactly_what_the_click_command_says(home, tiny, args, stdin):
    result = CliRunner().invoke(cli, ["judge", *args], input=stdin, prog_name="adjudicator")
    out, err = io.StringIO(), io.StringIO()
    code = fast_judge.run(args, io.StringIO(stdin), out, err)
    if code is None:  # not a plain form: click handles it, as it always did
        assert fast_judge.parse(args) is None
        return
    assert (code, out.getvalue(), err.getvalue()) == (
        result.exit_code,
        result.stdout,
        result.stderr,
    )


def test_the_fast_path_is_what_the_console_script_runs(home, tiny):
    env = {**os.environ, "ADJUDICATOR_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "adjudicator", "judge", "-l", "TINY", "--json", "QI", "ZZ"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 1 and done.stderr == NOT_RECORDED + "\n"
    assert json.loads(done.stdout)["verdict"] == "UNACCEPTABLE"
