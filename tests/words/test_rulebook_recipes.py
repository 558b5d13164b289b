"""The shipped recipes against the rulebooks and the real lists (issue 11, items 2 and 3).

NSA 1998 section I: OWL decides 2- to 9-letter words (I.A); a longer word not in OWL goes to
MW10 (I.B). The recipe must be built on the real first-edition OWL (Zyzzyva's text file),
not on TWL06. School rules 2011, rule 10: OSPD4 (TWL06 standing in) plus the event's
"Official Adjustments" sheet; every word of more than 8 letters must be in MW11, so it goes
to a dictionary check whether the stand-in lists it or not. No invented adjustment ships.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.judging.rules import get_rule
from adjudicator.judging.ruling import rule_on
from adjudicator.judging.verdict import Verdict
from adjudicator.words.importers import read_source
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.recipe import import_recipe
from adjudicator.words.recipe_file import load_recipe
from adjudicator.words.store import LexiconStore

from support.paths import ROOT, SHARED_LEXICONS

pytestmark = pytest.mark.slow  # the big real lists, built into the shipped recipes

OWL_TEXT = SHARED_LEXICONS / "zyzzyva" / "OWL.zyzzyva.txt"
TWL06_TEXT = SHARED_LEXICONS / "TWL06.txt"
OWL_FP = "7f84660efc8180f4063fc5bac407b5cca630980066e80dee32fddee367bc911a"
OSPD4_FP = "4708b738af89a21d47876d77bc7120dba7bccaa7aad8a41d7f8e6717b35c9bd1"
TWL06_FP = "576f29fa16c7ee47621300c877b5ce338beeb5d34fff1d289ed37310522bfee8"


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> LexiconStore:
    """OWL (from Zyzzyva's text) and TWL06 compiled, and both shipped recipes built on them."""
    missing = [p.name for p in (OWL_TEXT, TWL06_TEXT) if not p.exists()]
    if missing:
        pytest.skip(f"real word lists not found in {SHARED_LEXICONS}: {', '.join(missing)}")
    store = LexiconStore(tmp_path_factory.mktemp("rulebooks") / "lexicons")
    import_lexicon(store, OWL_TEXT, "OWL")
    import_lexicon(store, TWL06_TEXT, "TWL06")
    import_recipe(store, "nsa-1998")
    import_recipe(store, "school")
    return store


@pytest.fixture(scope="module")
def word_sets(real) -> dict[str, set[str]]:
    return {
        "OWL": set(read_source(OWL_TEXT, "auto").words),
        "TWL06": set(TWL06_TEXT.read_text().split()),
    }


def verdict(store: LexiconStore, name: str, *words: str) -> Verdict:
    return rule_on(store.open(name), get_rule("double"), list(words)).verdict


# ---------- NSA 1998 on the real OWL ----------


def test_nsa_1998_recipe_is_built_on_owl_not_twl06(real):
    recipe = load_recipe("nsa-1998")
    assert recipe.sources == ("OWL",) and recipe.refer_longer_than == 9
    manifest = real.manifest("OWL-NSA1998")
    assert (manifest.words, manifest.fingerprint) == (167_964, OWL_FP)
    assert manifest.catalogue_name == "OWL" and manifest.refer_longer_than == 9
    assert not manifest.refer_even_if_listed
    assert [s["fingerprint"] for s in manifest.recipe["sources"]] == [OWL_FP]


def test_nsa_i_a_qi_and_za_were_not_in_the_1998_owl_emf_was(real):
    """QI and ZA came with the 2006 list; EMF was in OWL and left in 2006."""
    assert verdict(real, "OWL-NSA1998", "QI") is Verdict.UNACCEPTABLE
    assert verdict(real, "OWL-NSA1998", "ZA") is Verdict.UNACCEPTABLE
    assert verdict(real, "OWL-NSA1998", "EMF") is Verdict.ACCEPTABLE
    assert verdict(real, "OWL-NSA1998", "EMF", "EMFS", "ZEBRA") is Verdict.ACCEPTABLE
    # TWL06 says the opposite: the old stand-in would have judged all three wrong
    assert verdict(real, "TWL06", "QI", "ZA") is Verdict.ACCEPTABLE
    assert verdict(real, "TWL06", "EMF") is Verdict.UNACCEPTABLE


def test_nsa_i_a_every_word_the_two_editions_disagree_on(real, word_sets):
    """Every 2- to 9-letter word only in TWL06 is UNACCEPTABLE, every one only in OWL is
    ACCEPTABLE; a longer word only in TWL06 goes to the dictionary (I.B: REFER)."""
    owl, twl = word_sets["OWL"], word_sets["TWL06"]
    lexicon, rule = real.open("OWL-NSA1998"), get_rule("double")
    only_twl, only_owl = twl - owl, owl - twl
    assert (len(only_twl), len(only_owl)) == (10_736, 9)
    for word in only_twl:
        expected = Verdict.REFER if len(word) > 9 else Verdict.UNACCEPTABLE
        assert rule_on(lexicon, rule, [word]).verdict is expected, word
    for word in only_owl:
        assert rule_on(lexicon, rule, [word]).verdict is Verdict.ACCEPTABLE, word


def test_nsa_i_b_a_longer_word_not_in_owl_is_referred(real):
    assert verdict(real, "OWL-NSA1998", "EMF", "ZZZZZZZZZZ") is Verdict.REFER
    # NSA X.E: REFER whatever the shorter words (the check then closes it UNACCEPTABLE)
    assert verdict(real, "OWL-NSA1998", "QI", "ZZZZZZZZZZ") is Verdict.REFER
    assert verdict(real, "OWL-NSA1998", "ABANDONERS") is Verdict.ACCEPTABLE  # listed: judged
    assert verdict(real, "OWL-NSA1998", "ZZZZZZZZZ") is Verdict.UNACCEPTABLE  # 9: judged


# ---------- the school recipe: no invented words; MW11 over 8 letters ----------


def test_school_adjustment_lists_ship_empty_with_a_note():
    recipe = load_recipe("school")
    for name in recipe.add + tuple(r for r in recipe.remove if r != "ospd4-removals.txt"):
        text = (recipe.folder / name).read_text()
        lines = [line.strip() for line in text.splitlines()]
        assert [line for line in lines if line and not line.startswith("#")] == [], name
        assert "ships with no words" in text and "docs/recipes.md" in text
    assert (recipe.refer_longer_than, recipe.refer_even_if_listed) == (8, True)
    assert "MW11" in recipe.text and "EMPTY" in recipe.text


def test_school_recipe_builds_no_invented_adjustments(real, word_sets):
    manifest = real.manifest("SCHOOL-OSPD")
    assert (manifest.words, manifest.fingerprint) == (len(word_sets["TWL06"]) - 317, OSPD4_FP)
    assert manifest.recipe["added"] == 0 and manifest.recipe["removed"] == 317  # OSPD4's only
    # the entries the old example lists slipped in are gone
    assert verdict(real, "SCHOOL-OSPD", "BOOZE", "BOOZED") is Verdict.ACCEPTABLE
    assert verdict(real, "SCHOOL-OSPD", "OK") is Verdict.UNACCEPTABLE
    assert verdict(real, "SCHOOL-OSPD", "EW") is Verdict.UNACCEPTABLE


def test_school_rule_10_every_word_over_8_letters_goes_to_mw11(real, word_sets):
    """ "Words with more than 8 letters must appear in MW11": listed or not, they are referred."""
    listed9 = "ABANDONED"
    assert listed9 in word_sets["TWL06"]
    assert verdict(real, "SCHOOL-OSPD", listed9) is Verdict.REFER
    assert verdict(real, "SCHOOL-OSPD", "CAT", listed9, "QUIXOTIC") is Verdict.REFER
    assert verdict(real, "SCHOOL-OSPD", "ZZZZZZZZZ") is Verdict.REFER
    assert verdict(real, "SCHOOL-OSPD", "QUIXOTIC", "CAT") is Verdict.ACCEPTABLE  # 8: judged
    assert verdict(real, "SCHOOL-OSPD", "ZZZZZZZZ") is Verdict.UNACCEPTABLE
    # a referral says nothing of the shorter words (NSA X.E): the check closes it
    assert verdict(real, "SCHOOL-OSPD", "ZZZZZZZZ", listed9) is Verdict.REFER


def test_school_referral_says_so_everywhere(real):
    from adjudicator.words.recipe import referral_text

    manifest = real.manifest("SCHOOL-OSPD")
    text = referral_text(manifest.refer_longer_than, manifest.refer_even_if_listed)
    assert "every word of more than 8 letters, listed or not, gives REFER" in text
    assert manifest.summary()["refer_even_if_listed"] is True


def test_adjustments_in_the_documented_format_take_effect(real, tmp_path: Path):
    """docs/recipes.md's example sheet, copied beside a copy of the school recipe."""
    docs = (ROOT / "docs" / "recipes.md").read_text()
    example = docs.split("```text\n", 1)[1].split("```", 1)[0]
    recipe = load_recipe("school")
    (tmp_path / "school.toml").write_text(recipe.text)
    (tmp_path / "school-additions.txt").write_text(example)
    (tmp_path / "school-removals.txt").write_text("# none\n")
    shipped = recipe.folder / "ospd4-removals.txt"
    (tmp_path / "ospd4-removals.txt").write_text(shipped.read_text())
    summary = import_recipe(real, tmp_path / "school.toml", "SCHOOL-EVENT")
    added = [line for line in example.splitlines() if line and not line.startswith("#")]
    assert summary.build.added == len(added) > 0
    assert verdict(real, "SCHOOL-EVENT", *added[:8]) is Verdict.ACCEPTABLE
