"""`make bench`: a serving worker's verdicts while the hall verifies both copies of its mirrored
journal in full, on a thread of the worker (as until stop 54) and in a child process at nice 19
(as now), at 10,000 and 100,000 rows (benchmarks/live_check.py; 1,000,000 by hand: filling it
takes minutes); and beside a director's backup (its chain walked in the worker, or in a child)
and a lexicon verified from the director's page (its words read in the worker, or in a child),
and a CSV export of the whole journal (written in the worker, or by a child). The floor, in the
same run: the same verdicts with nothing beside them."""

from __future__ import annotations

from benchmarks import live_check
from benchmarks.sizing import smallest


def test_verdicts_beside_the_full_verification(benchmark, capsys):
    sizes = smallest([10_000, 100_000], [1_000])
    results = benchmark.pedantic(
        live_check.main, args=([*map(str, sizes), "--verdicts", str(smallest(300, 20))],), rounds=1
    )
    with capsys.disabled():
        print("\n" + live_check.table(results))
    assert all(found["child"]["n"] >= 1 and found["thread"]["n"] >= 1 for found in results)


def test_verdicts_beside_a_directors_backup(benchmark, capsys):
    """A director's backup from the hall's page: its chain walked in the worker (as until
    stop 55) and in a child (split_walk.walk_apart, as now)."""
    sizes = smallest([10_000, 100_000], [1_000])
    results = benchmark.pedantic(
        live_check.main,
        args=([*map(str, sizes), "--verdicts", str(smallest(300, 20)), "--backup"],),
        rounds=1,
    )
    with capsys.disabled():
        print("\n" + live_check.table(results))
    assert all(found["backup walked apart"]["n"] >= 1 for found in results)


def test_verdicts_beside_a_lexicon_verified_from_the_directors_page(benchmark, capsys):
    """The director's "Verify every lexicon" on the Polish list (CSW24 without wpolish): its
    words fingerprinted in the worker (as until stop 55) and in a child (as now)."""
    rows = smallest(10_000, 1_000)
    results = benchmark.pedantic(
        live_check.main,
        args=([str(rows), "--verdicts", str(smallest(300, 20)), "--lexicon"],),
        rounds=1,
    )
    with capsys.disabled():
        print("\n" + live_check.table(results))
    assert all(any(mode.endswith("verified apart") for mode in found) for found in results)


def test_verdicts_beside_a_directors_csv_export(benchmark, capsys):
    """The director's CSV export of the whole journal: written by the worker (as until stop 55)
    and by a child, the worker passing its bytes on (as now)."""
    sizes = smallest([10_000, 100_000], [1_000])
    results = benchmark.pedantic(
        live_check.main,
        args=([*map(str, sizes), "--verdicts", str(smallest(300, 20)), "--export"],),
        rounds=1,
    )
    with capsys.disabled():
        print("\n" + live_check.table(results))
    assert all(found["CSV export by a child"]["n"] >= 1 for found in results)
