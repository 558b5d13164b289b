"""Issue 45: opening a compiled lexicon against mapping its file, side by side in one run.

- A worker's open (`CompiledLexicon.open` under `serve`, which sealed a checked copy of every
  lexicon before its workers forked: the worker maps that copy, and reads the proof beside
  the compiled file) against the floor, marisa mapping the same file (`Trie().mmap`).
- A process's own open (`adjudicator judge`, a worker opening a lexicon imported after the
  start): a private sealed copy, its SHA-256 checked, mapped, the proof read; against the
  same floor, and against what its integrity check cannot do without (the file read and its
  SHA-256, then mapped).

Timed in CPU seconds (the process's own), best of alternating rounds: on a shared machine the
wall clock also counts the moments another process held the core. The compiled file is dated
an hour back first: a store's files are written at import, long
before a server starts (a file written within the last second is hashed by every worker, as
its timestamps could not show an edit).
"""

from __future__ import annotations

import os
import time
import timeit

import marisa_trie

from adjudicator.words.lexicon import CompiledLexicon, file_sha256, seal_for_workers
from adjudicator.words.sealed_lexicons import HANDOFF_VARIABLE
from benchmarks.alternating import alternate
from benchmarks.sizing import smallest


def timed(statement, number: int):
    """A timing for `alternate`: the best CPU seconds per call over 3 runs of `number`."""
    number = smallest(number, 1)
    timer = timeit.Timer(statement, timer=time.process_time)
    return lambda: min(timer.repeat(repeat=smallest(3, 1), number=number)) / number


def opens_against_mapping(store, name: str, number: int) -> dict[str, float]:
    """Best seconds of each open and of its floors, alternating, as {what: seconds}."""
    manifest = store.manifest(name)
    path = store.root / manifest.compiled_file
    hour_ago = path.stat().st_mtime - 3600
    os.utime(path, (hour_ago, hour_ago))

    def mapped():
        trie = marisa_trie.Trie()
        trie.mmap(str(path))
        return trie

    def read_hashed_mapped():
        file_sha256(path)
        return mapped()

    def opened():
        return CompiledLexicon.open(manifest, path)

    saved = os.environ.pop(HANDOFF_VARIABLE, None)
    try:
        private, floor_check, floor = alternate(
            timed(opened, number), timed(read_hashed_mapped, number), timed(mapped, number)
        )
        assert seal_for_workers(store) >= 1
        handed = os.environ[HANDOFF_VARIABLE]
        try:
            worker, floor_again = alternate(timed(opened, number), timed(mapped, number))
        finally:
            for pair in handed.split(","):
                os.close(int(pair.partition("=")[2].partition(":")[0]))
    finally:
        os.environ.pop(HANDOFF_VARIABLE, None)
        if saved is not None:
            os.environ[HANDOFF_VARIABLE] = saved
    return {
        "worker_open": worker,
        "mapped_floor": min(floor, floor_again),
        "private_open": private,
        "read_hashed_mapped_floor": floor_check,
        "compiled_bytes": path.stat().st_size,
    }


def record(benchmark, found: dict[str, float]) -> None:
    """Put the figures and ratios in the benchmark's extra info, and print them."""
    floor = found["mapped_floor"]
    ratios = {
        "worker_ratio": found["worker_open"] / floor,
        "private_ratio_to_mapping": found["private_open"] / floor,
        "private_ratio_to_read_hashed": found["private_open"] / found["read_hashed_mapped_floor"],
    }
    benchmark.extra_info.update(
        {k: round(v * 1e6, 1) for k, v in found.items() if k != "compiled_bytes"},
        compiled_bytes=found["compiled_bytes"],
        **{k: round(v, 2) for k, v in ratios.items()},
        target_worker_ratio=3,
    )
    print(
        f"\nworker open {found['worker_open'] * 1e6:.1f} us, mapping the file "
        f"{floor * 1e6:.1f} us: {ratios['worker_ratio']:.2f}x; private open "
        f"{found['private_open'] * 1e6:.1f} us ({ratios['private_ratio_to_mapping']:.1f}x "
        f"mapping, {ratios['private_ratio_to_read_hashed']:.2f}x reading, hashing and mapping "
        f"it: {found['read_hashed_mapped_floor'] * 1e6:.1f} us)"
    )
