"""The proof beside each compiled file (issue 45): opening a lexicon checks that its words are
the ones its fingerprint names without reading them, and still refuses the forgery of issue 22
(a manifest pairing one edition's file, checksum and count with another's fingerprint)."""

from __future__ import annotations

import json
import os
import stat

import pytest

from adjudicator.errors import LexiconCorrupt
from adjudicator.words.lexicon import proof_path
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet


def proof_of(store: LexiconStore, name: str):
    return proof_path(store.root / store.manifest(name).compiled_file)


def edit_manifest(store: LexiconStore, name: str, **changes) -> None:
    path = store.manifest_path(name)
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def test_an_import_proves_its_words_and_an_open_reads_none_of_them(two, fingerprinted):
    proof = json.loads(proof_of(two, "MAIN").read_text())
    manifest = two.manifest("MAIN")
    assert proof == {
        "compiled_sha256": manifest.compiled_sha256,
        "fingerprint": manifest.fingerprint,
        "version": 1,
        "words": 6,
    }
    lexicon = LexiconStore(two.root).open("MAIN")  # a fresh process
    assert "ABDOMINOPLASTY" in lexicon and "UNSEEN" not in lexicon
    assert fingerprinted == []


def test_the_forgery_of_issue_22_is_refused_on_open_and_by_verify(two, fingerprinted):
    """MAIN's manifest, its name, fingerprint and pin kept, names OTHER's file, checksum and
    count: OTHER's proof names OTHER's words, so the words are fingerprinted and refused."""
    other = two.manifest("OTHER")
    edit_manifest(
        two,
        "MAIN",
        compiled_file=other.compiled_file,
        compiled_sha256=other.compiled_sha256,
        words=other.words,
    )
    fresh = LexiconStore(two.root)
    assert fresh.manifest("MAIN").pin_problem is None  # the pin is still consistent
    with pytest.raises(LexiconCorrupt, match="do not have the fingerprint its manifest names"):
        fresh.open("MAIN")
    assert "MAIN" in fresh.out_of_service()
    with pytest.raises(LexiconCorrupt, match="do not have the fingerprint its manifest names"):
        fresh.verify("MAIN")
    assert fingerprinted == ["MAIN", "MAIN"]
    # OTHER's own proof, true of its file, is kept, and OTHER opens without reading its words
    assert proof_of(two, "OTHER").exists()
    assert "UNSEEN" in LexiconStore(two.root).open("OTHER") and fingerprinted == ["MAIN", "MAIN"]


def test_a_forged_proof_is_caught_by_verify_and_removed(two, fingerprinted):
    """Who can write the store can write a proof, as they can a pin (docs/lexicon-pin.md):
    `lexicon verify` reads the words whatever the proof says, removes a false one, and the
    lexicon is out of service until imported again."""
    other = two.manifest("OTHER")
    main = two.manifest("MAIN")
    edit_manifest(
        two,
        "MAIN",
        compiled_file=other.compiled_file,
        compiled_sha256=other.compiled_sha256,
        words=other.words,
    )
    forged = {
        "compiled_sha256": other.compiled_sha256,
        "fingerprint": main.fingerprint,
        "version": 1,
        "words": other.words,
    }
    proof_of(two, "OTHER").write_text(json.dumps(forged, sort_keys=True) + "\n")  # as written
    assert LexiconStore(two.root).open("MAIN")  # the open believes it, as it believes a pin
    fresh = LexiconStore(two.root)
    with pytest.raises(LexiconCorrupt, match="do not have the fingerprint its manifest names"):
        fresh.verify("MAIN")
    assert not proof_of(two, "OTHER").exists()  # the false proof is gone
    with pytest.raises(LexiconCorrupt, match="out of service"):
        LexiconStore(two.root).open("MAIN")
    assert "UNSEEN" in LexiconStore(two.root).open("OTHER")  # proven afresh, the old way
    assert fingerprinted == ["MAIN", "OTHER"]
    assert json.loads(proof_of(two, "OTHER").read_text())["fingerprint"] == other.fingerprint


def test_a_store_from_before_proofs_is_fingerprinted_once_then_proven(two, fingerprinted):
    for name in ("MAIN", "OTHER"):
        proof_of(two, name).unlink()
    assert "QI" in LexiconStore(two.root).open("MAIN")
    assert fingerprinted == ["MAIN"] and proof_of(two, "MAIN").exists()
    assert "QI" in LexiconStore(two.root).open("MAIN")
    assert fingerprinted == ["MAIN"]  # the second process reads the proof


def test_a_forgery_in_a_store_from_before_proofs_is_refused_and_never_proven(two):
    proof_of(two, "MAIN").unlink()
    proof_of(two, "OTHER").unlink()
    # as written before pins, so no pin tells: only the words can
    edit_manifest(two, "MAIN", fingerprint=two.manifest("OTHER").fingerprint, pin="", pinned={})
    fresh = LexiconStore(two.root)
    with pytest.raises(LexiconCorrupt, match="do not have the fingerprint its manifest names"):
        fresh.open("MAIN")
    assert not proof_of(two, "MAIN").exists()


