"""The load and measurement scripts of this folder, each through its own main (as `python
benchmarks/NAME.py` or `python -m benchmarks.NAME` runs it). Under `--benchmark-disable` (`make
bench-once`, run by `make test` and so by CI) each runs once, at the smallest size that still
runs every part of it, so that none can break unseen. At their documented sizes they take hours
(fills of 1,000,000 rows, a thousand kiosks, attacks of a minute a phase), so a timed `make
bench` runs them only when asked: `ADJUDICATOR_BENCH_SCRIPTS=full make bench`.

A script that compares two checkouts (`--before TREE`, `*_trees.py`, `--ref`) runs this one as
both. Each test checks what a broken run could not give (every part measured, counts above
zero, the journal intact), never a time. The helpers floor_wsgi, journal_floor, minimal_app and
verdict_floor run inside these scripts (journal_floor's own main inside bench_scaling's).
"""

from __future__ import annotations

import importlib
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.sizing import is_smallest, smallest  # noqa: E402

from tests.support.netns import require_namespaces  # noqa: E402
from tests.support.postgres import find_bin  # noqa: E402

THIS = str(ROOT)  # the checkout, as both trees of a comparison
SHARED_LEXICONS = ROOT.parent / "shared" / "lexicons"
WPOLISH = Path("/usr/share/dict/polish")

pytestmark = pytest.mark.skipif(
    not is_smallest() and os.environ.get("ADJUDICATOR_BENCH_SCRIPTS") != "full",
    reason="the scripts at their documented sizes take hours: ADJUDICATOR_BENCH_SCRIPTS=full "
    "make bench (make bench-once runs each once, at its smallest size)",
)


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    """The scripts set the environment, sys.path, the working folder and a SIGTERM handler for
    the rest of their process: each test gives them back."""
    environ, path = dict(os.environ), list(sys.path)
    handler = signal.getsignal(signal.SIGTERM)
    monkeypatch.chdir(os.getcwd())
    yield
    os.environ.clear()
    os.environ.update(environ)
    sys.path[:] = path
    signal.signal(signal.SIGTERM, handler)


def run(benchmark, capsys, name: str, *args):
    """benchmarks/NAME.py's main, called once with `args`, its tables printed: its result."""
    main = importlib.import_module(f"benchmarks.{name}").main
    with capsys.disabled():
        print(f"\n{name}")
        return benchmark.pedantic(main, args=args, rounds=1)


def needs_postgres() -> None:
    if find_bin() is None:
        pytest.skip("no PostgreSQL binaries (initdb, pg_ctl) to start a temporary server")


def needs_wrk() -> None:
    if shutil.which("wrk") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the load scripts, but wrk is not installed")
        pytest.skip("wrk is not installed (Debian package wrk)")


def needs_lexicons() -> None:
    if not (SHARED_LEXICONS / "CSW24.txt").is_file():
        pytest.skip(f"the real word lists are not at {SHARED_LEXICONS}")


def test_connection_flood(benchmark, capsys):
    small = ["--seconds", "1", "--kiosks", "1", "--rounds", "1", "--flood", "100"]
    results = run(benchmark, capsys, "connection_flood", [*smallest([], small), "--uncapped"])
    phases = ["none", "flood, capped", "flood, uncapped (0)"]
    assert [r["phase"] for r in results] == phases * smallest(3, 1)
    assert all(r["verdicts"] > 0 for r in results), results
    assert all(r["opened"] > 0 for r in results if r["phase"] != "none"), results


def test_explain_plans(benchmark, capsys):
    needs_postgres()
    argv = [*smallest([], ["--rows", "1000"]), "--analyze"]
    plans = run(benchmark, capsys, "explain_plans", argv)
    assert plans and all(plan.strip() for _, plan in plans), plans


def test_export_verify_ratio(benchmark, capsys):
    """The script checks first that its floor makes every row's hash as the program does."""
    needs_postgres()
    small = ["--rows", "1000", "--rounds", "1"]
    results = run(benchmark, capsys, "export_verify_ratio", smallest([], small))
    assert set(results) == {"sqlite", "postgresql"}
    for backend in results.values():
        assert set(backend) == {"verify", "export"}
        assert all(job["median"] > 0 for job in backend.values()), backend


def test_held_poll_verdicts(benchmark, capsys):
    small = ["--kiosks", "20", "--seconds", "1", "--warm-up", "2", "--rounds", "1"]
    argv = ["--before", THIS, *smallest([], small)]
    results = run(benchmark, capsys, "held_poll_verdicts", argv)
    assert {r["kind"] for r in results} == {"quiet", "held", "held-before"}
    for r in results:
        assert r["verdicts"] > 0 and r["failed"] == 0, r
        if r["kind"] != "quiet":  # the kiosks held their polls meanwhile
            assert r["kiosk_requests"] > 0 and r["kiosk_errors"] == 0, r


