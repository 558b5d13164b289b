"""Compiled lexicons re-checked while serving: a file damaged in place with its timestamps put
back is found at the next re-check and the lexicon goes out of service (for every process)
until the director imports it again or verifies it; no damaged byte ever reaches marisa, so no
damage, at any offset, can crash the process. The live-server version is in test_faults.py."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from adjudicator.errors import LexiconCorrupt
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.words import TINY_WORDS


def damage_keeping_times(path: Path, offset: int | None = None, data: bytes = b"\xff") -> None:
    """Overwrite bytes in place, then put the file's access and modification times back."""
    before = path.stat()
    with open(path, "r+b") as handle:
        handle.seek(before.st_size // 2 if offset is None else offset)
        handle.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )


@pytest.fixture
def served(tmp_path):
    """A store that re-checks every 0.3 s, with TINY open in it: (store, compiled file path)."""
    store = LexiconStore(root=tmp_path / "lexicons", recheck_seconds=0.3)
    store.save("TINY", WordSet.of(TINY_WORDS))
    assert "QI" in store.open("TINY")
    return store, store.root / store.manifest("TINY").compiled_file


def test_damage_with_timestamps_put_back_is_found_at_the_next_recheck(served):
    store, path = served
    original = path.read_bytes()
    damage_keeping_times(path, data=bytes(b ^ 0xFF for b in original[100:140]))
    assert "QI" in store.open("TINY")  # until the re-check: the copy loaded, checked, intact
    time.sleep(0.35)
    with pytest.raises(LexiconCorrupt, match="periodic re-check"):
        store.open("TINY")
    assert "TINY" in store.out_of_service()
    with pytest.raises(LexiconCorrupt, match="out of service"):
        store.open("TINY")
    other_process = LexiconStore(root=store.root, recheck_seconds=60)
    with pytest.raises(LexiconCorrupt, match="out of service"):
        other_process.open("TINY")


def test_the_director_verifying_the_restored_file_brings_it_back(served):
    store, path = served
    original = path.read_bytes()
    damage_keeping_times(path, offset=0, data=b"XXXX")
    time.sleep(0.35)
    with pytest.raises(LexiconCorrupt):
        store.open("TINY")
    with pytest.raises(LexiconCorrupt):
        store.verify("TINY")  # still damaged: stays out of service
    path.write_bytes(original)
    with pytest.raises(LexiconCorrupt, match="out of service"):
        store.open("TINY")  # put back, but the director has not looked yet
    store.verify("TINY")
    assert store.out_of_service() == {} and "QI" in store.open("TINY")


def test_reimporting_brings_it_back(served):
    store, path = served
    damage_keeping_times(path)
    time.sleep(0.35)
    with pytest.raises(LexiconCorrupt):
        store.open("TINY")
    store.save("TINY", WordSet.of(TINY_WORDS))
    assert "QI" in store.open("TINY") and store.out_of_service() == {}


def test_a_file_truncated_under_a_loaded_lexicon_does_not_kill_the_process(served):
    store, path = served
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size // 3)
    time.sleep(0.35)
    with pytest.raises(LexiconCorrupt):
        store.open("TINY")


def test_damage_at_any_offset_is_refused_never_loaded(tmp_path):
    """Bytes all over the compiled file flipped in turn (mtime kept; the header and the tail
    byte by byte, the rest every 23rd byte): refused every time, and nothing crashes, since no
    byte reaches marisa before the file matches its manifest."""
    store = LexiconStore(root=tmp_path / "lexicons", recheck_seconds=60)
    store.save("TINY", WordSet.of(TINY_WORDS))
    path = store.root / store.manifest("TINY").compiled_file
    original = path.read_bytes()
    size = len(original)
    offsets = sorted({*range(64), *range(64, size - 64, 23), *range(size - 64, size)})
    for offset in offsets:
        damage_keeping_times(path, offset, bytes([original[offset] ^ 0xFF]))
        fresh = LexiconStore(root=store.root, recheck_seconds=60)
        with pytest.raises(LexiconCorrupt):
            fresh.open("TINY")
        path.write_bytes(original)
        fresh.verify("TINY")  # back in service for the next offset
    assert "QI" in LexiconStore(root=store.root).open("TINY")


def test_a_missing_file_during_a_new_import_is_not_damage(served):
    store, path = served
    path.unlink()
    fresh = LexiconStore(root=store.root)
    with pytest.raises(LexiconCorrupt, match="missing"):
        fresh.open("TINY")
    assert store.out_of_service() == {}


def test_the_recheck_interval_is_a_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_LEXICON_RECHECK_SECONDS", "7")
    assert LexiconStore(root=tmp_path / "a").recheck_seconds == 7
    monkeypatch.setenv("ADJUDICATOR_LEXICON_RECHECK_SECONDS", "0")
    with pytest.raises(Exception, match="ADJUDICATOR_LEXICON_RECHECK_SECONDS"):
        LexiconStore(root=tmp_path / "b")


def test_without_memfd_the_same_bytes_are_checked_and_loaded(tmp_path, monkeypatch):
    monkeypatch.delattr(os, "memfd_create")  # as on a system without it
    store = LexiconStore(root=tmp_path / "lexicons", recheck_seconds=60)
    store.save("TINY", WordSet.of(TINY_WORDS))
    assert "QI" in store.open("TINY") and "QX" not in store.open("TINY")
    path = store.root / store.manifest("TINY").compiled_file
    damage_keeping_times(path, 0, b"\x00\x01")
    with pytest.raises(LexiconCorrupt):
        LexiconStore(root=store.root).open("TINY")
