"""Resident memory per server worker with 12 lexicons open.

    python benchmarks/memory_workers.py [--workers 2] [--json]

Compiles the 12 lexicons of bench_lexicon.py (every .txt list in ../shared/lexicons plus
Zyzzyva's OWL) into a temporary data home, makes one tournament and kiosk per lexicon, starts
`adjudicator serve`, and judges against every tournament until each worker has mmapped all 12
compiled tries (checked in /proc/<pid>/maps). It then reads, for each worker, VmRSS and Pss
(/proc/<pid>/smaps_rollup) and the Rss and Pss of the .marisa mappings alone (/proc/<pid>/smaps):
Pss divides each shared page among the processes mapping it, so it shows what the tries cost
once shared by the workers. Loopback only; stops its server at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_lexicon import TWELVE  # noqa: E402
from tests.load_support import post  # noqa: E402
from tests.servers import PreparedHome, Server  # noqa: E402

SHARED_LEXICONS = Path(__file__).resolve().parents[2] / "shared" / "lexicons"


def build_home(path: Path) -> tuple[PreparedHome, list[str]]:
    """12 compiled lexicons, a tournament and a kiosk on each; returns the kiosks' tokens."""
    os.environ["ADJUDICATOR_HOME"] = str(path)
    from adjudicator import kiosks, migrations, tournaments
    from adjudicator.backends import connect
    from adjudicator.lexicon_import import import_lexicon
    from adjudicator.store import LexiconStore

    store = LexiconStore(root=path / "lexicons")
    for name, relative in TWELVE.items():
        import_lexicon(store, SHARED_LEXICONS / relative, name)
    db = connect(str(path / "journal.sqlite3"))
    migrations.upgrade(db)
    tokens = []
    for name in TWELVE:
        slug = name.lower()
        tournaments.create(db, store, slug, name, "double", f"{name} division")
        tokens.append(kiosks.add(db, f"kiosk-{slug}", slug).token)
    db.close()
    return PreparedHome(path, tokens[0], ""), tokens


def workers_of(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                children.append(int(entry.name))
    return sorted(children)


def marisa_maps(pid: int) -> set[str]:
    return {
        line.split()[-1]
        for line in Path(f"/proc/{pid}/maps").read_text().splitlines()
        if line.endswith(".marisa")
    }


def memory(pid: int) -> dict:
    """VmRSS, Pss, and the Rss/Pss of .marisa mappings, in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    found = {
        "VmRSS": _field(status, "VmRSS"),
        "Pss": _field(rollup, "Pss"),
        "Rss": _field(rollup, "Rss"),
    }
    tries_rss = tries_pss = 0
    current = ""
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if head and not head[0].endswith(":"):
            current = head[-1] if len(head) >= 6 else ""
        elif current.endswith(".marisa") and head[0] == "Rss:":
            tries_rss += int(head[1])
        elif current.endswith(".marisa") and head[0] == "Pss:":
            tries_pss += int(head[1])
    found.update(tries_rss=tries_rss, tries_pss=tries_pss, tries_open=len(marisa_maps(pid)))
    return found


def _field(text: str, name: str) -> int:
    for line in text.splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    return 0


def judge_everywhere(server: Server, tokens: list[str], workers: list[int]) -> None:
    """Send challenges to every tournament until every worker has all 12 tries mapped."""
    for _ in range(20):
        threads = [
            threading.Thread(
                target=lambda t=t: [post(server.url, t, ["QI", "ZA"]) for _ in range(4)]
            )
            for t in tokens
            for _ in range(3)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if all(len(marisa_maps(pid)) >= len(tokens) for pid in workers):
            return
    raise RuntimeError("the workers did not all open every lexicon")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home, tokens = build_home(Path(folder) / "home")
        compiled_kb = (
            sum(p.stat().st_size for p in (home.path / "lexicons").glob("*.marisa")) // 1024
        )
        with Server(home, workers=args.workers) as server:
            workers = workers_of(server.process.pid)
            before = {pid: memory(pid) for pid in workers}
            judge_everywhere(server, tokens, workers)
            after = {pid: memory(pid) for pid in workers}
            master = memory(server.process.pid)
    result = {
        "workers": args.workers,
        "lexicons": len(tokens),
        "compiled_kb": compiled_kb,
        "master": master,
        "before": before,
        "after": after,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{len(tokens)} lexicons, compiled files {compiled_kb / 1024:.1f} MiB; "
        f"master VmRSS {master['VmRSS'] / 1024:.1f} MiB"
    )
    print("| worker | VmRSS after start | VmRSS, 12 open | Pss, 12 open | tries Rss | tries Pss |")
    print("|---|---|---|---|---|---|")
    for n, pid in enumerate(workers, 1):
        b, a = before[pid], after[pid]
        print(
            f"| {n} | {b['VmRSS'] / 1024:.1f} MiB | {a['VmRSS'] / 1024:.1f} MiB | "
            f"{a['Pss'] / 1024:.1f} MiB | {a['tries_rss'] / 1024:.1f} MiB | "
            f"{a['tries_pss'] / 1024:.1f} MiB |"
        )


if __name__ == "__main__":
    main()