def test_players_record(benchmark, capsys):
    small = ["--rows", "300", "--rounds", "1", "--beside", "5"]
    said = run(benchmark, capsys, "players_record", smallest(["--beside", "1000"], small))
    assert any("season page, HTML" in line for line in said), said
    verdicts = [line for line in said if ": verdicts " in line]
    assert len(verdicts) == 2 and "alone" in verdicts[0] and "beside the season page" in verdicts[1]


def test_interleaved_verdicts(benchmark, capsys):
    argv = [THIS, THIS, *smallest([], ["--count", "20"])]
    found = run(benchmark, capsys, "interleaved_verdicts", argv)
    assert set(found) == {"/healthz", "/api/v1/adjudications"}
    for servers in found.values():
        assert len(servers) == 2 and all(s["p50"] > 0 for s in servers.values()), servers


def test_keyed_rows(benchmark, capsys):
    small = ["--ref", "HEAD", "--rounds", "1", "--verdicts", "20", "--rows", "1000"]
    results = run(benchmark, capsys, "keyed_rows", smallest([], small))
    assert set(results) == {"verdicts", "verify", "command"}
    for measure in results.values():
        assert len(measure["before"]) == len(measure["after"]) == smallest(5, 1), measure
    rows = {measured["rows"] for runs in results["verify"].values() for measured in runs}
    assert rows == {smallest(1_000_000, 1000)}


def test_lexicon_open_trees(benchmark, capsys):
    needs_lexicons()
    small = ["--rounds", "1", "--judge-runs", "1"]
    results = run(benchmark, capsys, "lexicon_open_trees", ["--before", THIS, *smallest([], small)])
    assert len(results) == 2 * smallest(2, 1)
    for r in results:
        assert "CSW24" in r["opens"] and (not WPOLISH.is_file() or "PL-DEBIAN" in r["opens"]), r
        assert r["judge"]["ratio"] > 0, r


def test_login_flood(benchmark, capsys):
    small = ["--seconds", "1", "--kiosks", "1", "--attackers", "1"]
    (found,) = run(benchmark, capsys, "login_flood", smallest([], small))
    assert found["floor"] and found["control"] and found["flood"] and found["pages"] > 0, found
    assert found["sign_ins"].get(401, 0) > 0, found["sign_ins"]  # password-checked attempts


def test_memory_workers(benchmark, capsys):
    """At its one size (12 lexicons, 720 challenges, 2 workers: seconds)."""
    needs_lexicons()
    result = run(benchmark, capsys, "memory_workers", [])
    assert result["lexicons"] == 12 and len(result["after"]) == result["workers"] == 2, result
    assert all(worker["Pss"] > 0 for worker in result["after"].values()), result


def test_mirror_side_by_side(benchmark, capsys):
    rounds = smallest(40, 2)
    found = run(benchmark, capsys, "mirror_side_by_side", rounds)
    assert set(found) == {16, 1}
    assert all(len(f["ratios"]) == rounds and min(f["ratios"]) > 0 for f in found.values())


def test_pages_side_by_side(benchmark, capsys):
    needs_postgres()
    small = ["--small", "100", "--large", "1000", "--views", "1"]
    results = run(benchmark, capsys, "pages_side_by_side", smallest([], small))
    from benchmarks.scaling import PAGES

    assert [r["backend"] for r in results] == ["sqlite", "postgresql"]
    for r in results:
        assert set(r["pages"]) == set(PAGES) and all(p["ratio"] > 0 for p in r["pages"].values())


def test_rulebooks_verdict(benchmark, capsys):
    found = run(benchmark, capsys, "rulebooks_verdict", smallest([], ["--count", "5"]))
    for way in ("plain", "named", "grants", "holder"):
        assert found[way]["ratio"] > 0, found


def test_starve_attacks(benchmark, capsys):
    require_namespaces()
    small = ["--seconds", "1", "--rounds", "1", "--poll-wait", "1", "--cpu-batches", "1"]
    small += ["--cpu-per-batch", "20"]
    found = run(benchmark, capsys, "starve_attacks", ["--cpu-before", THIS, *smallest([], small)])
    assert set(found["cpu"]) == {"before", "after"}, found["cpu"]
    from benchmarks.starve_attacks import PHASES

    phases = [r["phase"] for r in found["phases"]]
    assert sorted(phases) == sorted(PHASES * smallest(2, 1))
    assert all(r["verdicts_per_s"] > 0 and r["polls"] > 0 for r in found["phases"]), found


