"""Issue 27: the head comparison's cost per verdict, on a mirrored journal, against the same
mirror without it, at an empty journal and at 100,000 and 1,000,000 rows (goal: under 10% per
verdict, and flat as the journal grows).

Before each chain write the mirror reads each copy's head and its sealed head record (one
statement of indexed look-ups a copy) and checks the record's MAC (once per new record); at
the commit it reads the new head and writes its record into both copies, in the same
transaction (one more statement a copy, no extra fsync). "off" skips all of it (the mirror as
it was before issue 27).

- pytest-benchmark (`.venv/bin/python -m pytest benchmarks/bench_copies_compared.py
  --benchmark-only`): rounds of 64 verdicts through the group commit, 16 threads (a busy hall)
  and 1 (a quiet one), comparison on and off, at each size.
- Side by side (`.venv/bin/python -m benchmarks.bench_copies_compared [ROUNDS]
  [--no-stopwatch]`): two journals
  of the same size, one with the comparison and one without; their rounds alternate, so a load
  swing hits both, and each pair's ratio is kept. The comparison's own steps are also timed in
  place (a stopwatch around them), and alone over empty chain transactions (no fsync).
"""

from __future__ import annotations

import hashlib
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

import pytest

from adjudicator.record.copies import committed_head, mirror, resync, standing
from adjudicator.record.copies.head_guard import HeadGuard
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal.group_commit import GroupCommitter
from adjudicator.record.journal.journal_entry import INSERT, new_entry, stored_values
from benchmarks.bench_mirror import ROUND, a_round
from benchmarks.sizing import sizes
from benchmarks.synthetic_journal import CHALLENGE, insert_all

SIZES = sizes(0, 100_000, 1_000_000)


def filled_rows(count: int):
    """`count` challenge rows in FIELDS order, chained by cheap stand-in hashes (the head
    comparison reads only the newest row; the chain's own check is not what is measured)."""
    template = list(stored_values(new_entry({**CHALLENGE, "id": 1, "recorded_at": "x"})))
    previous = "0" * 64
    for n in range(1, count + 1):
        values = list(template)
        row_hash = hashlib.sha256(str(n).encode()).hexdigest()
        values[0], values[1] = n, "2026-01-01T00:00:00+00:00"
        values[-2], values[-1] = previous, row_hash
        previous = row_hash
        yield tuple(values)


def mirrored_journal(folder: Path, rows: int) -> MirroredDatabase:
    """A mirrored journal whose two copies hold `rows` rows (the mirror copied from the first)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "usb").mkdir(exist_ok=True)
    primary, mirror = folder / "journal.sqlite3", folder / "usb" / "journal.sqlite3"
    single = SqliteDatabase(str(primary))
    migrations.upgrade(single)
    single.close()
    if rows:
        insert_all(single, INSERT, filled_rows(rows))
    resync.rebuild(str(primary), str(mirror))
    return MirroredDatabase(str(primary), str(mirror), key_path=folder / "receipt_key.pem")


def compare(db: MirroredDatabase, on: bool) -> None:
    """Turn the comparison on or off; on, from the head the copies hold now (their records
    are not kept while it is off, as before issue 27)."""
    if on and not db.heads.on:  # through the journal's own connections: their caches stay
        head = standing.head(db.paths["primary"])
        record = db.heads.record_of(committed_head.Head(head.journal_id, head.rows, head.last_hash))
        with db.transaction(chain_lock=True) as cur:
            cur.execute(committed_head.WRITE_SQL, (record,))
        db.heads.forget()
    db.heads.on = on


def empty_commits(db: MirroredDatabase, count: int) -> float:
    """Microseconds per chain transaction that writes nothing: the comparison's CPU alone."""
    started = time.perf_counter()
    for _ in range(count):
        with db.transaction(chain_lock=True):
            pass
    return (time.perf_counter() - started) / count * 1e6


@pytest.fixture(scope="module", params=SIZES, ids=[f"{size:,}rows" for size in SIZES])
def mirrored(request, tmp_path_factory):
    db = mirrored_journal(tmp_path_factory.mktemp("copies"), request.param)
    empty_commits(db, 1)  # a connection that lives, as a server's threads do
    yield db
    db.close()


@pytest.mark.parametrize("threads", [16, 1])
@pytest.mark.parametrize("compared", ["on", "off"])
def test_verdicts_per_round(benchmark, mirrored, compared, threads):
    compare(mirrored, compared == "on")
    committer = GroupCommitter(mirrored)
    benchmark.extra_info["per_verdict_of"] = ROUND
    benchmark.pedantic(a_round, args=(committer, threads), rounds=15, warmup_rounds=2)
    assert mirrored.lost_copy() is None


