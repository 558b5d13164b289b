"""`make bench`: a serving worker's verdicts beside the long jobs a hall runs while it serves
(benchmarks/live_check.py), each done as until stop 54/55 (on a thread of the worker) and as
now (in a child process at nice 19), against the floor in the same run (the same verdicts with
nothing beside them):
- the full verification of both copies of the mirrored journal (ADJUDICATOR_JOURNAL_VERIFY_
  MINUTES), at 10,000 and 100,000 rows (1,000,000 by hand: filling it takes minutes);
- a director's backup from the hall's page (its chain walked);
- the director's "Verify every lexicon" on the Polish list (CSW24 without wpolish), at one size;
- the director's CSV export of the whole journal (the worker passing the child's bytes on)."""

from __future__ import annotations

import pytest

from benchmarks import live_check
from benchmarks.sizing import smallest

JOBS = {
    "full verification": ([], [10_000, 100_000]),
    "backup": (["--backup"], [10_000, 100_000]),
    "lexicon verified": (["--lexicon"], [10_000]),
    "CSV export": (["--export"], [10_000, 100_000]),
}


@pytest.mark.parametrize("job", JOBS)
def test_verdicts_beside_a_long_job(benchmark, capsys, job):
    flags, sizes = JOBS[job]
    sizes = smallest(sizes, [1_000])
    results = benchmark.pedantic(
        live_check.main,
        args=([*map(str, sizes), "--verdicts", str(smallest(300, 20)), *flags],),
        rounds=1,
    )
    with capsys.disabled():
        print("\n" + live_check.table(results))
    for found in results:
        modes = [mode for mode in found if mode not in ("rows", "alone")]
        assert len(modes) >= 2, modes  # the job as it was, and as it is now
        assert all(found[mode]["n"] >= 1 for mode in modes), found
