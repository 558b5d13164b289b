"""Issue 20, items 4 to 7: each rulebook on its own words, built from the real lists in
../shared/lexicons (skipped with the reason when they are absent).

- School rules 2011 (rule 10): OSPD4 decides; OSPD4 is TWL06 without 317 offensive words, so
  the school recipe removes them (shipped with their source); over 8 letters: MW11 (REFER).
- MSA rules 12 and 13: OSW 4th edition + OSPD 2nd edition (Chambers 1998, MW10 beyond): the
  recipe unites the oldest editions at hand, OSWI and the 1998 OWL; REFER over 9 letters.
- WESPA rules of 2010 used CSW07; the catalogue knows it, with its dates.
- A tournament's date: an edition not in force then is accepted with a warning naming the
  editions in force; the catalogue's dates come from the lists' README, without overlaps.
"""

from __future__ import annotations

import hashlib
import json
from datetime import date
from itertools import combinations

import pytest

from adjudicator.judging.rules import get_rule
from adjudicator.judging.ruling import rule_on
from adjudicator.judging.verdict import Verdict
from adjudicator.words import catalogue
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.recipe import import_recipe
from adjudicator.words.recipe_file import load_recipe
from adjudicator.words.store import LexiconStore

from support.paths import SHARED_LEXICONS

OWL_TEXT = SHARED_LEXICONS / "zyzzyva" / "OWL.zyzzyva.txt"
SLURS = ("FUCK", "JEW", "SHIT", "GOY", "YID", "LEZ")


def _list(name: str):
    path = SHARED_LEXICONS / f"{name}.txt"
    if not path.is_file():
        pytest.skip(f"the real list {path} is not there")
    return path


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> LexiconStore:
    """TWL06, OSWI, CSW07 and the 1998 OWL compiled; the school and MSA recipes built on them."""
    if not OWL_TEXT.is_file():
        pytest.skip(f"the real OWL is not at {OWL_TEXT}")
    store = LexiconStore(tmp_path_factory.mktemp("editions") / "lexicons")
    for name in ("TWL06", "OSWI", "CSW07"):
        import_lexicon(store, _list(name), name)
    import_lexicon(store, OWL_TEXT, "OWL")
    import_recipe(store, "school")
    import_recipe(store, "msa")
    return store


def verdict(store: LexiconStore, name: str, *words: str) -> Verdict:
    return rule_on(store.open(name), get_rule("double"), list(words)).verdict


# ---------- item 4: the school list is OSPD4 ----------


def test_school_rule_10_the_school_recipe_is_ospd4_exactly(real):
    manifest = real.manifest("SCHOOL-OSPD")
    ospd4 = catalogue.by_name("OSPD4")
    assert (
        (manifest.words, manifest.fingerprint)
        == (ospd4.words, ospd4.fingerprint)
        == (
            178_374,
            "4708b738af89a21d47876d77bc7120dba7bccaa7aad8a41d7f8e6717b35c9bd1",
        )
    )
    assert manifest.catalogue_name == "OSPD4"
    real_ospd4 = hashlib.sha256(_list("OSPD4").read_bytes()).hexdigest()
    assert manifest.fingerprint == real_ospd4  # the very words of the real OSPD4


def test_school_the_317_removals_ship_with_their_source(real):
    recipe = load_recipe("school")
    text = (recipe.folder / "ospd4-removals.txt").read_text()
    words = [line for line in text.splitlines() if line and not line.startswith("#")]
    twl, ospd = (set(_list(n).read_text().split()) for n in ("TWL06", "OSPD4"))
    assert sorted(words) == sorted(twl - ospd) and len(words) == 317
    assert "scrabblewords/scrabblewords" in text and "TWL06 minus OSPD4" in text


@pytest.mark.parametrize("word", SLURS)
def test_school_slurs_are_unacceptable_at_a_school_event(real, word):
    assert verdict(real, "TWL06", word) is Verdict.ACCEPTABLE  # the old stand-in took them
    assert verdict(real, "SCHOOL-OSPD", word) is Verdict.UNACCEPTABLE


def test_school_rule_10_words_over_8_letters_still_go_to_mw11(real):
    assert verdict(real, "SCHOOL-OSPD", "ABANDONED") is Verdict.REFER
    assert verdict(real, "SCHOOL-OSPD", "QUIXOTIC", "CAT") is Verdict.ACCEPTABLE


def test_the_catalogue_knows_nswl2023_for_school_events_today():
    nswl = catalogue.by_name("NSWL2023")
    assert (nswl.words, nswl.family, nswl.in_force_from) == (195_747, "school", "2024-01-01")
    words = _list("NSWL2023").read_bytes()
    assert hashlib.sha256(words).hexdigest() == nswl.fingerprint


# ---------- item 5: MSA on the oldest editions at hand ----------


def test_msa_12_the_union_is_oswi_and_the_1998_owl(real):
    recipe = load_recipe("msa")
    assert (recipe.sources, recipe.refer_longer_than) == (("OSWI", "OWL"), 9)
    manifest = real.manifest("MSA-UNION")
    assert manifest.fingerprint == catalogue.by_name("OSWI").fingerprint  # OSWI holds OWL
    assert "OSWI" in recipe.text and "not the same" in recipe.text


