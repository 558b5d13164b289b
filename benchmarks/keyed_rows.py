"""Issue 33: the keyed chain against main's plain one, both measured in the same run.

    python benchmarks/keyed_rows.py [--ref main] [--rounds 5] [--verdicts 400] [--rows 1000000]

"Before" is the tree of `--ref` (`git archive` into a temporary folder), "after" this checkout.
Each measure runs in a child process of its own (its PYTHONPATH picks the tree), before and
after alternating, so a swing in the machine's load hits both alike; each pair's ratio is kept.

- **A verdict**: `Hall.adjudicate` and its receipt signed (as the API answers), in process, on
  an SQLite journal on disk (WAL, synchronous=FULL): per verdict, the median wall time and the
  mean CPU time (the fsync both wait for is the disk's; the CPU is what the program adds).
- **`journal verify` on --rows rows**: one journal, filled once through this checkout's append
  path (benchmarks/season.py: its rows are keyed), with the signed mark of its newest row.
  Before: main's `journal.verify` (the chain). After: what this checkout's `journal verify`
  does, `journal_proof.verify` (the chain, every keyed hash, the signed statements). Both in
  process (the walk alone), and the whole `adjudicator journal verify` command as a process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.bytecode import cache_bytecode  # noqa: E402

VERDICTS = """
import json, statistics, sys, tempfile, time
from pathlib import Path
from tests.support.hall import build_setup
setup = build_setup(Path(tempfile.mkdtemp(dir=sys.argv[2])))
hall, kiosk = setup.hall, setup.nwl.kiosk
keyed = [0.0]  # the keyed work, timed in place (this checkout only): its set-up and hashes
try:
    from adjudicator.record.journal import row_keys
except ImportError:
    row_keys = None
if row_keys is not None:
    def timed(function):
        def run(*args):
            started = time.perf_counter()
            try:
                return function(*args)
            finally:
                keyed[0] += time.perf_counter() - started
        return run
    row_keys.keyed_hash = timed(row_keys.keyed_hash)
    row_keys.RowKeys.prepare = timed(row_keys.RowKeys.prepare)
for _ in range(50):
    hall.receipt(hall.adjudicate(kiosk, ["QI", "ZA"]))
keyed[0] = 0.0
wall, cpu = [], []
for _ in range(int(sys.argv[1])):
    started, started_cpu = time.perf_counter(), time.process_time()
    hall.receipt(hall.adjudicate(kiosk, ["QI", "ZA"]))
    cpu.append(time.process_time() - started_cpu)
    wall.append(time.perf_counter() - started)
print(json.dumps({"wall": statistics.median(wall), "cpu": statistics.mean(cpu),
                  "keyed": keyed[0] / len(wall)}))
"""

VERIFY_BEFORE = """
import json, os, time
from adjudicator.record.journal import journal
from adjudicator.record.backends import connect
db = connect(os.environ["ADJUDICATOR_DATABASE_URL"])
started, started_cpu = time.perf_counter(), time.process_time()
found = journal.verify(db)
assert found.ok, found
print(json.dumps({"wall": time.perf_counter() - started, "cpu": time.process_time() - started_cpu,
                  "rows": found.rows}))
"""

VERIFY_AFTER = """
import json, os, time
from adjudicator.record.proofs import journal_proof
from adjudicator.record.journal import receipt_key, row_keys
from adjudicator.record.backends import connect
db = connect(os.environ["ADJUDICATOR_DATABASE_URL"])
key = receipt_key.load(receipt_key.key_path())
started, started_cpu = time.perf_counter(), time.process_time()
found = journal_proof.verify(db, key.public, row_keys.secret(key), key.path)
(name, judged), = found.copies
assert judged.state == "proven" and judged.keyed_checked, judged
assert found.statements.keyed_from == 1 and found.statements.proofs, found.statements
print(json.dumps({"wall": time.perf_counter() - started, "cpu": time.process_time() - started_cpu,
                  "rows": judged.rows}))
