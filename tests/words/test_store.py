"""The store: save, mmap, manifests, replacement, and refusing damaged compiled files."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import pytest

from adjudicator import __version__
from adjudicator.errors import LexiconCorrupt, LexiconError, LexiconNotFound
from adjudicator.words.lexicon import CompiledLexicon, file_sha256
from adjudicator.words.store import LexiconStore, check_name
from adjudicator.words.wordlist import WordSet, fingerprint

WORDS = ["AA", "QI", "ZA", "CAT", "ZEBRA", "ANTIDISESTABLISHMENTARIANISM"]
OTHER = ["DOG", "FOX", "JO"]


@pytest.fixture
def two(store: LexiconStore) -> LexiconStore:
    store.save("MAIN", WordSet.of(WORDS))
    store.save("OTHER", WordSet.of(OTHER))
    return store


def test_store_lives_under_the_data_home(store, home):
    assert store.root == home / "lexicons"
    assert store.root.is_dir()


def test_fingerprint_is_sha256_of_the_canonical_form():
    canonical = "".join(word + "\n" for word in sorted(set(WORDS))).encode()
    assert WordSet.of(WORDS).fingerprint == hashlib.sha256(canonical).hexdigest()
    assert WordSet.of(reversed(WORDS + WORDS)).fingerprint == WordSet.of(WORDS).fingerprint


def test_fingerprint_of_many_words_spans_chunks():
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    words = sorted(a + b + c for a in letters for b in letters for c in letters)
    assert len(words) > 8192
    assert fingerprint(words) == hashlib.sha256(("\n".join(words) + "\n").encode()).hexdigest()


def test_save_writes_a_complete_manifest(store):
    manifest = store.save("MAIN", WordSet.of(WORDS), description="test", source_file="x.txt")
    compiled = store.root / manifest.compiled_file
    assert compiled.name.startswith("MAIN.") and compiled.suffix == ".marisa"
    assert manifest.compiled_sha256 == hashlib.sha256(compiled.read_bytes()).hexdigest()
    assert manifest.words == 6
    assert manifest.fingerprint == WordSet.of(WORDS).fingerprint
    assert manifest.longest_word == 28
    assert manifest.words_over_15 == 1
    assert manifest.program_version == __version__
    assert manifest.built_at and manifest.build_seconds >= 0
    assert (manifest.description, manifest.source_file) == ("test", "x.txt")
    on_disk = json.loads(store.manifest_path("MAIN").read_text())
    assert on_disk["fingerprint"] == manifest.fingerprint
    assert store.manifest("MAIN") == manifest


def test_open_looks_words_up(two):
    lexicon = two.open("MAIN")
    assert isinstance(lexicon, CompiledLexicon)
    assert lexicon.name == "MAIN" and len(lexicon) == 6
    assert all(word in lexicon for word in WORDS)
    assert "DOG" not in lexicon and "QIS" not in lexicon and "Q" not in lexicon
    assert sorted(lexicon) == sorted(WORDS)


def test_names_and_manifests(two):
    assert two.names() == ["MAIN", "OTHER"]
    assert [m.name for m in two.manifests()] == ["MAIN", "OTHER"]
    assert two.exists("MAIN") and not two.exists("NOPE")


def test_unknown_name_lists_the_known_ones(two):
    with pytest.raises(LexiconNotFound) as caught:
        two.open("NWL2023")
    assert "No lexicon named 'NWL2023'" in str(caught.value)
    assert "MAIN, OTHER" in str(caught.value)


def test_unknown_name_in_an_empty_store(store):
    with pytest.raises(LexiconNotFound, match="none yet"):
        store.manifest("CSW24")


@pytest.mark.parametrize("name", ["", "../evil", "a/b", ".hidden", "x" * 65, "NAME.json", "sp ace"])
def test_invalid_names_are_refused(store, name):
    with pytest.raises(LexiconError, match="Invalid lexicon name"):
        store.save(name, WordSet.of(WORDS))


def test_valid_names():
    for name in ("NWL2023", "CSW24", "owl-nsa_1998.v2", "x" * 64):
        assert check_name(name) == name


def test_an_open_lexicon_is_cached_and_reopened_after_replacement(two):
    first = two.open("MAIN")
    assert two.open("MAIN") is first
    old_file = two.root / first.manifest.compiled_file
    two.save("MAIN", WordSet.of(["NEW", "WORDS"]))
    assert not old_file.exists()  # the old compiled file is removed ...
    assert "QI" in first  # ... yet a reader that has it mapped keeps judging
    second = two.open("MAIN")
    assert second is not first and "NEW" in second and "QI" not in second


def test_saving_the_same_words_again_keeps_the_file(two):
    before = two.manifest("MAIN").compiled_file
    two.save("MAIN", WordSet.of(WORDS))
    assert two.manifest("MAIN").compiled_file == before
    assert (two.root / before).exists()
    assert "ZEBRA" in LexiconStore(two.root).open("MAIN")


def test_remove(two):
    compiled = two.root / two.manifest("OTHER").compiled_file
    two.remove("OTHER")
    assert two.names() == ["MAIN"] and not compiled.exists()


def test_verify(two):
    assert two.verify("MAIN").words == 6


def test_no_stray_temporary_files(two):
    found = sorted(p.suffix for p in two.root.iterdir())
    assert found == [".json", ".json", ".marisa", ".marisa", ".proof", ".proof"]


class TestDamage:
    """A damaged lexicon is refused on open with a clear error; the others keep working."""

    def _compiled(self, store, name="MAIN"):
        return store.root / store.manifest(name).compiled_file

    def _refused(self, store, match):
        fresh = LexiconStore(store.root)  # a new process: nothing cached
        with pytest.raises(LexiconCorrupt, match=match):
            fresh.open("MAIN")
        with pytest.raises(LexiconCorrupt, match=match):
            fresh.verify("MAIN")
        other = fresh.open("OTHER")
        assert "DOG" in other and fresh.verify("OTHER").words == 3

    def test_truncated_file(self, two):
        path = self._compiled(two)
        path.write_bytes(path.read_bytes()[:-7])
        self._refused(
            two, r"Lexicon MAIN is damaged: its compiled file .* does not match its manifest"
        )

    def test_empty_file(self, two):
        self._compiled(two).write_bytes(b"")
        self._refused(two, "does not match its manifest")

    @pytest.mark.parametrize("where", [0, 0.5, -1])
    def test_flipped_byte(self, two, where):
        path = self._compiled(two)
        data = bytearray(path.read_bytes())
        data[int(where * (len(data) - 1)) if where != -1 else -1] ^= 0x01
        path.write_bytes(bytes(data))
        self._refused(two, "is damaged")

    def test_missing_compiled_file(self, two):
        self._compiled(two).unlink()
        self._refused(two, "is missing")

    def test_manifest_with_another_checksum(self, two):
        self._edit_manifest(two, compiled_sha256="0" * 64)
        self._refused(two, "does not match its manifest")

    def test_manifest_with_another_word_count(self, two):
        self._edit_manifest(two, words=7)
        self._refused(two, "it holds 6 words, its manifest says 7")

    def test_manifest_with_another_fingerprint_fails_verify(self, two):
        self._edit_manifest(two, fingerprint="f" * 64)
        fresh = LexiconStore(two.root)
        with pytest.raises(LexiconCorrupt, match="fingerprint is ffffffffffff in the manifest"):
            fresh.verify("MAIN")  # the pin names the field
        assert fresh.verify("OTHER")

    def test_manifest_with_another_fingerprint_and_pin_fails_verify(self, two):
        """A forger who pins the forged fingerprint too is caught by the words themselves."""
        pinned = replace(two.manifest("MAIN"), fingerprint="f" * 64).with_pin()
        self._edit_manifest(two, fingerprint="f" * 64, pin=pinned.pin, pinned=pinned.pinned)
        fresh = LexiconStore(two.root)
        with pytest.raises(LexiconCorrupt, match="do not have the fingerprint its manifest names"):
            fresh.verify("MAIN")
        assert fresh.verify("OTHER")

    def test_manifest_pointing_at_another_lexicons_file(self, two):
        self._edit_manifest(two, compiled_file=two.manifest("OTHER").compiled_file)
        self._refused(two, "does not match its manifest")

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "{not json",
            "[]",
            "null",
            '{"name": "MAIN"}',
            '{"name": "MAIN", "words": "6", '
            '"fingerprint": "", "compiled_file": "x", "compiled_sha256": ""}',
            "\udcff",
        ],
    )
    def test_unreadable_manifest(self, two, text):
        two.manifest_path("MAIN").write_bytes(text.encode("utf-8", "surrogateescape"))
        self._refused(two, "The manifest of lexicon MAIN is unreadable")
        assert [m.name for m in LexiconStore(two.root).manifests()] == ["OTHER"]

    def test_manifest_naming_a_directory(self, two):
        self._edit_manifest(two, compiled_file="")
        self._refused(two, "cannot be read")

    def _edit_manifest(self, store, **changes):
        path = store.manifest_path("MAIN")
        data = json.loads(path.read_text())
        data.update(changes)
        path.write_text(json.dumps(data))


def test_file_sha256_matches_hashlib(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"abc" * 1000)
    assert file_sha256(path) == hashlib.sha256(b"abc" * 1000).hexdigest()
    (tmp_path / "empty").write_bytes(b"")
    assert file_sha256(tmp_path / "empty") == hashlib.sha256(b"").hexdigest()
