"""A lexicon's pin (issue 27, item 4): its canonical form, the field a forged manifest changed
named by `lexicon verify`, an edit in place found at the next re-check, and manifests written
before pins, believed only where something else vouches for them."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from adjudicator.errors import LexiconCorrupt
from adjudicator.judging.ruling import rule_on
from adjudicator.judging.verdict import Verdict
from adjudicator.words import lexicon_pin
from adjudicator.words.alphabet_files import builtin, load_alphabet_file
from adjudicator.words.normalize import normalize_challenge
from adjudicator.words.recipe import import_recipe
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.hall import ok
from support.words import TINY_WORDS

SWEDISH = """name = "swedish-club"
tiles = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "R",
         "S", "T", "U", "V", "X", "Y", "Z", "Å", "Ä", "Ö"]
"""


@pytest.fixture
def store(tmp_path) -> LexiconStore:
    store = LexiconStore(root=tmp_path / "lexicons", recheck_seconds=0.3)
    store.save("REF9", WordSet.of(TINY_WORDS), refer_longer_than=9)
    return store


def edit(store: LexiconStore, name: str, in_place: bool = False, **changes) -> None:
    """Change fields of a manifest (in place: the same file, no rename)."""
    path = store.manifest_path(name)
    data = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    text = json.dumps(data, indent=2, sort_keys=True)
    if in_place:
        with open(path, "r+") as handle:
            handle.seek(0)
            handle.write(text)
            handle.truncate()
    else:
        path.write_text(text)


def verdict(store: LexiconStore, name: str, *words: str) -> Verdict:
    lexicon = store.open(name)
    return rule_on(lexicon, None, normalize_challenge(list(words), lexicon.alphabet)).verdict


# ---------- the canonical form ----------


def test_the_pin_is_the_sha256_of_the_canonical_json_of_five_fields(store):
    manifest = store.manifest("REF9")
    expected = {
        "alphabet": {"name": "english", "tiles": list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")},
        "fingerprint": WordSet.of(TINY_WORDS).fingerprint,
        "refer_even_if_listed": False,
        "refer_longer_than": 9,
        "version": 1,
    }
    text = json.dumps(expected, sort_keys=True, separators=(",", ":"))
    assert manifest.pinned == expected
    assert manifest.pin == hashlib.sha256(text.encode()).hexdigest() == manifest.current_pin
    assert manifest.summary()["pin"] == manifest.pin
    assert manifest.pin_problem is None


def test_non_ascii_tiles_are_escaped_and_description_and_word_graph_left_out():
    polish = builtin("polish")
    values = lexicon_pin.values_of("f" * 64, 0, False, polish)
    assert set(values["alphabet"]) == {"name", "tiles", "language"}
    assert b"\\u0104" in lexicon_pin.canonical(values)  # Ą, escaped: the canonical form is ASCII
    spanish = builtin("spanish-fise")
    assert spanish.word_graph and "word_graph" not in lexicon_pin.alphabet_values(spanish)


def test_every_field_that_decides_a_verdict_changes_the_pin():
    english = builtin("english")
    base = lexicon_pin.pin_of(lexicon_pin.values_of("a" * 64, 9, False, english))
    others = [
        lexicon_pin.values_of("b" * 64, 9, False, english),
        lexicon_pin.values_of("a" * 64, 8, False, english),
        lexicon_pin.values_of("a" * 64, 9, True, english),
        lexicon_pin.values_of("a" * 64, 9, False, builtin("french")),
    ]
    assert len({base, *map(lexicon_pin.pin_of, others)}) == 5


# ---------- a forged manifest: lexicon verify names the field ----------


def test_a_forged_referral_rule_is_named_and_never_judges(store):
    assert verdict(store, "REF9", "RETAINERS") is Verdict.ACCEPTABLE
    edit(store, "REF9", refer_longer_than=4, refer_even_if_listed=True)
    fresh = LexiconStore(store.root)
    with pytest.raises(LexiconCorrupt) as caught:
        fresh.verify("REF9")
    assert "refer_longer_than is 4 in the manifest, but the pin says 9" in str(caught.value)
    assert "refer_even_if_listed is true in the manifest, but the pin says false" in str(
        caught.value
    )
    with pytest.raises(LexiconCorrupt, match="out of service"):
        fresh.open("REF9")


def test_the_manifests_alphabet_name_changed_is_named(store):
    edit(
        store,
        "REF9",
        alphabet={"name": "english-club", "tiles": list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")},
    )
    with pytest.raises(
        LexiconCorrupt,
        match='alphabet.name is "english-club" in the manifest, but the pin says "english"',
    ):
        LexiconStore(store.root).verify("REF9")


def test_a_fold_added_to_the_manifests_alphabet_is_named(store):
    """A fold reads text the alphabet would refuse (the digit 0 as O): a verdict where there
    was an input error. The words and their fingerprint are unchanged."""
    english = {"name": "english", "tiles": list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), "fold": {"0": "O"}}
    edit(store, "REF9", alphabet=english)
    with pytest.raises(
        LexiconCorrupt,
        match=r'alphabet.fold is \{"0": "O"\} in the manifest, '
        "but the pin says absent",
    ):
        LexiconStore(store.root).open("REF9")


def test_a_pin_edited_alone_or_with_its_values_is_caught(store):
    pinned = store.manifest("REF9").pinned
    edit(store, "REF9", pinned={**pinned, "refer_longer_than": 4}, refer_longer_than=4)
    with pytest.raises(LexiconCorrupt, match="the values its pin covers were edited"):
        LexiconStore(store.root).verify("REF9")


@pytest.mark.parametrize("value", ["4", 4.0, True, -1, None])
def test_a_referral_limit_of_the_wrong_type_is_unreadable_never_a_500(store, value):
    edit(store, "REF9", refer_longer_than=value if value is not None else [4])
    with pytest.raises(LexiconCorrupt, match="unreadable"):
        LexiconStore(store.root).open("REF9")


def test_lexicon_verify_exits_1_naming_the_field(run, home):
    store = LexiconStore(home / "lexicons")
    store.save("REF9", WordSet.of(TINY_WORDS), refer_longer_than=9)
    store.save("PLAIN", WordSet.of(TINY_WORDS))
    edit(store, "REF9", refer_longer_than=4)
    result = run("lexicon", "verify")
    assert result.exit_code == 1
    assert (
        "REF9: FAILED: Lexicon REF9 does not match its pin: refer_longer_than is 4 in the "
        "manifest, but the pin says 9" in result.stderr
    )
    assert (
        f"PLAIN: ok (15 words, fingerprint {store.manifest('PLAIN').short_fingerprint}, "
        f"pin {store.manifest('PLAIN').pin[:12]})" in result.stdout
    )


# ---------- while serving: the re-check reads the manifest again ----------


def settled(store: LexiconStore) -> int:
    """Put the folder's times a minute back (its listing is then kept: store.SETTLE_SECONDS)."""
    back = time.time() - 60
    os.utime(store.root, (back, back))
    return store.root.stat().st_mtime_ns


