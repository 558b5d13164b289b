"""Benchmarks for lexicons beyond English (issue 14): the Polish list from Debian's wpolish.

Import and compile (the `debian-polish` recipe: every lowercase entry of wpolish that spells in
Polish tiles, about 4 million words) against the floor, measured side by side in one run: read
the lines, keep the same words, build a bare `marisa_trie.Trie` and save it. Each runs in a fresh
interpreter, so its peak memory is its own; wall-clock and CPU seconds are both recorded (on a
shared machine the CPU time is the steadier figure).

Targets: import within 2x the floor's time; peak memory under 1.5 GB; compiled file within 1.2x
the bare trie of the same words; open under 50 ms, and a worker's open within 3x of mapping the
file (issue 45: benchmarks/lexicon_open.py); an 8-word Polish verdict within 1.5x eight bare
lookups.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import timeit
from pathlib import Path

import pytest

from adjudicator.judging.verdict import Verdict, judge
from adjudicator.words.lexicon import CompiledLexicon
from adjudicator.words.store import LexiconStore
from benchmarks import lexicon_open
from benchmarks.sizing import smallest, timed

WPOLISH = Path("/usr/share/dict/polish")
POLISH_LETTERS = "aąbcćdeęfghijklłmnńoóprsśtuwyzźż"
ROUNDS = smallest(3, 1)
CHALLENGE = ("ŹDŹBŁA", "ŻÓŁW", "GĘŚ", "ŁÓDŹ", "JAŹŃ", "CHRZĄSZCZ", "PSZCZOŁA", "ŻÓŁĆ")

pytestmark = pytest.mark.skipif(not WPOLISH.is_file(), reason="wpolish is not installed")

# One measurement in a fresh interpreter: prints seconds, peak RSS and the compiled file's size.
CHILD = f"""
import json, resource, sys, time
from pathlib import Path
mode, out = sys.argv[1], Path(sys.argv[2])
started = time.perf_counter()
if mode == "floor":
    import marisa_trie
    letters = {POLISH_LETTERS!r}
    with open({str(WPOLISH)!r}, encoding="utf-8") as handle:
        words = [w.upper() for w in handle.read().split("\\n") if w and not w.strip(letters)]
    marisa_trie.Trie(words).save(str(out / "bare.marisa"))
    size = (out / "bare.marisa").stat().st_size
    count = len(words)
else:
    from adjudicator.words.recipe import import_recipe
    from adjudicator.words.store import LexiconStore
    store = LexiconStore(out)
    manifest = import_recipe(store, "debian-polish", force=True).manifest
    size = (out / manifest.compiled_file).stat().st_size
    count = manifest.words
