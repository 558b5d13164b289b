"""A serving worker's verdicts while the hall verifies both copies of its mirrored journal in
full (every ADJUDICATOR_JOURNAL_VERIFY_MINUTES, background_check.Watch).

In one process, as in a gunicorn worker: the kiosk app judges challenges one after another
(the WSGI app called in process, a mirrored SQLite journal of ROWS rows on this machine's one
disk), while the full verification runs beside it:
- alone: no verification (the floor);
- thread: the verification on a thread of the same process (background_check.verify_live, as
  the worker ran it until stop 54);
- thread, 1 ms switch: the same, with the interpreter's switch interval the serving worker now
  sets (loop_worker.SWITCH_SECONDS; Python's default is 5 ms): what any busy thread of a worker
  (a director's export, a lexicon verified from its page) costs the verdicts beside it;
- child: as the worker runs it now (Watch.run_if_due: a child process at nice 19).
Printed per size: the verification's seconds, the verdicts judged meanwhile, and a verdict's
p50 and p99 in each mode, with the ratio of its p99 to the floor's.

With `--backup`, the job beside the verdicts is instead a director's backup from the hall's
page (backup.make, the interpreter's switch interval as the serving worker sets it): its chain
walked here (as until stop 55) and walked in a child (split_walk.walk_apart, as now). With
`--lexicon`, it is the director's "Verify every lexicon" on the Polish list (Debian's wpolish,
4 million words; CSW24 without it): its words fingerprinted here (as until stop 55) and in a
child (store.verify_apart, as now).

With `--export`, it is the director's CSV export of the whole journal (`/director/journal.csv`),
read to its end: written by the worker (as until stop 55) and by a child, the worker passing its
bytes on (export_apart.csv_apart, as now).

    .venv/bin/python -m benchmarks.live_check [SIZES...] [--verdicts N]
        [--backup | --lexicon | --export]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.sizing import sizes
from benchmarks.takeover import fill
from benchmarks.verdict_layers import verdict_environ
from kiosk.server.loop_worker import SWITCH_SECONDS

from tests.support.servers import prepare_home

WPOLISH = Path("/usr/share/dict/polish")
SHARED_LEXICONS = Path(__file__).resolve().parents[2] / "shared" / "lexicons"


def _judge_in_process(app, token: str):
    """One challenge through the app, as the worker's thread calls it; its milliseconds."""

    def judge(n: int) -> float:
        environ = verdict_environ(n, token)
        status: list[str] = []
        started = time.perf_counter()
        b"".join(app(environ, lambda s, h, e=None: status.append(s)))
        spent = (time.perf_counter() - started) * 1000
        assert status[0].startswith("201"), status
        return spent

    return judge


def _beside(judge, work) -> tuple[list[float], float]:
    """The verdicts judged while `work` runs on a thread (one at least); and its seconds."""
    done = threading.Event()
    spent: list[float] = []

    def run() -> None:
        started = time.perf_counter()
        try:
            work()
        finally:
            spent.append(time.perf_counter() - started)
            done.set()

    thread = threading.Thread(target=run)
    thread.start()
    times, n = [], 0
    while not done.is_set() or not times:
        times.append(judge(n))
        n += 1
    thread.join()
    return times, spent[0]


def _percentiles(times: list[float]) -> dict:
    ordered = sorted(times)
    return {
        "n": len(times),
        "p50": statistics.median(ordered),
        "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
    }


@contextmanager
def serving_hall(rows: int) -> Iterator[tuple[Path, Callable[[int], float], Any]]:
    """A mirrored hall of `rows` rows, its app judging in this process: its folder, one
    verdict's milliseconds (warmed), and its journal."""
    folder = Path(tempfile.mkdtemp(prefix=f"live-check-{rows}-"))
    saved = dict(os.environ)
    try:
        (folder / "stick").mkdir()
        env = {
            "ADJUDICATOR_JOURNAL_MIRROR": str(folder / "stick" / "journal.sqlite3"),
            "ADJUDICATOR_JOURNAL_VERIFY_MINUTES": "0",  # only the runs below
            "ADJUDICATOR_KIOSK_RATE_LIMIT": "off",
        }
        home = prepare_home(folder / "home", env=env)
        fill(home.path, env, rows)
        os.environ.update({"ADJUDICATOR_HOME": str(home.path), **env})
        from kiosk import create_app
        from kiosk.hall import get_hall

        app = create_app()
        judge = _judge_in_process(app, home.token)
        for n in range(100):
            judge(n)  # warm
        with app.app_context():
            db = get_hall().db
        yield folder, judge, db
        db.close()
    finally:
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(folder, ignore_errors=True)


def measure(rows: int, verdicts: int) -> dict:
    from adjudicator.record.copies import background_check

    with serving_hall(rows) as (_, judge, db):
        found = {"rows": rows, "alone": _percentiles([judge(n) for n in range(verdicts)])}
        times, seconds = _beside(judge, lambda: background_check.verify_live(db))
        found["thread"] = {**_percentiles(times), "seconds": seconds}
        default = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_SECONDS)  # as the serving worker runs (loop_worker.py)
        try:
            times, seconds = _beside(judge, lambda: background_check.verify_live(db))
        finally:
            sys.setswitchinterval(default)
        found["thread, 1 ms switch"] = {**_percentiles(times), "seconds": seconds}
        watch = background_check.Watch(db, minutes=0)  # always due
        times, seconds = _beside(judge, lambda: _verified(watch))
        found["child"] = {**_percentiles(times), "seconds": seconds}
        return found


