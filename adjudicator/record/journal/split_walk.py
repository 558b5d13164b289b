"""The plain chain walk of a journal's file on both cores: its later half in a child process.

A row's hash is computed in Python, so one process walks on one core however many it has. A
takeover walks the stick's chain while the passphrase's Argon2id runs (stick_copy.ChainWalk);
once Argon2id ends, the second core sits idle for most of the walk. Here a child process (this
module, run with `-m`) walks the rows after the middle, this process the rows up to it, and the
halves are joined: the first must end at the middle row, with the hash the second half's first
row links to. Two clean halves so joined prove what one walk proves (each row's hash covers the
link to the row before it), whatever either half read.

Only ever a head start: a half that breaks, a child that fails or answers nonsense, or halves
that do not join give None, and the caller walks the chain itself (and says where it breaks).
A journal under SPLIT_FROM rows is walked here alone: the child's start would cost more.

`walk_apart` has the child walk the whole chain, for a serving worker (a director's backup):
the worker's interpreter stays free for its verdicts meanwhile (adjudicator/children.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from adjudicator import children
from adjudicator.record.database.journal_health import GENESIS
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import chain_walk
from adjudicator.record.journal.chain_walk import Span, Walk, WalkStopped

SPLIT_FROM = 20_000  # rows: a child's start (about 0.1 s) is a walk of some 8,000 rows
_POLL = 0.05  # seconds between looks at `stop` while the child walks
APART_SECONDS = 20 * 60  # a child walking apart still at it after this is ended (None)


def walk(
    path: str, stop: threading.Event | None = None, split_from: int | None = None
) -> Walk | None:
    """The chain of the journal at `path` walked from row 1, as chain_walk.walk(copy) finds it
    when it is whole; None when it is not, or the halves could not be joined (walk it then).
    `stop`, once set, ends the walk with WalkStopped (the child is ended too). `split_from`:
    the fewest rows split (SPLIT_FROM). A path that is not a regular file is never opened
    (SQLite would wait on a FIFO for ever): None."""
    if not Path(path).is_file():
        return None
    copy = SqliteDatabase(path, create_folder=False, create_file=False)
    try:
        newest = _newest_id(copy)
        if newest < (SPLIT_FROM if split_from is None else split_from):
            found = chain_walk.walk(copy, stop=stop)
            return found if found.bad_id is None else None
        middle = newest // 2
        child = _start(path, middle)
        try:
            first = chain_walk.walk_span(copy, Span(after=0, upto=middle), stop)
            whole = first.bad_id is None and first.rows == middle
            second = _answer(child, stop) if whole else None  # broken: the child is ended
        finally:
            children.end(child)  # walking still: a stop, a broken half
    finally:
        copy.close()
    return _joined(first, middle, second)


def walk_apart(
    path: str, stop: threading.Event | None = None, within: float = APART_SECONDS
) -> Walk | None:
    """The chain of the journal at `path` walked from row 1 in a child process, as
    chain_walk.walk(copy) finds it when it is whole; None when it is not, or no child walked
    it within `within` seconds (walk it then, and say where it breaks). `stop`: as for
    `walk`."""
    if not Path(path).is_file():
        return None
    child = _start(path, 0)
    if child is not None:
        children.lower(child)  # a director's backup: every verdict goes first
    try:
        said = _answer(child, stop, time.monotonic() + within)
    finally:
        children.end(child)
    if said is None or said["first"] != GENESIS:
        return None
    return Walk(rows=said["rows"], last_hash=said["last"])


def _newest_id(copy: SqliteDatabase) -> int:
    with copy.transaction() as cur:
        rows = cur.execute("SELECT max(id) FROM adjudications").tuples()
    newest = rows[0][0] if rows else None
    return newest if isinstance(newest, int) else 0


def _start(path: str, after: int) -> subprocess.Popen | None:
    """The child walking the rows after `after` (None when it cannot be started)."""
    return children.start(__name__, path, str(after))


def _answer(
    child: subprocess.Popen | None, stop: threading.Event | None, deadline: float | None = None
) -> dict | None:
    """The child's finding (None: it failed, said nothing this module reads, or was still at
    it at `deadline`, a time.monotonic())."""
    if child is None:
        return None
    while True:
        try:
            out, _ = child.communicate(timeout=_POLL)
            break
        except subprocess.TimeoutExpired:
            if stop is not None and stop.is_set():
                raise WalkStopped from None
            if deadline is not None and time.monotonic() > deadline:
                return None  # ended by the caller
    if child.returncode != 0:
        return None
    said = children.answer(out)
    return said if _well_formed(said) else None


def _well_formed(said: Any) -> bool:
    return (
        isinstance(said, dict)
        and said.get("clean") is True
        and type(said.get("rows")) is int
        and all(isinstance(said.get(name), str) and said[name] for name in ("first", "last"))
    )


def _joined(first: Walk, middle: int, second: dict | None) -> Walk | None:
    """One walk of rows 1..N from its two halves, when both are clean and they join."""
    if second is None or first.bad_id is not None or first.rows != middle:
        return None
    if second["first"] != first.last_hash or second["rows"] <= middle:
        return None
    return Walk(rows=second["rows"], last_hash=second["last"])


def walk_after(path: str, after: int) -> dict[str, Any]:
    """The child's half: the rows after `after`, and what the parent joins them by (the
    whole chain from row 1 when `after` is 0: its first row links to GENESIS)."""
    copy = SqliteDatabase(path, create_folder=False, create_file=False)
    try:
        span = Span(after=after)
        found = chain_walk.walk_span(copy, span)
    finally:
        copy.close()
    return {
        "clean": found.bad_id is None,
        "rows": found.rows,
        "first": span.first_prev or (GENESIS if after == 0 else ""),
        "last": found.last_hash,
    }


def main(argv: list[str]) -> int:
    """`python -m adjudicator.record.journal.split_walk PATH AFTER`: the half as JSON."""
    if len(argv) != 2 or not argv[1].isdigit():
        return 2
    print(json.dumps(walk_after(argv[0], int(argv[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
