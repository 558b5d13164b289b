"""The store reads its folder once and keeps the manifests until the folder changes, so the
verdict path, /healthz and /api/v1/lexicons cost the same with 2 lexicons or 40."""

from __future__ import annotations

import os

import pytest

from adjudicator.errors import LexiconCorrupt, LexiconNotFound
from adjudicator.words import store as store_module
from adjudicator.words.wordlist import WordSet


@pytest.fixture
def reads(monkeypatch):
    """Count the manifest files the store reads."""
    counted = []
    real = store_module._read_manifest

    def counting(path):
        counted.append(path.name)
        return real(path)

    monkeypatch.setattr(store_module, "_read_manifest", counting)
    return counted


def settle(store) -> None:
    """Age the folder's mtime past the settling time, as if the last change were long ago."""
    info = os.stat(store.root)
    os.utime(store.root, ns=(info.st_atime_ns, info.st_mtime_ns - 10**10))


def test_an_unchanged_folder_is_listed_once(store, reads):
    for n in range(40):
        store.save(f"L{n:02d}", WordSet.of(["QI", "ZA"]))
    settle(store)
    for _ in range(5):
        assert len(store.summaries()) == 40
        store.open("L07")
        assert store.names()[0] == "L00"
    assert len(reads) == 40  # each manifest once, then nothing until the folder changes


def test_a_replaced_manifest_is_seen_at_once(store):
    store.save("MAIN", WordSet.of(["QI", "ZA"]))
    settle(store)
    assert store.open("MAIN").manifest.words == 2
    store_again = store_module.LexiconStore(store.root)  # another process, say
    store_again.save("MAIN", WordSet.of(["QI", "ZA", "JO"]))
    assert store.open("MAIN").manifest.words == 3
    assert store.names() == ["MAIN"]


def test_a_change_right_after_a_listing_is_not_missed(store, reads):
    """Folder mtimes tick coarsely: a listing made within the settling time is not trusted."""
    store.save("ONE", WordSet.of(["QI"]))
    assert store.names() == ["ONE"]
    stat = os.stat(store.root)
    (store.root / "TWO.json").write_text((store.root / "ONE.json").read_text())
    os.utime(store.root, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same tick as before
    assert store.names() == ["ONE", "TWO"]


def test_removed_and_damaged_manifests_are_reported(store):
    store.save("MAIN", WordSet.of(["QI"]))
    store.save("OTHER", WordSet.of(["ZA"]))
    settle(store)
    (store.root / "OTHER.json").write_text("{not json")
    os.replace(store.root / "OTHER.json", store.root / "BROKEN.json")
    with pytest.raises(LexiconCorrupt, match="BROKEN is unreadable"):
        store.manifest("BROKEN")
    with pytest.raises(LexiconNotFound, match="compiled lexicons: BROKEN, MAIN"):
        store.manifest("OTHER")
    assert [m.name for m in store.manifests()] == ["MAIN"]