def test_an_edit_in_place_is_found_at_the_next_recheck(store):
    folder_time = settled(store)
    assert verdict(store, "REF9", "ZZZZZZ") is Verdict.UNACCEPTABLE
    edit(store, "REF9", in_place=True, refer_longer_than=4, refer_even_if_listed=True)
    assert store.root.stat().st_mtime_ns == folder_time  # nothing a folder listing would see
    assert verdict(store, "REF9", "ZZZZZZ") is Verdict.UNACCEPTABLE  # until the re-check
    time.sleep(0.35)
    with pytest.raises(LexiconCorrupt, match="refer_longer_than is 4 in the manifest"):
        store.open("REF9")
    assert "refer_longer_than is 4 in the manifest" in store.out_of_service()["REF9"]
    with pytest.raises(LexiconCorrupt, match="out of service"):
        LexiconStore(store.root).open("REF9")  # every other process too


def test_a_consistent_repin_in_place_is_loaded_afresh_at_the_next_recheck(store):
    """A forger who recomputes the pin: the lexicon loads with its new pin (which no
    tournament was set with: tournament_pins refuses it there)."""
    settled(store)
    before = store.open("REF9").manifest.current_pin
    forged = store.manifest("REF9")
    from dataclasses import replace

    repinned = replace(forged, refer_longer_than=4).with_pin()
    edit(
        store, "REF9", in_place=True, refer_longer_than=4, pin=repinned.pin, pinned=repinned.pinned
    )
    time.sleep(0.35)
    assert store.open("REF9").manifest.current_pin == repinned.pin != before
    assert store.out_of_service() == {}


def test_a_manifest_rewritten_equal_keeps_the_loaded_lexicon(store):
    settled(store)
    loaded = store.open("REF9")
    edit(store, "REF9", in_place=True)  # the same fields, written again
    time.sleep(0.35)
    assert store.open("REF9") is loaded


# ---------- manifests written before pins ----------


def legacy(store: LexiconStore, name: str, **changes) -> None:
    """Make `name`'s manifest look as one written before pins (and change fields)."""
    edit(store, name, pin=None, pinned=None, **changes)