"""


def tree_of(ref: str, folder: Path) -> Path:
    """The source tree of `ref`, unpacked into `folder`."""
    folder.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def child(tree: Path, code: str, *args: str, env: dict | None = None) -> dict:
    """Run `code` with `tree` first on the path; the JSON it prints."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree), **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def whole_command(tree: Path, env: dict) -> float:
    """`adjudicator journal verify` as a process, with `tree`'s program: its wall time."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "adjudicator", "journal", "verify"],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree), **env},
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - started


def paired(rounds: int, measure) -> dict:
    """`measure(tree)` alternating before and after (which goes first, in turn), each pair's
    two measures kept side by side."""
    found: dict[str, list] = {"before": [], "after": []}
    for round_number in range(rounds):
        order = ("before", "after") if round_number % 2 == 0 else ("after", "before")
        for which in order:
            found[which].append(measure(which))
    return found


def summary(found: dict, field: str | None) -> str:
    get = (lambda value: value[field]) if field else (lambda value: value)
    before = [get(value) for value in found["before"]]
    after = [get(value) for value in found["after"]]
    ratios = sorted(a / b for a, b in zip(after, before, strict=True))
    return (
        f"before {statistics.median(before) * 1000:.3f} ms, after "
        f"{statistics.median(after) * 1000:.3f} ms; after/before per pair: median "
        f"{statistics.median(ratios):.3f} (range {ratios[0]:.3f}-{ratios[-1]:.3f})"
    )


def fill(folder: Path, rows: int) -> dict:
    """A journal of `rows` keyed rows (this checkout's append path), with the signed mark of
    its newest row; the environment that points the program at it."""
    sys.path.insert(0, str(ROOT))
    from adjudicator.record.journal import journal, receipt_key
    from adjudicator.record.proofs import high_water, journal_begun, journal_proof
    from benchmarks import season as seasons

    home, url = folder / "home", str(folder / "season.sqlite3")
    os.environ["ADJUDICATOR_HOME"] = str(home)
    season = seasons.prepare(home, url)
    started = time.perf_counter()
    seasons.fill(season, rows)
    print(f"filled {rows:,} rows in {time.perf_counter() - started:.0f} s", flush=True)
    db = season.db()
    key = receipt_key.load_or_create()
    newest = journal.get(db, journal.newest_id(db))
    journal_id = journal_begun.identity(db)[0]
    about = journal_proof.statements(db, journal_id, key.public, None, receipt_key.key_path())
    first = about.keyed_from
    mark = high_water.HighWater(key, receipt_key.key_path(), [url])
    mark.advance(journal_id, newest.id, newest.row_hash, None, first)
    db.close()
    return {"ADJUDICATOR_HOME": str(home), "ADJUDICATOR_DATABASE_URL": url}


def main(argv: list[str] | None = None) -> dict[str, dict]:
    """Each measure's runs, before and after: {measure: {"before": [...], "after": [...]}}."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="main")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--verdicts", type=int, default=400)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--only", default="verdicts,verify")
    args = parser.parse_args(argv)
    results = {}
    with tempfile.TemporaryDirectory(prefix="keyed-rows-") as temp:
        folder = Path(temp)
        trees = {"before": tree_of(args.ref, folder / "before"), "after": ROOT}
        cache_bytecode(*trees.values())
        if "verdicts" in args.only:
            work = folder / "verdicts"
            work.mkdir()
            found = results["verdicts"] = paired(
                args.rounds,
                lambda which: child(trees[which], VERDICTS, str(args.verdicts), str(work)),
            )
            print(f"a verdict, wall: {summary(found, 'wall')}")
            print(f"a verdict, CPU: {summary(found, 'cpu')}")
            shares = sorted(
                value["keyed"] / value["cpu"] for value in found["after"] if value["cpu"]
            )
            keyed = statistics.median(value["keyed"] for value in found["after"]) * 1e6
            print(
                f"the keyed work in place (statement set-up, keyed hashes): {keyed:.1f} us a "
                f"verdict, {statistics.median(shares) * 100:.2f}% of its CPU "
                f"(range {shares[0] * 100:.2f}-{shares[-1] * 100:.2f}%)"
            )
        if "verify" in args.only:
            env = fill(folder, args.rows)
            codes = {"before": VERIFY_BEFORE, "after": VERIFY_AFTER}
            found = results["verify"] = paired(
                args.rounds, lambda which: child(trees[which], codes[which], env=env)
            )
            print(f"verify {args.rows:,} rows in process, wall: {summary(found, 'wall')}")
            print(f"verify {args.rows:,} rows in process, CPU: {summary(found, 'cpu')}")
            found = results["command"] = paired(
                args.rounds, lambda which: whole_command(trees[which], env)
            )
            print(f"`journal verify` {args.rows:,} rows, whole process: {summary(found, None)}")
    return results


if __name__ == "__main__":
    main()