@pytest.mark.parametrize(
    "text",
    ["", "{", "[]", '{"fingerprint": 1}', "x" * 10_000],
    ids=["empty", "not-json", "a-list", "other-fields", "too-long"],
)
def test_an_unreadable_proof_means_the_words_are_fingerprinted(two, fingerprinted, text):
    proof_of(two, "MAIN").write_text(text)
    assert "ZEBRA" in LexiconStore(two.root).open("MAIN")
    assert fingerprinted == ["MAIN"]
    assert json.loads(proof_of(two, "MAIN").read_text())["words"] == 6  # written afresh


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a read-only folder anyway")
def test_a_store_this_process_cannot_write_still_opens(two, fingerprinted):
    proof_of(two, "MAIN").unlink()
    two.root.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        for _ in range(2):
            assert "QI" in LexiconStore(two.root).open("MAIN")
    finally:
        two.root.chmod(stat.S_IRWXU)
    assert fingerprinted == ["MAIN", "MAIN"]  # each time: there is nowhere to keep a proof


def test_a_proof_unwritable_where_it_should_be_is_not_an_error(two, fingerprinted):
    """As root (the test machines) a read-only folder is writable: a directory in the proof's
    place stands for any write that fails."""
    proof = proof_of(two, "MAIN")
    proof.unlink()
    proof.mkdir()
    assert "QI" in LexiconStore(two.root).open("MAIN")
    assert "QI" in LexiconStore(two.root).open("MAIN")
    assert fingerprinted == ["MAIN", "MAIN"]
    assert not [p.name for p in two.root.iterdir() if p.name.endswith(".partial")]


def test_a_fifo_in_the_proofs_place_never_holds_the_open(two, fingerprinted):
    """Whoever can write the store could leave a FIFO where the proof goes: opening it would
    wait for a writer forever. It is no proof: the words are fingerprinted instead."""
    proof = proof_of(two, "MAIN")
    proof.unlink()
    os.mkfifo(proof)
    assert "QI" in LexiconStore(two.root).open("MAIN")
    assert fingerprinted == ["MAIN"]
    assert stat.S_ISREG(proof.stat().st_mode)  # and a proof written in its place
    assert json.loads(proof.read_text())["words"] == 6


def test_removing_or_replacing_a_lexicon_removes_its_proof(two):
    old = proof_of(two, "MAIN")
    two.save("MAIN", WordSet.of(["NEW", "WORDS"]))
    assert not old.exists() and proof_of(two, "MAIN").exists()
    other = proof_of(two, "OTHER")
    two.remove("OTHER")
    assert not other.exists()


def test_verify_proves_a_lexicon_carried_without_its_proof(two, tmp_path):
    """The kit carries a manifest and its compiled file (store.install); `verify` proves it."""
    manifest = two.manifest("MAIN")
    data = (two.root / manifest.compiled_file).read_bytes()
    there = LexiconStore(tmp_path / "laptop" / "lexicons")
    there.install(manifest, data)
    assert not proof_of(there, "MAIN").exists()
    assert there.verify("MAIN").words == 6
    assert proof_of(there, "MAIN").read_text() == proof_of(two, "MAIN").read_text()


def test_a_carried_proof_installs_a_lexicon_without_reading_its_words(two, tmp_path,
                                                                      fingerprinted):  # fmt: skip
    """The takeover kit carries each lexicon's proof with its file (store.install): one that
    vouches for exactly that file is kept beside it, and no word is read, then or at the first
    open; one that names another file, count or fingerprint is refused, nothing installed."""
    from adjudicator.words.lexicon import vouching_proof

    manifest = two.manifest("MAIN")
    data = (two.root / manifest.compiled_file).read_bytes()
    proof = vouching_proof(manifest, two.root / manifest.compiled_file)
    other = two.manifest("OTHER")
    other_proof = vouching_proof(other, two.root / other.compiled_file)
    assert proof is not None and other_proof is not None

    elsewhere = LexiconStore(root=tmp_path / "laptop-b")
    forged = json.dumps({**json.loads(proof), "fingerprint": other.fingerprint},
                        sort_keys=True) + "\n"  # fmt: skip
    for wrong in (other_proof, forged, proof.replace('"words": 6', '"words": 7'), ""):
        with pytest.raises(LexiconCorrupt, match="does not vouch for its compiled file"):
            elsewhere.install(manifest, data, wrong)
        assert elsewhere.names() == [] and not list(elsewhere.root.glob("*.marisa"))

    elsewhere.install(manifest, data, proof)
    assert elsewhere.open("MAIN").manifest.fingerprint == manifest.fingerprint
    assert "QI" in elsewhere.open("MAIN")
    assert fingerprinted == []  # no word was read back
