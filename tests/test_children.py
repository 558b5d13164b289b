"""The program's child processes (adjudicator/children.py): started as `python -P -m`, at the
lowest CPU priority when asked (a director's job: every verdict goes first), none where no
program can be started, and their one line decoded or not believed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from adjudicator import children

SLEEPER = ("timeit", "-n", "1", "-r", "1", "import time; time.sleep(30)")


def ended(child: subprocess.Popen) -> None:
    child.kill()
    child.wait()
    child.stdout.close()


@pytest.mark.parametrize("lowest, priority", [(True, children.LOWEST), (False, 0)])
def test_a_directors_child_runs_at_the_lowest_priority(lowest, priority):
    assert os.getpriority(os.PRIO_PROCESS, 0) == 0  # this process: the usual priority
    child = children.start(*SLEEPER, lowest=lowest)
    try:
        assert os.getpriority(os.PRIO_PROCESS, child.pid) == priority
    finally:
        ended(child)


def test_the_child_is_the_program_run_with_minus_p(tmp_path, monkeypatch):
    (tmp_path / "timeit.py").write_text("print('a module of the working folder')\n")
    monkeypatch.chdir(tmp_path)  # -P: never imported instead of the one named
    child = children.start("timeit", "-n", "1", "-r", "1", "pass")
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0 and b"loop" in out and b"working folder" not in out


@pytest.mark.parametrize("errors", [False, True, "file"])
def test_a_childs_errors_are_dropped_piped_or_kept_in_a_file(tmp_path, errors):
    kept = (tmp_path / "errors").open("w+b") if errors == "file" else None
    child = children.start("timeit", "-n", "1", "-r", "1", "1/0", errors=kept or errors)
    _, piped = child.communicate(timeout=60)
    assert child.returncode != 0
    if errors is True:
        assert b"ZeroDivisionError" in piped
    else:
        assert piped is None
    if kept is not None:
        kept.seek(0)
        assert b"ZeroDivisionError" in kept.read()
        kept.close()


@pytest.mark.parametrize("program", [None, "", "/nonexistent/python"])
def test_no_child_where_no_program_can_be_started(monkeypatch, program):
    monkeypatch.setattr(sys, "executable", program)
    assert children.start(*SLEEPER, lowest=True) is None


def test_lowering_a_child_that_has_ended_is_no_error():
    child = children.start("timeit", "-n", "1", "-r", "1", "pass")
    child.stdout.read()  # it has ended: not yet reaped
    children.lower(child)  # nothing raised
    child.wait()
    child.stdout.close()
    children.lower(child)  # reaped: its pid may be another's now, and is left alone


@pytest.mark.parametrize(
    "out, said",
    [(b'{"found": []}\n', {"found": []}), (b"[]", []), (b"not json", None), (b"", None)],
)
def test_a_childs_line_is_decoded_or_not_believed(out, said):
    assert children.answer(out) == said
