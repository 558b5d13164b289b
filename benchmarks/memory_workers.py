"""Resident memory per server worker with 12 lexicons open.

    python benchmarks/memory_workers.py [--workers 2] [--json]

Compiles the 12 lexicons of bench_lexicon.py (every .txt list in ../shared/lexicons plus
Zyzzyva's OWL) into a temporary data home, makes one tournament and kiosk per lexicon, starts
`adjudicator serve`, and judges against every tournament (60 challenges each, from several
threads, so every worker loads all 12). It then reads, for each worker, VmRSS and RssAnon
(/proc/<pid>/status) and Pss (/proc/<pid>/smaps_rollup). The server makes one sealed memory
copy of each trie before it forks its workers (never mapping the files themselves, which someone
could damage under it); each worker checks that copy and maps it, so the tries are shared
memory (RssShmem, divided among the workers in Pss), not a private copy per worker.
Loopback only; stops its server at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_lexicon import TWELVE  # noqa: E402

from tests.support.load import post  # noqa: E402
from tests.support.servers import PreparedHome, Server  # noqa: E402

SHARED_LEXICONS = Path(__file__).resolve().parents[2] / "shared" / "lexicons"


def build_home(path: Path) -> tuple[PreparedHome, list[str]]:
    """12 compiled lexicons, a tournament and a kiosk on each; returns the kiosks' tokens."""
    os.environ["ADJUDICATOR_HOME"] = str(path)
    from adjudicator.hall import kiosks, tournaments
    from adjudicator.record.backends import connect
    from adjudicator.record.database import migrations
    from adjudicator.words.lexicon_import import import_lexicon
    from adjudicator.words.store import LexiconStore

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


def workers_up(pid: int, count: int, within: float = 30) -> list[int]:
    """The server's workers, once all `count` have been forked: gunicorn forks them one by one,
    and the first answers /healthz before the last is forked (the once-run in CI saw one)."""
    deadline = time.monotonic() + within
    while len(found := workers_of(pid)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def memory(pid: int) -> dict:
    """VmRSS, RssAnon and Pss, in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    return {
        "VmRSS": _field(status, "VmRSS"),
        "RssAnon": _field(status, "RssAnon"),
        "Pss": _field(rollup, "Pss"),
    }


def _field(text: str, name: str) -> int:
    for line in text.splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    return 0


def judge_everywhere(server: Server, tokens: list[str]) -> None:
    """Send 60 challenges to every tournament, 12 at a time, so every worker opens all 12."""
    for _ in range(5):
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


def main(argv: list[str] | None = None) -> dict:
    """The figures --json prints: the master's memory and each worker's before and after."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        home, tokens = build_home(Path(folder) / "home")
        compiled_kb = (
            sum(p.stat().st_size for p in (home.path / "lexicons").glob("*.marisa")) // 1024
        )
        with Server(home, workers=args.workers) as server:
            workers = workers_up(server.process.pid, args.workers)
            before = {pid: memory(pid) for pid in workers}
            judge_everywhere(server, tokens)
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
        return result
    print(
        f"{len(tokens)} lexicons, compiled files {compiled_kb / 1024:.1f} MiB; "
        f"master VmRSS {master['VmRSS'] / 1024:.1f} MiB"
    )
    print(
        "| worker | VmRSS after start | VmRSS, 12 open | Pss, 12 open | RssAnon start / 12 open |"
    )
    print("|---|---|---|---|---|")
    for n, pid in enumerate(workers, 1):
        b, a = before[pid], after[pid]
        print(
            f"| {n} | {b['VmRSS'] / 1024:.1f} MiB | {a['VmRSS'] / 1024:.1f} MiB | "
            f"{a['Pss'] / 1024:.1f} MiB | "
            f"{b['RssAnon'] / 1024:.1f} / {a['RssAnon'] / 1024:.1f} MiB |"
        )
    return result


if __name__ == "__main__":
    main()