def measure_backup(rows: int, verdicts: int) -> dict:
    """A director's backup beside the verdicts: its chain walked here, and in a child."""
    from adjudicator.record.copies import backup
    from adjudicator.record.journal import split_walk

    with serving_hall(rows) as (folder, judge, db):
        found = {"rows": rows, "alone": _percentiles([judge(n) for n in range(verdicts)])}
        default = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_SECONDS)  # as the serving worker runs (loop_worker.py)
        apart = split_walk.walk_apart
        try:
            for mode, walker in (("backup walked here", None), ("backup walked apart", apart)):
                split_walk.walk_apart = (lambda path, stop=None: None) if walker is None else walker
                dest = folder / f"{mode.replace(' ', '-')}.sqlite3"
                times, seconds = _beside(judge, lambda dest=dest: backup.make(db, dest))
                found[mode] = {**_percentiles(times), "seconds": seconds}
        finally:
            split_walk.walk_apart = apart
            sys.setswitchinterval(default)
        return found


def _verified(watch) -> None:
    assert watch.run_if_due(), "the verification did not run"


def measure_lexicon(rows: int, verdicts: int) -> dict:
    """The director's lexicon verification beside the verdicts: here, and in a child."""
    from adjudicator.words.lexicon_import import import_lexicon
    from adjudicator.words.recipe import import_recipe
    from kiosk.hall import get_hall

    with serving_hall(rows) as (_, judge, db):
        from kiosk import create_app

        with create_app().app_context():
            store = get_hall().store
        if WPOLISH.is_file():
            name = import_recipe(store, "debian-polish", force=True).manifest.name
        else:
            name = import_lexicon(store, SHARED_LEXICONS / "CSW24.txt", "CSW24").manifest.name
        found = {"rows": rows, "alone": _percentiles([judge(n) for n in range(verdicts)])}
        default = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_SECONDS)  # as the serving worker runs (loop_worker.py)
        try:
            for mode, apart in ((f"{name} verified here", False), (f"{name} verified apart", True)):
                times, seconds = _beside(judge, lambda apart=apart: store.verify(name, apart))
                found[mode] = {**_percentiles(times), "seconds": seconds}
        finally:
            sys.setswitchinterval(default)
        return found


def measure_export(rows: int, verdicts: int) -> dict:
    """The director's CSV export of the whole journal beside the verdicts: by the worker, and
    by a child."""
    from adjudicator.hall.director import export, export_apart, journal_review

    with serving_hall(rows) as (_, judge, db):
        found = {"rows": rows, "alone": _percentiles([judge(n) for n in range(verdicts)])}
        default = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_SECONDS)  # as the serving worker runs (loop_worker.py)

        def in_the_worker() -> None:
            batches = journal_review.select_batches(db, journal_review.Filters())
            for _chunk in export.csv_chunks(export.csv_records(db, batches)):
                pass

        def by_a_child() -> None:
            chunks = export_apart.csv_apart(db, journal_review.Filters(), True)
            assert chunks is not None, "no child wrote the export"
            for _chunk in chunks:
                pass

        try:
            for mode, work in (("CSV export in the worker", in_the_worker),
                               ("CSV export by a child", by_a_child)):  # fmt: skip
                times, seconds = _beside(judge, work)
                found[mode] = {**_percentiles(times), "seconds": seconds}
        finally:
            sys.setswitchinterval(default)
        return found


def table(results: list[dict]) -> str:
    lines = [
        "| rows | mode | job s | verdicts meanwhile | p50 ms | p99 ms | p99 / alone |",
        "|---|---|---|---|---|---|---|",
    ]
    for found in results:
        floor = found["alone"]["p99"]
        for mode in [name for name in found if name != "rows"]:
            m = found[mode]
            seconds = f"{m['seconds']:.2f}" if "seconds" in m else "-"
            lines.append(
                f"| {found['rows']:,} | {mode} | {seconds} | {m['n']} | {m['p50']:.2f} | "
                f"{m['p99']:.2f} | {m['p99'] / floor:.1f}x |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int)
    parser.add_argument("--verdicts", type=int, default=300, help="the floor's")
    parser.add_argument("--backup", action="store_true", help="a director's backup beside them")
    parser.add_argument("--lexicon", action="store_true", help="a lexicon verified beside them")
    parser.add_argument("--export", action="store_true", help="a CSV export beside them")
    args = parser.parse_args(argv)
    jobs = {"backup": measure_backup, "lexicon": measure_lexicon, "export": measure_export}
    job = next((jobs[name] for name in jobs if getattr(args, name)), measure)
    results = [job(rows, args.verdicts) for rows in (args.sizes or sizes(10_000, 100_000))]
    print(table(results))
    return results


if __name__ == "__main__":
    main()
