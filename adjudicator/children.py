"""Work a process of this program hands to a child process of its own.

A long job in pure Python (a walk of the journal's chain, a lexicon's words fingerprinted)
holds the interpreter's lock for as long as it runs: on a thread of a serving worker, every
verdict and poll of that worker waits for it at each turn. Run as `python -P -m MODULE ARGS`
in a child, it leaves the worker's interpreter free, and the worker only waits for its answer
(one JSON line on its standard output). `-P`: a folder named like the program in the working
folder is never imported instead of it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import IO, Any

LOWEST = 19  # the CPU priority (nice) of a child that must never slow the verdicts
_PR_SET_PDEATHSIG = 1


def start(
    module: str, *args: str, errors: bool | IO[bytes] = False, lowest: bool = False
) -> subprocess.Popen | None:
    """`python -P -m MODULE ARGS`, its output piped (its errors too, with `errors`, or into the
    file `errors` is; else dropped), at the lowest CPU priority with `lowest` (a director's job:
    the verdicts of every worker go first); None when no child can be started here (an
    embedded interpreter has no program to start, or the system refuses one): the caller then
    does the work itself. A caller that reads the output as it comes, not all at once with
    `communicate`, gives a file for the errors: a pipe nobody reads stops the child once full."""
    if not sys.executable:
        return None
    try:
        child = subprocess.Popen(
            [sys.executable, "-P", "-m", module, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=_errors_to(errors),
        )
    except (OSError, ValueError):
        return None
    if lowest:
        lower(child)
    return child


def _errors_to(errors: bool | IO[bytes]) -> Any:
    if errors is True:
        return subprocess.PIPE
    return errors or subprocess.DEVNULL


def lower(child: subprocess.Popen) -> None:
    """A child's CPU priority made the lowest, from here (no hook may run in a child between
    its fork and its exec while this process has threads)."""
    if child.returncode is not None:
        return  # reaped: its pid may be another process's now
    try:
        os.setpriority(os.PRIO_PROCESS, child.pid, LOWEST)
    except OSError:
        pass  # ended already, or not allowed: it runs as it is


def end(child: subprocess.Popen | None) -> None:
    """A child ended, and its pipes closed (it may be at work still: killed)."""
    if child is None:
        return
    if child.poll() is None:
        child.kill()
    child.wait()
    for stream in (child.stdout, child.stderr):
        if stream is not None:
            stream.close()


def answer(out: bytes) -> Any:
    """The child's one line, decoded (None when it is not JSON)."""
    try:
        return json.loads(out)
    except ValueError:
        return None


def end_with(parent: int) -> None:
    """In the child: be ended (SIGTERM) when the process that started it ends, and at once if
    it already has. Linux ties the signal to the thread that started the child."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: the child ends when its work does
    if os.getppid() != parent:
        sys.exit(3)


def lowest_priority() -> None:
    """In the child: run at the lowest CPU priority, behind every verdict."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, LOWEST)
    except OSError:
        pass