def test_an_old_manifest_is_vouched_for_and_verify_writes_its_pin(store):
    pin = store.manifest("REF9").pin
    store.save("PLAIN", WordSet.of(TINY_WORDS))
    legacy(store, "PLAIN")
    fresh = LexiconStore(store.root)
    assert fresh.manifest("PLAIN").pin == "" and fresh.manifest("PLAIN").pin_problem is None
    assert "QI" in fresh.open("PLAIN")
    verified = fresh.verify("PLAIN")
    assert verified.pin == verified.current_pin
    assert json.loads(fresh.manifest_path("PLAIN").read_text())["pin"] == verified.pin
    assert store.manifest("REF9").pin == pin


def test_an_old_list_import_with_a_referral_rule_is_refused(store):
    store.save("PLAIN", WordSet.of(TINY_WORDS))
    legacy(store, "PLAIN", refer_longer_than=4)
    with pytest.raises(LexiconCorrupt) as caught:
        LexiconStore(store.root).open("PLAIN")
    assert (
        "written before lexicons had pins, and refer_longer_than is 4 in the manifest, but it "
        "was imported from a single list, which never has a referral rule" in str(caught.value)
    )


def recipe_lexicon(store: LexiconStore, tmp_path: Path, text: str) -> str:
    (tmp_path / "words.txt").write_text("\n".join(TINY_WORDS))
    recipe = tmp_path / "small.toml"
    recipe.write_text(f'name = "SMALL"\nsources = ["words.txt"]\n{text}')
    return import_recipe(store, recipe).manifest.name


def test_an_old_recipe_lexicon_must_agree_with_its_recipes_text(store, tmp_path):
    name = recipe_lexicon(store, tmp_path, "refer_longer_than = 9\n")
    legacy(store, name)
    assert LexiconStore(store.root).manifest(name).pin_problem is None
    legacy(store, name, refer_longer_than=4, refer_even_if_listed=True)
    with pytest.raises(
        LexiconCorrupt,
        match=r"refer_longer_than is 4 in the manifest, but the "
        r"recipe it was built from \(small.toml\) says 9",
    ):
        LexiconStore(store.root).open(name)


def test_an_old_recipe_whose_text_was_edited_too_is_refused(store, tmp_path):
    name = recipe_lexicon(store, tmp_path, "refer_longer_than = 9\n")
    recipe = json.loads(store.manifest_path(name).read_text())["recipe"]
    recipe["text"] = recipe["text"].replace("= 9", "= 4")
    legacy(store, name, refer_longer_than=4, recipe=recipe)
    with pytest.raises(LexiconCorrupt, match="does not match the recipe's checksum"):
        LexiconStore(store.root).open(name)


def test_an_old_manifest_with_a_built_in_alphabet_must_be_the_programs(store):
    store.save("PL", WordSet.of(["ĄĆ", "ŻÓŁW"], builtin("polish")))
    legacy(store, "PL")
    assert LexiconStore(store.root).manifest("PL").pin_problem is None
    data = json.loads(store.manifest_path("PL").read_text())["alphabet"]
    legacy(store, "PL", alphabet={**data, "fold": {"X": "KS"}})
    with pytest.raises(
        LexiconCorrupt,
        match=r'alphabet.fold is \{"X": "KS"\} in the manifest, but '
        "the built-in polish alphabet has absent",
    ):
        LexiconStore(store.root).open("PL")


def test_an_old_manifest_with_a_federations_alphabet_is_believed_as_recorded(store, tmp_path):
    """The manifest is the only record of a federation's alphabet: believed (documented)."""
    path = tmp_path / "swedish.toml"
    path.write_text(SWEDISH, encoding="utf-8")
    store.save("SE", WordSet.of(["ÅR", "ÖL"], load_alphabet_file(path)))
    legacy(store, "SE")
    assert "ÅR" in LexiconStore(store.root).open("SE")


def test_the_cli_says_a_pin_was_written(run, home):
    store = LexiconStore(home / "lexicons")
    store.save("PLAIN", WordSet.of(TINY_WORDS))
    legacy(store, "PLAIN")
    out = ok(run("lexicon", "verify", "PLAIN"))
    assert ", written into its manifest now)" in out
    assert ", written into its manifest now)" not in ok(run("lexicon", "verify", "PLAIN"))


def test_lexicon_show_prints_exactly_what_the_pin_hashes(run, home):
    store = LexiconStore(home / "lexicons")
    store.save("REF9", WordSet.of(TINY_WORDS), refer_longer_than=9)
    shown = dict(
        line.split(":", 1)
        for line in ok(run("lexicon", "show", "REF9")).splitlines()
        if ":" in line
    )
    canonical = shown["pinned"].strip()
    assert hashlib.sha256(canonical.encode()).hexdigest() == shown["pin"].strip()
    assert json.loads(ok(run("lexicon", "list", "--json")))[0]["pin"] == shown["pin"].strip()