seconds = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{
    "seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime,
    "peak_bytes": usage.ru_maxrss * 1024, "size": size, "words": count,
}}))
"""


def _measure(mode: str, out: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(out)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def polish_store(tmp_path_factory) -> LexiconStore:
    return LexiconStore(tmp_path_factory.mktemp("polish") / "lexicons")


def test_import_polish_against_the_floor(benchmark, polish_store, tmp_path):
    """Floor and import alternate, ROUNDS times each; the best of each gives the ratio."""
    floors, imports = [], []

    def one_round():
        floors.append(_measure("floor", tmp_path))
        imports.append(_measure("import", polish_store.root))

    benchmark.pedantic(one_round, rounds=ROUNDS, iterations=1)
    floor = min(floors, key=lambda r: r["seconds"])
    ours = min(imports, key=lambda r: r["seconds"])
    ratios = [i["seconds"] / f["seconds"] for f, i in zip(floors, imports, strict=True)]
    cpu_ratio = min(i["cpu"] for i in imports) / min(f["cpu"] for f in floors)
    peak_gb = max(i["peak_bytes"] for i in imports) / 1e9
    size_ratio = ours["size"] / floor["size"]
    benchmark.extra_info.update(
        words=ours["words"],
        floor_seconds=[round(f["seconds"], 2) for f in floors],
        import_seconds=[round(i["seconds"], 2) for i in imports],
        ratio_each_round=[round(r, 2) for r in ratios],
        ratio_best=round(ours["seconds"] / floor["seconds"], 2),
        floor_cpu_seconds=[round(f["cpu"], 2) for f in floors],
        import_cpu_seconds=[round(i["cpu"], 2) for i in imports],
        cpu_ratio_best=round(cpu_ratio, 2),
        target_ratio=2.0,
        floor_peak_gb=round(max(f["peak_bytes"] for f in floors) / 1e9, 3),
        import_peak_gb=round(peak_gb, 3),
        target_peak_gb=1.5,
        compiled_bytes=ours["size"],
        bare_trie_bytes=floor["size"],
        size_ratio=round(size_ratio, 3),
        target_size_ratio=1.2,
    )
    print(json.dumps(benchmark.extra_info))
    assert ours["words"] == floor["words"] > 3_900_000  # the same words on both sides
    assert peak_gb < 1.5
    assert size_ratio < 1.2
    if timed():
        assert ours["seconds"] < 2 * floor["seconds"]


@pytest.fixture(scope="module")
def polish(polish_store) -> CompiledLexicon:
    if not polish_store.exists("PL-DEBIAN"):
        _measure("import", polish_store.root)
    return polish_store.open("PL-DEBIAN")


def test_open_the_polish_lexicon(benchmark, polish):
    """A fresh open: copied into a sealed memory file, its SHA-256 checked against the
    manifest, mapped, the proof of its words read."""
    opened = benchmark(CompiledLexicon.open, polish.manifest, polish.path)
    assert "ŻÓŁW" in opened
    if timed():
        benchmark.extra_info.update(target_seconds=0.05, compiled_bytes=polish.path.stat().st_size)
        assert benchmark.stats["mean"] < 0.05


def test_open_the_polish_lexicon_against_mapping_its_file(benchmark, polish_store, polish):
    """Issue 45: a worker's open within 3x of mapping the file (before: 4 s, every word
    fingerprinted); a process's own open beside it."""
    found = benchmark.pedantic(
        lexicon_open.opens_against_mapping,
        args=(polish_store, "PL-DEBIAN", smallest(50, 1)),
        rounds=1,
    )
    lexicon_open.record(benchmark, found)
    if timed():
        assert found["worker_open"] < 3 * found["mapped_floor"]


def _cpu_seconds(call, number: int) -> float:
    return timeit.Timer(call, timer=time.process_time).timeit(number)


def _bare_lookups(trie, words=CHALLENGE):
    for word in words:
        word in trie  # noqa: B015 - the lookup is the point


def test_polish_verdict_against_eight_bare_lookups(benchmark, polish):
    """The verdict on 8 Polish words against 8 bare lookups in the same trie (best of each)."""
    trie = polish.trie
    verdict = benchmark(judge, trie, CHALLENGE)
    assert verdict is Verdict.ACCEPTABLE
    number, judged, looked = smallest(2_000, 1), [], []
    # interleaved, so a busy moment hits both sides alike; CPU time, so time spent waiting for
    # the shared machine's cores is not counted
    for _ in range(smallest(25, 1)):
        judged.append(_cpu_seconds(lambda: judge(trie, CHALLENGE), number))
        looked.append(_cpu_seconds(lambda: _bare_lookups(trie), number))
    pair_ratios = sorted(j / b for j, b in zip(judged, looked, strict=True))
    judged, looked = min(judged), min(looked)
    ratio = judged / looked
    benchmark.extra_info.update(
        timeit_judge_us=round(judged / number * 1e6, 3),
        timeit_bare_us=round(looked / number * 1e6, 3),
        ratio=round(ratio, 2),
        median_pair_ratio=round(pair_ratios[len(pair_ratios) // 2], 2),
        target_ratio=1.5,
    )
    print(f"judge {judged / number * 1e6:.2f} µs, bare {looked / number * 1e6:.2f} µs, {ratio:.2f}")
    if timed():
        assert ratio < 1.5
