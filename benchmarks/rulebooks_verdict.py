"""Issue 35: the verdict path with the free-challenge look-up, against its floor, on any tree.

Hall.adjudicate, in process (SQLite journal on disk, WAL, synchronous=FULL), three ways, each
alternating with a bare durable insert+commit into a table in the same folder (the floor):
- `plain`: QI ZA with no challenger (no grant can apply: no query added);
- `named`: QI ZA by a named challenger, under double challenge: unsuccessful, it would cost the
  turn, so the grants are looked up (one seek in the partial index);
- `grants`: the same with 200 free challenges granted to other players of the same tournament
  (the seek returns them; none covers this challenger);
- `holder` (issue 43): QI ZA by a player who was granted one free challenge for any game, used
  by their first challenge: each later challenge asks which challenge that grant pays for now
  (main: the rows that recorded using it; issue 43: grant_uses.py, the player's challenges since
  the grant, as their games now stand).
`--tree DIR` imports the program from another checkout (main's, extracted with `git archive`),
so both trees are measured by the same script and virtualenv, alternating runs.

    python benchmarks/rulebooks_verdict.py [--tree DIR] [--count 600] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # last: the tree measured comes first
from benchmarks.verdict_floor import BareInsert, interleaved  # noqa: E402


def measure(tree: Path, folder: Path, count: int) -> dict:
    sys.path.insert(0, str(tree))
    sys.path.insert(0, str(tree / "tests"))
    import adjudicator

    from support.hall import build_setup

    setup = build_setup(folder)
    hall, kiosk = setup.hall, setup.nwl.kiosk
    floor = BareInsert(folder)
    n = iter(range(10**9))

    def plain() -> None:
        hall.adjudicate(kiosk, ["QI", "ZA"])

    def named() -> None:  # a new game each time: the challenger's first in it
        hall.adjudicate(kiosk, ["QI", "ZA"], round="1", table=str(next(n)), challenger="Ann Lee")

    def holder() -> None:  # the grant's player, each time in a new game
        hall.adjudicate(kiosk, ["QI", "ZA"], round="2", table=str(next(n)), challenger="Bea Holt")

    results: dict[str, object] = {"tree": str(tree), "module": adjudicator.__file__}
    phases = [("plain", plain), ("named", named)]
    grants_made = False
    for label, job in [*phases, ("grants", named), ("holder", holder)]:
        if label == "grants" and not grants_made:
            grants_made = _grant_others(hall)
            if not grants_made:
                continue
        if label == "holder":
            if not grants_made:
                continue
            _grant_to(hall, "Bea Holt")
            holder()  # uses it
        wall, cpu = interleaved({"floor": floor, label: job}, count, warm=30)
        results[label] = {
            "floor_ms": statistics.median(wall["floor"]) * 1000,
            "adjudicate_ms": statistics.median(wall[label]) * 1000,
            "ratio": statistics.median(wall[label]) / statistics.median(wall["floor"]),
            "floor_cpu_ms": statistics.mean(cpu["floor"]) * 1000,
            "adjudicate_cpu_ms": statistics.mean(cpu[label]) * 1000,
        }
    floor.close()
    hall.db.close()
    return results


def _grant_to(hall, name: str) -> None:
    from adjudicator.hall.director import director_decisions

    director_decisions.grant_free_challenge(
        hall.db, "spring-nwl", name, "score recorded early", actor="td", station="td"
    )


def _grant_others(hall) -> bool:
    """200 free challenges to other players of the NWL tournament (this tree has grants)."""
    try:
        from adjudicator.hall.director import director_decisions
    except ImportError:
        return False
    for i in range(200):
        director_decisions.grant_free_challenge(
            hall.db, "spring-nwl", f"Player {i}", "score recorded early", actor="td", station="td"
        )
    return True


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        found = measure(args.tree.resolve(), Path(folder), args.count)
    text = json.dumps(found, indent=2)
    if args.json:
        args.json.write_text(text)
    print(text)
    return found


if __name__ == "__main__":
    main()
