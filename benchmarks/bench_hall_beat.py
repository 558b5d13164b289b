"""The hall's beat on the verdict's path (record/journal/hall_beat.py): what each append costs a
server `adjudicator hall` runs, to check that the hall process beat lately, beside its floors in
the same run: reading the beat's file alone, and the plain chain-head read the append makes
under the same lock (benchmarks/bench_receipts.py). It is paid once per group commit, not once
per verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.record.journal import hall_beat


@pytest.fixture
def beat(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "beat"
    hall_beat.write(path, hall_beat.now())
    monkeypatch.setenv(hall_beat.BEAT_ENV, str(path))
    return path


def test_the_beat_checked_in_an_append(benchmark, beat):
    assert benchmark(hall_beat.paused_for) is None


def test_the_beat_file_read_floor(benchmark, beat):
    def read() -> bytes:
        with open(beat, "rb") as file:
            return file.read(64)

    assert benchmark(read)


def test_no_beat_to_check_as_serve_runs(benchmark, monkeypatch):
    monkeypatch.delenv(hall_beat.BEAT_ENV, raising=False)
    assert benchmark(hall_beat.paused_for) is None
