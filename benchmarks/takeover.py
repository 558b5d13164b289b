"""Issues 34, 41 and 45: the takeover's time, and the kit's refresh cost while serving.

1. From `kit open` to laptop B's first verdict, for journals of 0, 10,000 and 100,000 rows
   (goal: under 60 s at 100,000 rows on 2 cores): `kit open` (the passphrase, the stick's
   copy walked, the journal copied to B's disk and checked by its head), then `adjudicator
   serve` on B (which checks both copies by the head `kit open` proved), then one verdict
   through the API with A's kiosk token (each start seen up within 10 ms). The floor,
   measured in the same run on the same journal: laptop A's own hall restarted, from `serve`
   to its first verdict (the same start, without the takeover);
   and (issue 45) copying the stick's journal file and checking its integrity (SQLite's
   `PRAGMA integrity_check`), the least a takeover must do with it.
   With `--typing SECONDS`, a second takeover (on laptop C) as a director makes it: the
   passphrase typed SECONDS after `kit open` starts (which copies and walks the stick's journal
   meanwhile), timed from the passphrase's Enter to the first verdict.
2. The kit's refresh while serving: verdicts one after another through the API, with the
   refresh off (ADJUDICATOR_KIT_REFRESH_SECONDS=0), then on every second with an item changed
   before each (hall.json rewritten, so each refresh seals and writes an item to the stick),
   rounds alternating; and one refresh timed alone (nothing changed, one item changed).

    .venv/bin/python -m benchmarks.takeover [SIZES...] [--refresh-rounds N] [--refresh-only]
        [--typing SECONDS]
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from adjudicator.record.journal import journal
from adjudicator.record.journal.journal import Pending
from benchmarks.bytecode import cache_bytecode

from tests.support.journal import challenge_fields
from tests.support.kit import PASSPHRASE
from tests.support.servers import PreparedHome, Server, cli, post, prepare_home, run_cli

BATCH = 500


def fill(home: Path, env: dict, rows: int) -> None:
    """`rows` real rows (chained, keyed as the hall keys them, with tallies), on both copies,
    through the journal's own group append."""
    if not rows:
        return
    saved = dict(os.environ)
    os.environ.update({"ADJUDICATOR_HOME": str(home), **env})
    try:
        from adjudicator.hall.hall import Hall

        hall = Hall()
        made = 0
        while made < rows:
            count = min(BATCH, rows - made)
            fields = challenge_fields(tournament="hall", kiosk="k1", lexicon_name="TINY")
            journal.append_batch(hall.db, [Pending(dict(fields)) for _ in range(count)])
            made += count
        hall.db.close()
    finally:
        os.environ.clear()
        os.environ.update(saved)


def hall_a(folder: Path, rows: int) -> tuple[PreparedHome, dict, Path]:
    stick = folder / "stick"
    stick.mkdir(parents=True)
    env = {"ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3")}
    a = prepare_home(folder / "a", env=env)
    fill(a.path, env, rows)
    cli(a.path, "hall", "--fingerprint", env=env)
    cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env, stdin=PASSPHRASE + "\n")
    return a, env, stick


def first_verdict(home: PreparedHome, env: dict, token: str, expected_id: int) -> dict:
    """Start `serve` on `home`, and judge once: the seconds to its start and to the verdict."""
    started = time.perf_counter()
    server = Server(home, env=env).start(timeout=600, poll=0.01)  # up within 10 ms of it
    up = time.perf_counter()
    status, body = post(server.url, token, ["QI", "ZA"], timeout=60)
    judged = time.perf_counter()
    server.stop()
    assert status == 201 and body["id"] == expected_id, (status, body)
    return {"serve": up - started, "verdict": judged - up, "total": judged - started}


def copy_and_check(journal_file: Path, folder: Path) -> float:
    """Seconds to copy the journal's file and check its integrity: the floor of issue 45."""
    target = folder / "copied.sqlite3"
    started = time.perf_counter()
    shutil.copyfile(journal_file, target)
    connection = sqlite3.connect(target)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        connection.close()
    spent = time.perf_counter() - started
    target.unlink()
    return spent


