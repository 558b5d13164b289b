"""Hypothesis round trips: random word sets -> build, save, mmap; members in, non-members out."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.judging.verdict import Verdict, judge
from adjudicator.words.importers import read_dwg, read_source
from adjudicator.words.lexicon import CompiledLexicon
from adjudicator.words.normalize import normalize_challenge
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.words import encode_dwg

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Few letters make prefixes and near misses of members likely, which is where tries go wrong.
words = st.text(alphabet=st.sampled_from("ABCEQSZ"), min_size=1, max_size=20) | st.text(
    alphabet=st.sampled_from(LETTERS), min_size=1, max_size=16
)
word_sets = st.sets(words, min_size=1, max_size=300)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(members=word_sets, probes=st.lists(words, max_size=50))
def test_save_mmap_lookup(members, probes):
    word_set = WordSet.of(members)
    with tempfile.TemporaryDirectory() as root:
        store = LexiconStore(Path(root))
        manifest = store.save("RANDOM", word_set)
        fresh = LexiconStore(Path(root))  # reopen as another process would: from disk, mmapped
        lexicon = fresh.open("RANDOM")
        assert isinstance(lexicon, CompiledLexicon)
        assert manifest.words == len(members) == len(lexicon)
        assert all(word in lexicon for word in members)
        for probe in probes:
            assert (probe in lexicon) == (probe in members)
        for word in list(members)[:20]:  # prefixes and extensions of members
            assert (word[:-1] in lexicon) == (word[:-1] in members)
            assert (word + "S" in lexicon) == (word + "S" in members)
        assert sorted(lexicon) == sorted(members)
        assert fresh.verify("RANDOM").fingerprint == word_set.fingerprint
        canonical = "".join(w + "\n" for w in sorted(members)).encode()
        assert manifest.fingerprint == hashlib.sha256(canonical).hexdigest()
        assert manifest.longest_word == max(map(len, members))
        assert manifest.words_over_15 == sum(len(w) > 15 for w in members)


@SETTINGS
@given(
    members=word_sets,
    data=st.data(),
    crlf=st.booleans(),
    bom=st.booleans(),
)
def test_any_spelling_of_a_list_has_the_same_fingerprint(members, data, crlf, bom):
    listed = data.draw(st.permutations(sorted(members)))
    repeats = data.draw(st.lists(st.sampled_from(sorted(members)), max_size=10))
    lines = [w.lower() if data.draw(st.booleans()) else w for w in list(listed) + repeats]
    text = ("\r\n" if crlf else "\n").join(["# a comment", "", *lines])
    with tempfile.TemporaryDirectory() as root:
        path = Path(root) / "list.txt"
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
        result = read_source(path)
    assert result.bad_lines == []
    assert WordSet.of(result.words) == WordSet.of(members)


@SETTINGS
@given(members=word_sets)
def test_dwg_round_trip(members):
    assert sorted(read_dwg(encode_dwg(members))) == sorted(members)


@SETTINGS
@given(
    members=st.sets(st.text(alphabet=LETTERS, min_size=2, max_size=15), min_size=1, max_size=50),
    data=st.data(),
)
def test_verdict_against_a_compiled_lexicon(members, data):
    challenge = data.draw(
        st.lists(
            st.sampled_from(sorted(members)) | st.text(alphabet=LETTERS, min_size=2, max_size=15),
            min_size=1,
            max_size=8,
        )
    )
    separators = data.draw(
        st.lists(
            st.sampled_from([" ", ",", "\n", ", ", "\t"]),
            min_size=len(challenge),
            max_size=len(challenge),
        )
    )
    typed = "".join(w.lower() + sep for w, sep in zip(challenge, separators, strict=True))
    words = normalize_challenge(typed)
    assert list(words) == challenge
    with tempfile.TemporaryDirectory() as root:
        store = LexiconStore(Path(root))
        store.save("RANDOM", WordSet.of(members))
        verdict = judge(store.open("RANDOM").trie, words)
    expected = Verdict.ACCEPTABLE if set(challenge) <= members else Verdict.UNACCEPTABLE
    assert verdict is expected
