"""Issue 45: opening a lexicon, before and after, in one run: two checkouts side by side.

    .venv/bin/python benchmarks/lexicon_open_trees.py --before TREE [--rounds 3]

TREE is a checkout from before issue 45 (`git archive c279ca7 | tar -x -C /tmp/main-before`),
where every open fingerprinted every word. One store (CSW24, the Polish list from Debian's
wpolish through the `debian-polish` recipe, and the eleven other lists of the shared folder
and Zyzzyva's OWL) is compiled once by this checkout; each round then runs, for each tree in
turn (alternating which goes first), in fresh processes:

- `CompiledLexicon.open` of CSW24 and of the Polish list (a process's own open: a private
  sealed copy), CPU seconds, best of a few, beside its floor, marisa mapping the same file;
- `adjudicator judge --lexicon CSW24 QI ZA CAT` as a whole process (wall clock, the median of
  several) beside its floor, `python -c` importing marisa_trie and mapping the same file;
- the memory twelve open lexicons add to a fresh process (VmRSS, as bench_lexicon measures).

The figures of a worker's open (the server's sealed copy, mapped) are bench_lexicon's and
bench_alphabets' (benchmarks/lexicon_open.py): a checkout before issue 45 fingerprints there
too.
"""

from __future__ import annotations

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

from benchmarks.bench_lexicon import MEMORY_PROBE, TWELVE  # noqa: E402
from benchmarks.bytecode import cache_bytecode  # noqa: E402
from benchmarks.tree_options import trees_parser  # noqa: E402

SHARED = ROOT.parent / "shared" / "lexicons"
WPOLISH = Path("/usr/share/dict/polish")

OPEN_PROBE = """
import json, sys, time, marisa_trie
from pathlib import Path
from adjudicator.words.lexicon import CompiledLexicon
from adjudicator.words.store import LexiconStore
store = LexiconStore(Path(sys.argv[1]))
found = {}
for name, times in (("CSW24", 5), ("PL-DEBIAN", 3)):
    if not store.exists(name):
        continue
    manifest = store.manifest(name)
    path = store.root / manifest.compiled_file
    def cpu(call, n):
        best = float("inf")
        for _ in range(n):
            started = time.process_time()
            call()
            best = min(best, time.process_time() - started)
        return best
    found[name] = {
        "open_s": cpu(lambda: CompiledLexicon.open(manifest, path), times),
        "mapped_s": cpu(lambda: marisa_trie.Trie().mmap(str(path)), 50),
    }
print(json.dumps(found))
"""


def run(tree: Path, argv: list[str], env: dict | None = None) -> str:
    environ = {**os.environ, **(env or {}), "PYTHONPATH": str(tree)}
    done = subprocess.run(  # not in a checkout: `python -c` puts its folder first on sys.path
        argv, env=environ, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir()
    )
    return done.stdout


def make_store(home: Path) -> Path:
    from adjudicator.words.lexicon_import import import_lexicon
    from adjudicator.words.recipe import import_recipe
    from adjudicator.words.store import LexiconStore

    store = LexiconStore(home / "lexicons")
    for name, relative in TWELVE.items():
        import_lexicon(store, SHARED / relative, name)
    if WPOLISH.is_file():
        import_recipe(store, "debian-polish", force=True)
    hour_ago = time.time() - 3600
    for manifest in store.manifests():
        os.utime(store.root / manifest.compiled_file, (hour_ago, hour_ago))
    return store.root


def judge_times(tree: Path, home: Path, root: Path, runs: int) -> dict:
    compiled = next(root.glob("CSW24.*.marisa"))
    commands = {
        "judge": [
            sys.executable,
            "-m",
            "adjudicator",
            "judge",
            "--lexicon",
            "CSW24",
            "QI",
            "ZA",
            "CAT",
        ],  # fmt: skip
        "floor": [
            sys.executable,
            "-c",
            "import marisa_trie, sys; marisa_trie.Trie().mmap(sys.argv[1])",
            str(compiled),
        ],  # fmt: skip
    }
    seen: dict[str, list[float]] = {label: [] for label in commands}
    for label in commands:  # once each first: bytecode cached, files in the page cache
        run(tree, commands[label], {"ADJUDICATOR_HOME": str(home)})
    for _ in range(runs):
        for label, argv in commands.items():
            started = time.perf_counter()
            run(tree, argv, {"ADJUDICATOR_HOME": str(home)})
            seen[label].append(time.perf_counter() - started)
    judge, floor = statistics.median(seen["judge"]), statistics.median(seen["floor"])
    return {"judge_ms": judge * 1000, "floor_ms": floor * 1000, "ratio": judge / floor}


def one_round(tree: Path, home: Path, root: Path, runs: int) -> dict:
    opens = json.loads(run(tree, [sys.executable, "-c", OPEN_PROBE, str(root)]))
    memory = json.loads(run(tree, [sys.executable, "-c", MEMORY_PROBE, str(root), *TWELVE]))
    added = memory["after"]["VmRSS"] - memory["before"]["VmRSS"]
    return {
        "tree": str(tree),
        "opens": opens,
        "judge": judge_times(tree, home, root, runs),
        "twelve_added_mb": added / 1024,
    }


def line(r: dict) -> str:
    parts = [f"{r['tree']}:"]
    for name, found in r["opens"].items():
        parts.append(
            f"{name} open {found['open_s'] * 1000:.2f} ms (mapping {found['mapped_s'] * 1e6:.0f}"
            f" us)"
        )
    j = r["judge"]
    parts.append(f"judge {j['judge_ms']:.0f} ms / floor {j['floor_ms']:.0f} ms = {j['ratio']:.2f}")
    parts.append(f"twelve lexicons +{r['twelve_added_mb']:.1f} MB")
    return "  ".join(parts)


def main(argv: list[str] | None = None) -> list[dict]:
    """Every round's figures for each tree, as --json writes them."""
    parser = trees_parser(__doc__, "a checkout from before issue 45", before_required=True)
    parser.add_argument("--judge-runs", type=int, default=15)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    trees = [args.before.resolve(), args.after.resolve()]
    cache_bytecode(*trees)
    results = []
    with tempfile.TemporaryDirectory(prefix="lexicon-open-") as folder:
        home = Path(folder) / "home"
        root = make_store(home)
        for index in range(args.rounds):
            for tree in trees if index % 2 == 0 else reversed(trees):
                result = one_round(tree, home, root, args.judge_runs)
                print(line(result), flush=True)
                results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
