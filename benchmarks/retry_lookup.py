"""A verdict with an attempt key (the kiosk page sends one with every challenge) and a retry that
finds its row, against the same verdict without a key, as the kiosk's rows grow (10,000,
100,000 and 1,000,000 rows, all the one kiosk's: a hall computer's season, the worst case).

In one process, through `Hall.adjudicate` (the journal's durable commit included), the three
kinds alternating in batches; CPU per call (process time), medians of the batches:
- floor: a challenge without a key;
- keyed: a challenge with a new key (the look-up among the kiosk's 32 newest challenges, then
  the row);
- retry: the same challenge with a key already recorded (the look-up, then the row read back;
  nothing written).

    .venv/bin/python -m benchmarks.retry_lookup [--sizes 10000,100000,1000000] [--batches 6]
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adjudicator.hall import kiosks  # noqa: E402
from adjudicator.record.journal import journal  # noqa: E402
from adjudicator.record.journal.journal import Pending  # noqa: E402
from benchmarks.sizing import sizes  # noqa: E402

from tests.support.hall import NWL, build_setup  # noqa: E402
from tests.support.journal import challenge_fields  # noqa: E402

BATCH = 500


def fill(setup, kiosk: str, upto: int) -> None:
    """The kiosk's challenges, through the journal's own group append, until `upto` rows."""
    made = _rows(setup)
    while made < upto:
        count = min(BATCH, upto - made)
        fields = challenge_fields(tournament=NWL, kiosk=kiosk, lexicon_name="TINY-NWL")
        journal.append_batch(setup.hall.db, [Pending(dict(fields)) for _ in range(count)])
        made += count


def _rows(setup) -> int:
    with setup.hall.db.transaction() as cur:
        return int(cur.execute("SELECT COUNT(*) AS n FROM adjudications").one()["n"])


def measure(setup, kiosk, batches: int, per_batch: int) -> dict[str, float]:
    hall = setup.hall
    retried = secrets.token_hex(16)
    hall.adjudicate(kiosk, ["QI", "ZA"], attempt=retried)
    calls = {
        "floor": lambda: hall.adjudicate(kiosk, ["QI", "ZA"]),
        "keyed": lambda: hall.adjudicate(kiosk, ["QI", "ZA"], attempt=secrets.token_hex(16)),
        "retry": lambda: hall.adjudicate(kiosk, ["QI", "ZA"], attempt=retried),
    }
    for call in calls.values():  # warm
        call()
    spent: dict[str, list[float]] = {name: [] for name in calls}
    for batch in range(batches):
        order = list(calls) if batch % 2 == 0 else list(reversed(calls))
        for name in order:
            started = time.process_time()
            for _ in range(per_batch):
                calls[name]()
            spent[name].append((time.process_time() - started) * 1000 / per_batch)
    return {name: statistics.median(values) for name, values in spent.items()}


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, sizes(1000, 10000, 100000, 1000000))))
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--per-batch", type=int, default=200)
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="retry-lookup-") as folder:
        saved = os.environ.get("ADJUDICATOR_HOME")
        os.environ["ADJUDICATOR_HOME"] = str(Path(folder) / "home")
        try:
            setup = build_setup(Path(folder))
            kiosk = kiosks.by_token(setup.hall.db, setup.nwl.token)
            for size in (int(text) for text in args.sizes.split(",")):
                fill(setup, kiosk.name, size)
                costs = measure(setup, kiosk, args.batches, args.per_batch)
                result = {"rows": _rows(setup), **costs}
                result["keyed_ratio"] = costs["keyed"] / costs["floor"]
                result["retry_ratio"] = costs["retry"] / costs["floor"]
                print(
                    f"{result['rows']:>9,} rows: floor {costs['floor']:.3f} ms, keyed "
                    f"{costs['keyed']:.3f} ms ({result['keyed_ratio']:.2f}x), retry "
                    f"{costs['retry']:.3f} ms ({result['retry_ratio']:.2f}x)",
                    flush=True,
                )
                results.append(result)
        finally:
            if saved is None:
                os.environ.pop("ADJUDICATOR_HOME", None)
            else:
                os.environ["ADJUDICATOR_HOME"] = saved
    return results


if __name__ == "__main__":
    main()
