"""The real lists: Debian's wpolish, wspanish and wcatalan through the shipped recipes.

Real data at real size (wpolish: 4.3 million lines): the recipes' counts and fingerprints are
checked against an independent line-by-line reading, and words are judged over the CLI.
`.ci/run` installs the packages; without them these tests are skipped.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from adjudicator.words.recipe import import_recipe
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import fingerprint

from support.paths import present

DICT = Path("/usr/share/dict")
POLISH_LETTERS = "aąbcćdeęfghijklłmnńoóprsśtuwyzźż"

pytestmark = pytest.mark.slow


def _needs(name: str) -> Path:
    return present(DICT / name, f"is not installed (apt-get install w{name})")


@pytest.fixture(scope="module")
def debian(tmp_path_factory) -> LexiconStore:
    """A store with the three Debian-derived lexicons the shipped recipes build."""
    store = LexiconStore(tmp_path_factory.mktemp("debian") / "lexicons")
    for language in ("polish", "spanish", "catalan"):
        if (DICT / language).is_file():
            import_recipe(store, f"debian-{language}")
    return store


def test_polish_is_every_lowercase_entry_spelled_in_polish_tiles(debian):
    path = _needs("polish")
    lines = path.read_text(encoding="utf-8").split("\n")
    expected = sorted({line.upper() for line in lines if line and not line.strip(POLISH_LETTERS)})
    del lines
    manifest = debian.manifest("PL-DEBIAN")
    assert 3_900_000 < manifest.words == len(expected)
    assert manifest.fingerprint == fingerprint(expected)
    assert manifest.get_alphabet().name == "polish" and not manifest.tournament_list
    (source,) = manifest.recipe["sources"]
    assert source["capitalised"] > 300_000  # proper nouns and abbreviations left out
    assert source["skipped"] > 0  # words with Q, V, X or foreign accents


def test_polish_words_and_what_was_left_out(debian):
    _needs("polish")
    lexicon = debian.open("PL-DEBIAN")
    for word in ("ŹDŹBŁA", "ŻÓŁW", "GĘŚ", "ŁÓDŹ", "KRAKÓW", "POLSKA"):
        assert word in lexicon, word
    for word in ("GDAŃSK", "WISŁA", "PKP", "WARSZAWA"):  # only capitalised in wpolish
        assert word not in lexicon, word
    assert "KOPERNIK" in lexicon  # also listed in lower case


def test_judging_polish_over_the_cli(debian, run, monkeypatch):
    _needs("polish")
    monkeypatch.setenv("ADJUDICATOR_HOME", str(debian.root.parent))
    accepted = run("judge", "-l", "PL-DEBIAN", "źdźbła", "żółw", "GĘŚ")
    assert accepted.exit_code == 0, accepted.stderr
    assert "Words judged (3): ŹDŹBŁA ŻÓŁW GĘŚ" in accepted.stdout
    assert run("judge", "-l", "PL-DEBIAN", "żółw", "gdańsk").exit_code == 1
    refused = run("judge", "-l", "PL-DEBIAN", "quiz")
    assert refused.exit_code == 2 and "the polish alphabet's tiles are" in refused.stderr


def test_spanish_folds_accents_and_matches_digraphs(debian):
    path = _needs("spanish")
    lexicon = debian.open("ES-DEBIAN")
    for word in ("[CH]ICO", "PE[RR]O", "[LL]AMA", "CAMION", "AÑO", "PINGUINO"):
        assert word in lexicon, word
    assert "ANO" not in lexicon or "ano" in path.read_text(encoding="utf-8").split()
    manifest = debian.manifest("ES-DEBIAN")
    lines = path.read_text(encoding="utf-8").split()
    assert 80_000 < manifest.words <= len(lines)
    (source,) = manifest.recipe["sources"]
    assert source["skipped"] == sum(1 for line in lines if re.search("[kw]", line))


def test_catalan_tiles_and_capitalised_entries(debian):
    path = _needs("catalan")
    lexicon = debian.open("CA-DEBIAN")
    for word in ("CE[L·L]A", "CO[L·L]ECCIO", "[QU]ESTIO", "CA[NY]A", "PLAÇA", "AVIA", "[QU]E"):
        assert word in lexicon, word
    for word in ("CATALU[NY]A", "GIRONA"):
        assert word not in lexicon, word
    text = unicodedata.normalize("NFC", path.read_text(encoding="utf-8"))
    words = debian.manifest("CA-DEBIAN").words
    assert 500_000 < words < len(text.splitlines())


def test_the_recipes_say_they_are_not_official_lists(debian):
    for manifest in debian.manifests():
        assert "not an official tournament list" in manifest.description
        assert not manifest.tournament_list
