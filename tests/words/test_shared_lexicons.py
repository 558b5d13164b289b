"""One sealed copy of each lexicon per server: `adjudicator serve` makes it and checks it before
gunicorn forks, every worker maps it, so the workers share its pages (and still never see a byte
that has not matched the manifest), and a worker's open hashes nothing unless the file changed
since. Tried in-process and against a real server."""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path

import pytest

from adjudicator.errors import LexiconCorrupt
from adjudicator.words import lexicon as lexicon_module
from adjudicator.words.lexicon import CompiledLexicon, proof_path, seal_for_workers
from adjudicator.words.sealed_lexicons import HANDOFF_VARIABLE, inherited_copy, memfd_name
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.servers import Server, post, prepare_home
from support.words import TINY_WORDS

pytestmark = [
    pytest.mark.slow,  # real servers (gunicorn) and their workers' memory
    pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="Linux memfd only"),
]


def memfd_mappings(pid: int | str = "self") -> dict[int, str]:
    """Inode -> name of every lexicon memory file mapped into process `pid`."""
    found = {}
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith("/memfd:lexicon-"):
            found[int(fields[4])] = fields[5]
    return found


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.delenv(HANDOFF_VARIABLE, raising=False)
    store = LexiconStore(root=tmp_path / "lexicons")
    store.save("TINY", WordSet.of(TINY_WORDS))
    store.save("OTHER", WordSet.of(["CAT", "DOG"]))
    return store


def close_handed_off() -> None:
    for pair in os.environ.get(HANDOFF_VARIABLE, "").split(","):
        if "=" in pair:
            os.close(int(pair.partition("=")[2].partition(":")[0]))


def settle(store: LexiconStore) -> None:
    """The compiled files as if written an hour ago (a file written within the last second
    may change without its mtime moving: each worker hashes such a file)."""
    for manifest in store.manifests():
        path = store.root / manifest.compiled_file
        hour_ago = path.stat().st_mtime - 3600
        os.utime(path, (hour_ago, hour_ago))


def no_hashing(monkeypatch) -> None:
    def refuse(*_):
        raise AssertionError("a worker hashed a file it did not need to")

    monkeypatch.setattr(lexicon_module, "file_sha256", refuse)
    monkeypatch.setattr(lexicon_module, "_sealed_digest", refuse)
    monkeypatch.setattr(CompiledLexicon, "check_fingerprint", refuse)


def test_a_worker_maps_the_servers_sealed_copy_instead_of_making_its_own(store):
    assert seal_for_workers(store) == 2
    try:
        sha = store.manifest("TINY").compiled_sha256
        fd, _ = inherited_copy(sha)
        assert os.get_inheritable(fd)
        worker_store = LexiconStore(root=store.root)  # as in a freshly forked worker
        lexicon = worker_store.open("TINY")
        assert "QI" in lexicon and "QZ" not in lexicon and len(lexicon.trie) == len(TINY_WORDS)
        assert os.fstat(fd).st_ino in memfd_mappings()  # mapped, not copied
    finally:
        close_handed_off()


def test_without_a_handed_off_copy_the_worker_maps_a_private_one(store):
    before = set(memfd_mappings())
    lexicon = LexiconStore(root=store.root).open("TINY")
    assert "QI" in lexicon
    private = set(memfd_mappings()) - before
    assert len(private) == 1  # its own sealed copy, mapped (never the file itself)


def test_a_damaged_lexicon_is_not_sealed_and_is_reported_by_the_worker(store):
    path = store.root / store.manifest("OTHER").compiled_file
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    assert seal_for_workers(store) == 1  # TINY only
    close_handed_off()