class Stopwatch:
    """The time spent in the comparison's own steps (the check before, the new head and the
    records around each commit), timed in place while real rounds run."""

    def __init__(self) -> None:
        self.spent = 0.0  # wall time (a thread put aside by the scheduler counts too)
        self.cpu = 0.0  # the CPU time of the threads running it
        self._patched: list[tuple[object, str, object]] = []

    def wrap(self, owner: object, name: str) -> None:
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            started, cpu = time.perf_counter(), time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.spent += time.perf_counter() - started
                self.cpu += time.thread_time() - cpu

        self._patched.append((owner, name, original))
        setattr(owner, name, timed)

    def __enter__(self) -> Stopwatch:
        self.wrap(HeadGuard, "before")
        self.wrap(mirror._Transaction, "new_head")
        self.wrap(mirror._Transaction, "write_record")
        return self

    def __exit__(self, *exc) -> None:
        for owner, name, original in reversed(self._patched):
            setattr(owner, name, original)


def side_by_side(
    journals: dict[bool, MirroredDatabase], rounds: int, watched: bool = True
) -> list[str]:
    """Rounds on a journal with the comparison and on one without (same size), alternating;
    a line per thread count, and the comparison's cost per commit. `watched`: its own steps
    timed in place too (the stopwatch costs the rounds "on" a few microseconds a commit)."""
    committers = {on: GroupCommitter(db) for on, db in journals.items()}
    lines = []
    for threads in (16, 1):
        times: dict[bool, list[float]] = {True: [], False: []}
        inside: list[float] = []  # the comparison's own time per verdict, in rounds "on"
        cpu: list[float] = []
        for on in (True, False):  # warm-up
            a_round(committers[on], threads)
        for index in range(rounds):
            for on in (True, False) if index % 2 == 0 else (False, True):
                with Stopwatch() if watched else nullcontext(Stopwatch()) as watch:
                    started = time.perf_counter()
                    a_round(committers[on], threads)
                    elapsed = time.perf_counter() - started
                times[on].append(elapsed / ROUND * 1000)
                if on and watched:
                    inside.append(watch.spent / ROUND * 1000)
                    cpu.append(watch.cpu / ROUND * 1000)
        ratios = sorted(a / b for a, b in zip(times[True], times[False], strict=True))
        low, _, high = statistics.quantiles(ratios, n=4)
        line = (
            f"{threads:2d} thread(s): per verdict, median off {statistics.median(times[False]):.3f}"
            f" ms, on {statistics.median(times[True]):.3f} ms; on/off per pair: median "
            f"{statistics.median(ratios):.3f}x (quartiles {low:.3f}-{high:.3f})"
        )
        if not watched:
            lines.append(line + " (no stopwatch)")
            continue
        share = sorted(i / t for i, t in zip(inside, times[True], strict=True))
        share_low, _, share_high = statistics.quantiles(share, n=4)
        lines.append(
            f"{line}; the comparison itself: {statistics.median(inside) * 1000:.1f} us a verdict, "
            f"{statistics.median(share):.1%} of the verdict (quartiles {share_low:.1%}-"
            f"{share_high:.1%}), of which CPU {statistics.median(cpu) * 1000:.1f} us"
        )
    cost: dict[bool, list[float]] = {True: [], False: []}
    for index in range(14):  # alternating, so a load swing hits both
        on = index % 2 == 0
        cost[on].append(empty_commits(journals[on], 300))
    extra = sorted(a - b for a, b in zip(cost[True], cost[False], strict=True))
    lines.append(
        f"an empty chain transaction: {statistics.median(cost[False]):.1f} us off, "
        f"{statistics.median(cost[True]):.1f} us on: the comparison costs "
        f"{statistics.median(extra):.1f} us per commit (pairs: {extra[0]:.0f} to {extra[-1]:.0f})"
    )
    assert all(db.lost_copy() is None for db in journals.values())
    return lines


def main(rounds: int = 30, watched: bool = True) -> None:
    folder = Path(tempfile.mkdtemp(prefix="copies-compared-"))
    try:
        for size in SIZES:
            started = time.perf_counter()
            journals = {on: mirrored_journal(folder / f"{size}-{on}", size) for on in (True, False)}
            compare(journals[False], False)
            for db in journals.values():  # a connection that lives, as a server's threads do
                empty_commits(db, 1)  # (the last one to close would take the WAL with it)
            built = time.perf_counter() - started
            print(f"{size:,} rows (two journals built in {built:.0f} s):", flush=True)
            for line in side_by_side(journals, rounds, watched):
                print("  " + line, flush=True)
            for on, db in journals.items():
                db.close()
                shutil.rmtree(folder / f"{size}-{on}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30, "--no-stopwatch" not in sys.argv)