def test_takeover(benchmark, capsys):
    small = ["0", "--refresh-rounds", "1"]
    typing = ["--typing", smallest("3", "0.5")]  # a second takeover, its passphrase typed
    found = run(benchmark, capsys, "takeover", [*smallest([], small), *typing])
    sizes = smallest([0, 10_000, 100_000], [0])
    assert [t["rows"] for t in found["takeovers"]] == sizes
    assert all(t["takeover"] > 0 and t["floor"] > 0 for t in found["takeovers"]), found
    assert all(t["typed"] > 0 for t in found["takeovers"]), found
    assert found["refresh"]["verdicts"] == 500 * smallest(3, 1), found["refresh"]


def test_takeover_lexicon_trees(benchmark, capsys):
    needs_lexicons()
    if not is_smallest() and not WPOLISH.is_file():  # the Polish list: the documented size
        pytest.skip("wpolish is not installed (/usr/share/dict/polish)")
    small = ["--rounds", "1", "--list", "csw24"]  # CSW24: a smaller list than the Polish one
    argv = ["--before", THIS, *smallest([], small)]
    found = run(benchmark, capsys, "takeover_lexicon_trees", argv)
    assert sorted(r["which"] for r in found) == sorted(["after", "before"] * smallest(2, 1))
    assert all(r["takeover"] > 0 and r["kit_open"] > 0 for r in found), found


def test_two_laptops(benchmark, capsys):
    require_namespaces()
    found = run(benchmark, capsys, "two_laptops", smallest([], ["1"]))
    assert len(found) == smallest(3, 1)
    assert all(set(seen) == {"a", "b"} for seen in found), found  # each heard the other


def test_verdict_app_trees(benchmark, capsys):
    small = ["--rounds", "1", "--per-round", "5"]
    used = run(benchmark, capsys, "verdict_app_trees", [THIS, *smallest([], small)])
    assert list(used) == [THIS] and len(used[THIS]) == smallest(16, 1), used
    assert all(ms > 0 for ms in used[THIS]), used


def test_verdict_threads(benchmark, capsys):
    small = ["--batches", "2", "--per-batch", "100"]
    medians = run(benchmark, capsys, "verdict_threads", ["--before", THIS, *smallest([], small)])
    trees = ("after", "before")
    assert set(medians) == {
        f"{kind}@{tree}" for kind in ("serve-tls", "minimal-tls") for tree in trees
    }
    assert all(medians[f"serve-tls@{tree}"]["total"] > 0 for tree in trees), medians


def test_verdict_layers(benchmark, capsys):
    small = ["--batches", "1", "--per-batch", "100", "--in-process", "20"]
    found = run(benchmark, capsys, "verdict_layers", smallest([], small))
    assert len(found["wire"]) == 5 and found["wire"]["serve-tls"] > 0, found["wire"]
    assert found["per_verdict"] > 0 and found["layers"]["the view (kiosk/api.py adjudicate)"] > 0


def test_load_hall_tls(benchmark, capsys):
    needs_wrk()
    require_namespaces()
    small = ["--seconds", "1", "--rounds", "1", "--connections", "2"]
    results = run(benchmark, capsys, "load_hall_tls", smallest([], small))
    assert [r["slow"] for r in results] == [False, True] * smallest(2, 1)
    for r in results:
        assert r["requests"] > 0 and r["errors"] + r["non2xx"] == 0, r
        assert "verified" in r["verify"], r["verify"]


def test_load_kiosk(benchmark, capsys):
    needs_wrk()
    needs_postgres()
    small = ["--seconds", "1", "--connections", "2"]
    results = run(benchmark, capsys, "load_kiosk", ["--matrix", *smallest([], small)])
    runs = [(r["database"], r["servers"]) for r in results]
    assert runs == [
        (database, servers) for database in ("sqlite", "postgresql") for servers in (1, 2)
    ]
    for r in results:
        judged = r["adjudications"]
        assert judged["requests"] > 0 and judged["journal_rows"] > 0, r
        assert "verified" in judged["journal_verify"], judged["journal_verify"]


def test_load_polls(benchmark, capsys):
    small = ["--kiosks", "20", "--seconds", "1", "--warm-up", "2", "--rounds", "1"]
    results = run(benchmark, capsys, "load_polls", ["--before", THIS, *smallest([], small)])
    kinds = ["before", "after", "floor", "floor-gthread"]
    assert sorted(r["kind"] for r in results) == sorted(kinds * smallest(2, 1))
    for r in results:  # the kiosks were answered, each time with a status (200) or a 304
        assert r["errors"] == 0 and r["all_statuses"].get(200, 0) > 0, r
        assert set(r["all_statuses"]) <= {200, 304}, r