def test_a_copy_that_is_not_sealed_or_not_named_for_its_bytes_is_never_mapped(store, monkeypatch):
    """A copy is trusted by its seals and its name, which only the server gives it when it has
    checked the bytes: a copy that could still change, or one made for other bytes (a stale
    variable naming a descriptor number now used for another copy), is never mapped."""
    sha = store.manifest("TINY").compiled_sha256
    unsealed = os.memfd_create(memfd_name("TINY", sha), os.MFD_ALLOW_SEALING)
    wrong = os.memfd_create(memfd_name("TINY", "0" * 64), os.MFD_ALLOW_SEALING)
    try:
        os.write(wrong, b"not a trie")
        fcntl.fcntl(wrong, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK)
        fcntl.fcntl(wrong, fcntl.F_ADD_SEALS, fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        monkeypatch.setenv(HANDOFF_VARIABLE, f"{sha}={unsealed}:1:2:3")
        assert inherited_copy(sha) is None  # could still be changed: never mapped
        monkeypatch.setenv(HANDOFF_VARIABLE, f"{sha}={wrong}:1:2:3")
        assert inherited_copy(sha) is None  # sealed, but made for other bytes
        lexicon = LexiconStore(root=store.root).open("TINY")  # a private copy instead
        assert "QI" in lexicon and os.fstat(wrong).st_ino not in memfd_mappings()
        for value in (f"{sha}=99999:1:2:3", f"{sha}=x", f"{sha}={wrong}", f"{sha}={wrong}:1:2"):
            monkeypatch.setenv(HANDOFF_VARIABLE, value)
            assert inherited_copy(sha) is None
    finally:
        os.close(unsealed)
        os.close(wrong)


def test_a_worker_opens_a_settled_lexicon_without_hashing_or_fingerprinting(store, monkeypatch):
    settle(store)
    seal_for_workers(store)
    try:
        no_hashing(monkeypatch)
        lexicon = LexiconStore(root=store.root).open("TINY")
        assert "QI" in lexicon and "QZ" not in lexicon
    finally:
        close_handed_off()


def test_a_file_written_within_the_second_is_hashed_by_the_worker(store, monkeypatch):
    seal_for_workers(store)  # TINY was just saved: its mtime may not move on an edit now
    try:
        hashed = []
        real = lexicon_module.file_sha256
        monkeypatch.setattr(lexicon_module, "file_sha256", lambda p: hashed.append(p) or real(p))
        assert "QI" in LexiconStore(root=store.root).open("TINY")
        assert hashed == [store.root / store.manifest("TINY").compiled_file]
    finally:
        close_handed_off()


def test_the_server_proves_a_store_from_before_proofs_once_before_its_workers_fork(
    store, monkeypatch
):
    for manifest in store.manifests():
        proof_path(store.root / manifest.compiled_file).unlink()
    settle(store)
    assert seal_for_workers(store) == 2
    try:
        for manifest in store.manifests():
            assert proof_path(store.root / manifest.compiled_file).exists()
        no_hashing(monkeypatch)  # the workers read the proofs
        assert "DOG" in LexiconStore(root=store.root).open("OTHER")
    finally:
        close_handed_off()


def test_the_server_hands_off_no_copy_of_words_its_fingerprint_does_not_name(store):
    """The forgery of issue 22 in a store from before proofs: not handed off; the worker that
    opens it fingerprints the words and takes it out of service."""
    tiny, other = store.manifest("TINY"), store.manifest("OTHER")
    for manifest in (tiny, other):
        proof_path(store.root / manifest.compiled_file).unlink()
    data = json.loads(store.manifest_path("OTHER").read_text())
    data.update(compiled_file=tiny.compiled_file, compiled_sha256=tiny.compiled_sha256)
    data.update(words=tiny.words)
    store.manifest_path("OTHER").write_text(json.dumps(data))
    assert seal_for_workers(store) == 1  # TINY only
    try:
        fresh = LexiconStore(root=store.root)
        with pytest.raises(LexiconCorrupt, match="do not have the fingerprint its manifest"):
            fresh.open("OTHER")
        assert "OTHER" in fresh.out_of_service() and "QI" in fresh.open("TINY")
    finally:
        close_handed_off()


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_the_workers_of_a_real_server_share_one_mapped_copy(tmp_path):
    home = prepare_home(tmp_path / "home")
    with Server(home, workers=2) as server:
        for _ in range(12):
            status, body = post(server.url, home.token, ["QI", "ZA"])
            assert status == 201 and body["verdict"] == "ACCEPTABLE"
        master = server.process.pid
        held = {
            os.stat(f"/proc/{master}/fd/{fd}").st_ino
            for fd in os.listdir(f"/proc/{master}/fd")
            if os.readlink(f"/proc/{master}/fd/{fd}").startswith("/memfd:lexicon-TINY")
        }
        assert len(held) == 1  # the server made one sealed copy of TINY
        workers = children(master)
        assert len(workers) == 2
        mapped = [memfd_mappings(worker) for worker in workers]
        assert any(mapped)  # at least the worker(s) that judged mapped it
        for inodes in mapped:
            assert set(inodes) <= held  # the same copy, never a private one


def test_a_file_damaged_on_disk_is_reported_even_with_an_intact_copy_handed_off(store):
    settle(store)
    seal_for_workers(store)
    try:
        path = store.root / store.manifest("TINY").compiled_file
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))  # its mtime moves: the worker hashes it
        with pytest.raises(LexiconCorrupt, match="does not match its manifest"):
            LexiconStore(root=store.root).open("TINY")
    finally:
        close_handed_off()