@pytest.mark.parametrize("word", ["OK", "EW", "ZE", "GRRL"])
def test_msa_12_words_of_later_lists_are_unacceptable(real, word):
    assert verdict(real, "MSA-UNION", word) is Verdict.UNACCEPTABLE


def test_msa_13_a_missing_word_over_9_letters_goes_to_chambers_or_mw10(real):
    assert verdict(real, "MSA-UNION", "QI", "ZZZZZZZZZZ") is Verdict.REFER
    assert verdict(real, "MSA-UNION", "ZZZZZZZZZ") is Verdict.UNACCEPTABLE  # 9: the lists
    assert verdict(real, "MSA-UNION", "QI", "EMF") is Verdict.ACCEPTABLE


# ---------- item 6: WESPA 2010 on CSW07 ----------


def test_wespa_2010_csw07_is_in_the_catalogue_with_its_dates(real):
    csw07 = catalogue.by_name("CSW07")
    assert (csw07.words, csw07.in_force_from, csw07.in_force_to) == (
        267_750,
        "2007-01-01",
        "2011-12-31",
    )
    assert real.manifest("CSW07").catalogue_name == "CSW07"
    assert csw07.in_force_on("2010-06-01")
    assert verdict(real, "CSW07", "QIN") is Verdict.UNACCEPTABLE  # came with CSW12
    assert verdict(real, "CSW07", "QI", "ZA") is Verdict.ACCEPTABLE


# ---------- item 7: the edition in force ----------


def test_no_two_editions_of_a_family_are_in_force_on_one_day():
    by_family: dict[str, list[catalogue.Edition]] = {}
    for edition in catalogue.editions():
        if edition.family:
            by_family.setdefault(edition.family, []).append(edition)
    for family, editions in by_family.items():
        for a, b in combinations(editions, 2):
            a_to, b_to = a.in_force_to or "9999", b.in_force_to or "9999"
            assert a_to < b.in_force_from or b_to < a.in_force_from, (family, a.name, b.name)


def test_the_catalogue_dates_follow_the_lists_readme():
    """Each README year range starts the edition in its first year (the README's ranges
    overlap only in the year an edition changed)."""
    readme = (SHARED_LEXICONS / "README.md").read_text() if SHARED_LEXICONS.is_dir() else ""
    if not readme:
        pytest.skip("no README of the real lists")
    for name, first_year in {
        "NWL2023": "2024",
        "NWL2020": "2020",
        "NWL2018": "2019",
        "TWL2014": "2015",
        "TWL06": "2006",
        "CSW07": "2007",
        "OSWI": "2003",
        "OSPD4": "2006",
        "NSWL2023": "2024",
    }.items():
        assert catalogue.by_name(name).in_force_from.startswith(first_year), name


def test_an_old_edition_is_accepted_with_a_warning_naming_the_one_in_force(run, home):
    import_lexicon_cli = run("lexicon", "import", str(_list("TWL06")), "--name", "TWL06")
    assert import_lexicon_cli.exit_code == 0, import_lexicon_cli.stderr
    out = run(
        "tournament", "create", "club-2024", "-l", "TWL06", "-r", "double", "--date", "2024-05-04"
    )
    assert out.exit_code == 0
    assert out.stderr == (
        "Warning: Tournament club-2024: TWL06 was not in force on 2024-05-04 (it was in force "
        "2006-03-01 to 2014-12-31); in force then: NWL2023 (2024-01-01 on).\n"
    )
    fine = run(
        "tournament", "create", "club-2010", "-l", "TWL06", "-r", "double", "--date", "2010-05-01"
    )
    assert fine.exit_code == 0 and fine.stderr == ""
    listed = {t["slug"]: t for t in json.loads(run("tournament", "list", "--json").stdout)}
    assert (listed["club-2024"]["date"], listed["club-2024"]["rulebook"]) == ("2024-05-04", None)
    bad = run("tournament", "create", "x", "-l", "TWL06", "-r", "double", "--date", "04/05/2024")
    assert bad.exit_code == 2 and "YYYY-MM-DD" in bad.stderr


def test_the_date_defaults_to_today(run, home):
    run("lexicon", "import", str(_list("TWL06")), "--name", "TWL06")
    out = run("tournament", "create", "today", "-l", "TWL06", "-r", "single", "--rulebook", "naspa")
    # issue 35: NASPA 1.3 takes only the edition in force on the event's date, today's
    assert out.exit_code == 2 and f"not in force on {date.today().isoformat()}" in out.stderr
    assert "in force then: NWL2023" in out.stderr  # TWL06 is long out of force
    out = run("tournament", "create", "today", "-l", "TWL06", "-r", "single", "--rulebook", "naspa",
              "--off-rulebook", "a TWL06 anniversary event")  # fmt: skip
    assert out.exit_code == 0
    assert f"  date:    {date.today().isoformat()}" in out.stdout
    assert "in force then: NWL2023" in out.stderr  # the warning, as before