def kit_open_typed(home: Path, stick: Path, env: dict, typing: float) -> float:
    """`kit open` on `home` with its passphrase typed `typing` seconds after it starts: the
    seconds from the passphrase's Enter to its end."""
    child = subprocess.Popen(
        [sys.executable, "-m", "adjudicator", "kit", "open", str(stick), "--passphrase-stdin"],
        env={**os.environ, "ADJUDICATOR_HOME": str(home), **env},
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(typing)
    entered = time.perf_counter()
    _, err = child.communicate(PASSPHRASE + "\n", timeout=600)
    assert child.returncode == 0, err
    return time.perf_counter() - entered


def takeover(size: int, typing: float | None = None) -> dict:
    folder = Path(tempfile.mkdtemp(prefix=f"takeover-{size}-"))
    a, env, stick = hall_a(folder, size)
    floor = first_verdict(a, env, a.token, size + 1)  # A's own restart: the floor
    copied = copy_and_check(stick / "journal.sqlite3", folder)
    started = time.perf_counter()
    opened = run_cli(folder / "b", "kit", "open", str(stick), "--passphrase-stdin",
                     env=env, stdin=PASSPHRASE + "\n")  # fmt: skip
    assert opened.returncode == 0, opened.stderr
    kit_open = time.perf_counter() - started
    b = PreparedHome(folder / "b", a.token, a.pairing_code, env)
    after = first_verdict(b, env, a.token, size + 2)
    found = {"rows": size, "kit_open": kit_open, **after, "takeover": kit_open + after["total"],
             "floor": floor["total"], "copy_floor": copied}  # fmt: skip
    if typing is not None:  # laptop C takes over from B's stick, as a director types
        entered = kit_open_typed(folder / "c", stick, env, typing)
        c = PreparedHome(folder / "c", a.token, a.pairing_code, env)
        typed = first_verdict(c, env, a.token, size + 3)
        found["typed"] = entered + typed["total"]
    shutil.rmtree(folder, ignore_errors=True)
    return found


def verdict_times(server: Server, token: str, count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        status, _ = post(server.url, token, ["QI"])
        times.append((time.perf_counter() - started) * 1000)
        assert status == 201
    return times


def refresh_cost(rounds: int, per_round: int = 500) -> dict:
    """Verdict times with the refresh off, and on (every second, each sealing an item)."""
    folder = Path(tempfile.mkdtemp(prefix="takeover-refresh-"))
    a, env, stick = hall_a(folder, 0)
    record = a.path / "hall" / "hall.json"
    item = stick / "hall-kit" / "items" / "hall.json"
    times: dict[str, list[float]] = {"off": [], "on": []}
    sealed = 0
    for index in range(rounds * 2):
        mode = "on" if index % 2 else "off"
        seconds = "1" if mode == "on" else "0"
        server = Server(a, env={**env, "ADJUDICATOR_KIT_REFRESH_SECONDS": seconds}).start()
        stop = threading.Event()
        writes: list[int] = []
        churner = threading.Thread(target=_churn, args=(stop, record, item, writes), daemon=True)
        churner.start()
        verdict_times(server, a.token, 10)  # warm
        times[mode] += verdict_times(server, a.token, per_round)
        stop.set()
        churner.join()
        server.stop()
        if mode == "on":
            sealed += len(set(writes)) - 1
    return {
        "off_median": statistics.median(times["off"]),
        "on_median": statistics.median(times["on"]),
        "off_p95": statistics.quantiles(times["off"], n=20)[-1],
        "on_p95": statistics.quantiles(times["on"], n=20)[-1],
        "verdicts": len(times["on"]),
        "items_sealed_while_on": sealed,
        **one_refresh(a.path, env),
    }


def _churn(stop: threading.Event, record: Path, item: Path, writes: list[int]) -> None:
    """Every half second the hall's record changes (an item for the next refresh to seal);
    the sealed item's time on the stick is noted."""
    n = 0
    while not stop.wait(0.5):
        n += 1
        body = {"url": f"https://x{n}.local:8443", "name": "x", "port": 8443, "addresses": []}
        record.write_text(json.dumps({**body, "mdns": False}))
        writes.append(item.stat().st_mtime_ns if item.exists() else 0)


def one_refresh(home: Path, env: dict, repeat: int = 50) -> dict:
    """One refresh alone: nothing changed (the usual case), and one item changed."""
    saved = dict(os.environ)
    os.environ.update({"ADJUDICATOR_HOME": str(home), **env})
    try:
        from adjudicator.hall.hall import Hall
        from adjudicator.hall.kit import refresh

        hall = Hall()
        key = hall.signing_key()
        refresh.bring_up_to_date(hall.db, hall.store, key)
        started = time.perf_counter()
        for _ in range(repeat):
            assert refresh.bring_up_to_date(hall.db, hall.store, key) == []
        unchanged = (time.perf_counter() - started) / repeat * 1000
        record = home / "hall" / "hall.json"
        spent = 0.0
        for n in range(repeat):
            record.write_text(json.dumps({"n": n}))
            started = time.perf_counter()
            assert refresh.bring_up_to_date(hall.db, hall.store, key) == ["hall"]
            spent += time.perf_counter() - started
        hall.db.close()
        return {"refresh_unchanged_ms": unchanged, "refresh_one_item_ms": spent / repeat * 1000}
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main(argv: list[str]) -> dict:
    """Each size's takeover (`takeovers`) and the refresh's cost (`refresh`, with rounds)."""
    results: dict = {"takeovers": [], "refresh": {}}
    rounds = 3
    if "--refresh-rounds" in argv:
        at = argv.index("--refresh-rounds")
        rounds = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    typing = None
    if "--typing" in argv:
        at = argv.index("--typing")
        typing = float(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    only_refresh = "--refresh-only" in argv
    argv = [arg for arg in argv if arg != "--refresh-only"]
    sizes = [] if only_refresh else [int(size) for size in argv] or [0, 10_000, 100_000]
    cache_bytecode()  # every start measured, the floor's too, as an installed copy starts
    for size in sizes:
        found = takeover(size, typing)
        results["takeovers"].append(found)
        print(
            f"{found['rows']:>7,} rows: kit open {found['kit_open']:.1f} s, serve "
            f"{found['serve']:.1f} s, first verdict {found['verdict'] * 1000:.0f} ms: takeover "
            f"{found['takeover']:.1f} s; floor (A's own restart to its first verdict) "
            f"{found['floor']:.1f} s; ratio {found['takeover'] / found['floor']:.2f}x; copying "
            f"the file and checking its integrity {found['copy_floor']:.2f} s, ratio "
            f"{found['takeover'] / found['copy_floor']:.1f}x",
            flush=True,
        )
        if "typed" in found:
            print(
                f"{found['rows']:>7,} rows, the passphrase typed {typing:g} s after kit open "
                f"starts: from its Enter to the first verdict {found['typed']:.2f} s, "
                f"{found['typed'] / found['copy_floor']:.1f}x the copy floor",
                flush=True,
            )
    if rounds:
        cost = results["refresh"] = refresh_cost(rounds)
        print(
            f"refresh off: median {cost['off_median']:.2f} ms, p95 {cost['off_p95']:.2f} ms; "
            f"on (every 1 s, {cost['items_sealed_while_on']} items sealed while measuring): "
            f"median {cost['on_median']:.2f} ms, p95 {cost['on_p95']:.2f} ms; on/off median "
            f"{cost['on_median'] / cost['off_median']:.2f}x ({cost['verdicts']} verdicts each); "
            f"one refresh alone: {cost['refresh_unchanged_ms']:.2f} ms with nothing changed, "
            f"{cost['refresh_one_item_ms']:.2f} ms sealing one item"
        )
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
