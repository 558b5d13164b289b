"""Issues 41 and 45: `kit open` to the first verdict with a big lexicon in the kit, two checkouts
side by side (the kit carrying each lexicon's proof, or not).

    .venv/bin/python benchmarks/takeover_lexicon_trees.py --before TREE [--rounds 3] [--list polish]

TREE is a checkout from before the kit carried proofs (`git archive 5a72bff | tar -x -C DIR`):
its `kit open` fingerprints every word of every lexicon (the Polish list: about 4 million). One
store is compiled once by this checkout (`--list polish`: Debian's wpolish through the
`debian-polish` recipe; `--list csw24`: the shared CSW24), and each round, for each tree in turn
(alternating which goes first), in fresh processes of that tree (PYTHONPATH):

- laptop A: a data home with TINY and the big list, each a tournament's (so the kit carries
  both), its mirror on the stick; the kit sealed;
- the floor: A's own hall restarted, `serve` to its first verdict (the same start, no takeover);
- laptop B: `kit open` (wall clock, and its CPU: user + system of the process), then `serve` to
  its first verdict: the takeover.
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.bytecode import cache_bytecode  # noqa: E402
from benchmarks.takeover import first_verdict  # noqa: E402
from benchmarks.tree_options import trees_parser  # noqa: E402

from tests.support.kit import PASSPHRASE  # noqa: E402
from tests.support.servers import PreparedHome, cli, prepare_home, run_cli  # noqa: E402

WPOLISH = Path("/usr/share/dict/polish")
CSW24 = ROOT.parent / "shared" / "lexicons" / "CSW24.txt"


def make_store(folder: Path, which: str) -> tuple[Path, str]:
    """The big list compiled once, by this checkout: its store folder and its name."""
    from adjudicator.words.lexicon_import import import_lexicon
    from adjudicator.words.recipe import import_recipe
    from adjudicator.words.store import LexiconStore

    store = LexiconStore(folder)
    if which == "polish":
        name = import_recipe(store, "debian-polish", force=True).manifest.name
    else:
        name = import_lexicon(store, CSW24, "CSW24").manifest.name
    hour_ago = time.time() - 3600  # settled: a server's start trusts its signature
    for manifest in store.manifests():
        os.utime(store.root / manifest.compiled_file, (hour_ago, hour_ago))
    return store.root, name


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_round(tree: Path, big: Path, name: str) -> dict:
    """A takeover with the big list in the kit, on `tree`'s code."""
    folder = Path(tempfile.mkdtemp(prefix="takeover-lexicon-"))
    try:
        stick = folder / "stick"
        stick.mkdir()
        env = {"ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3"),
               "PYTHONPATH": str(tree)}  # fmt: skip
        a = prepare_home(folder / "a", env=env)
        for path in big.iterdir():
            if path.is_file():
                shutil.copy2(path, a.path / "lexicons" / path.name)
        cli(a.path, "tournament", "create", "big", "--lexicon", name, "--rule", "double", env=env)
        cli(a.path, "hall", "--fingerprint", env=env)
        cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env,
            stdin=PASSPHRASE + "\n")  # fmt: skip
        floor = first_verdict(a, env, a.token, 1)  # A's own restart: the floor
        cpu, started = cpu_of_children(), time.perf_counter()
        opened = run_cli(folder / "b", "kit", "open", str(stick), "--passphrase-stdin", env=env,
                         stdin=PASSPHRASE + "\n")  # fmt: skip
        kit_open, kit_open_cpu = time.perf_counter() - started, cpu_of_children() - cpu
        assert opened.returncode == 0, opened.stderr
        assert name in opened.stdout, opened.stdout
        after = first_verdict(PreparedHome(folder / "b", a.token, a.pairing_code, env), env,
                              a.token, 2)  # fmt: skip
        return {"tree": str(tree), "kit_open": kit_open, "kit_open_cpu": kit_open_cpu,
                "serve": after["serve"], "takeover": kit_open + after["total"],
                "floor": floor["total"]}  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> list[dict]:
    """Every round's figures for each tree (its label under `which`)."""
    parser = trees_parser(__doc__, "a checkout whose kit carries no proofs", before_required=True)
    parser.add_argument("--list", choices=("polish", "csw24"), default="polish")
    args = parser.parse_args(argv)
    if args.list == "polish" and not WPOLISH.is_file():
        sys.exit("wpolish is not installed (/usr/share/dict/polish): use --list csw24")
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}  # before the chdir
    os.chdir(tempfile.gettempdir())  # `python -m` puts the working folder first: not a tree
    cache_bytecode(*trees.values())
    results = []
    with tempfile.TemporaryDirectory(prefix="takeover-lexicon-store-") as folder:
        big, name = make_store(Path(folder) / "lexicons", args.list)
        for index in range(args.rounds):
            order = list(trees.items())
            for label, tree in order if index % 2 == 0 else reversed(order):
                found = one_round(tree, big, name)
                results.append({"which": label, **found})
                print(
                    f"round {index + 1}, {label}: kit open {found['kit_open']:.2f} s (CPU "
                    f"{found['kit_open_cpu']:.2f} s), serve {found['serve']:.2f} s: kit open to "
                    f"the first verdict {found['takeover']:.2f} s; floor (A's own restart to its "
                    f"first verdict) {found['floor']:.2f} s, ratio "
                    f"{found['takeover'] / found['floor']:.2f}x",
                    flush=True,
                )
    return results


if __name__ == "__main__":
    main()
