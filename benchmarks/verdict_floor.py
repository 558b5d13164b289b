"""The floor of a verdict in process, and the timing of jobs side by side with it.

The floor is a bare durable insert and commit of one row into an SQLite table in the given folder
(WAL, synchronous=FULL, as the journal): the fsync a recorded verdict cannot do without. It
imports nothing from the program, so a script measuring another checkout can use it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path


class BareInsert:
    """Calling it inserts and commits one row, durably; close() when done."""

    def __init__(self, folder: Path):
        self.connection = sqlite3.connect(folder / "bare.sqlite3", isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=FULL")
        self.connection.execute(
            "CREATE TABLE rows (id INTEGER PRIMARY KEY, words TEXT, row_hash TEXT)"
        )

    def __call__(self) -> None:
        self.connection.execute("BEGIN IMMEDIATE")
        self.connection.execute(
            "INSERT INTO rows (words, row_hash) VALUES (?, ?)", ("QI ZA", "f" * 64)
        )
        self.connection.execute("COMMIT")

    def close(self) -> None:
        self.connection.close()


def interleaved(
    jobs: dict[str, Callable[[], object]], count: int, warm: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each job once in turn, `count` times over, after `warm` untimed turns: the wall-clock and
    the CPU seconds of each call, by job."""
    for _ in range(warm):
        for job in jobs.values():
            job()
    wall: dict[str, list[float]] = {label: [] for label in jobs}
    cpu: dict[str, list[float]] = {label: [] for label in jobs}
    for _ in range(count):
        for label, job in jobs.items():
            started, started_cpu = time.perf_counter(), time.process_time()
            job()
            cpu[label].append(time.process_time() - started_cpu)
            wall[label].append(time.perf_counter() - started)
    return wall, cpu
