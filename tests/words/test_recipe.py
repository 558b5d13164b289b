"""Lexicon recipes: parsing and its errors, building (union, add, remove), referral, catalogue."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from adjudicator.errors import ImportRefused, LexiconError
from adjudicator.judging.rules import get_rule
from adjudicator.judging.ruling import rule_on
from adjudicator.judging.verdict import Verdict
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.recipe import build_recipe, import_recipe
from adjudicator.words.recipe_file import RecipeError, load_recipe, shipped_recipes
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.paths import SHARED_LEXICONS

TWL06_FP = "576f29fa16c7ee47621300c877b5ce338beeb5d34fff1d289ed37310522bfee8"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def recipe_file(folder: Path, body: str, name: str = "r.toml") -> Path:
    return write(folder, name, body)


@pytest.fixture
def lists(tmp_path: Path) -> Path:
    """A folder with two small overlapping lists and adjustment lists beside a recipe."""
    write(tmp_path, "one.txt", "AA\nAB\nCAT\nDOG\n")
    write(tmp_path, "two.txt", "# a comment\ncat\nZEBRA\nQUIXOTIC\n")
    write(tmp_path, "extra.txt", "QI\nZA\nCAT\n")
    write(tmp_path, "drop.txt", "DOG\nNOTTHERE\n")
    return tmp_path


# --- building -----------------------------------------------------------------------------


def test_union_of_file_sources(store: LexiconStore, lists: Path):
    path = recipe_file(lists, 'name = "U"\nsources = ["one.txt", "two.txt"]\n')
    build = build_recipe(store, load_recipe(path))
    assert build.words == WordSet.of(["AA", "AB", "CAT", "DOG", "ZEBRA", "QUIXOTIC"])
    assert [(r.name, r.kind, r.words) for r in build.sources] == [
        ("one.txt", "file", 4),
        ("two.txt", "file", 3),
    ]
    assert build.sources[1].fingerprint == WordSet.of(["CAT", "ZEBRA", "QUIXOTIC"]).fingerprint


def test_add_and_remove_lists(store: LexiconStore, lists: Path):
    path = recipe_file(
        lists, 'name = "U"\nsources = ["one.txt"]\nadd = ["extra.txt"]\nremove = ["drop.txt"]\n'
    )
    build = build_recipe(store, load_recipe(path))
    assert build.words.words == ("AA", "AB", "CAT", "QI", "ZA")
    assert (build.added, build.removed, build.not_there) == (2, 1, 1)


def test_remove_wins_over_add(store: LexiconStore, lists: Path):
    write(lists, "drop2.txt", "QI\n")
    path = recipe_file(
        lists, 'name = "U"\nsources = ["one.txt"]\nadd = ["extra.txt"]\nremove = ["drop2.txt"]\n'
    )
    assert "QI" not in build_recipe(store, load_recipe(path)).words.words


def test_source_may_be_a_compiled_lexicon_or_gzip_file(store: LexiconStore, lists: Path):
    store.save("BASE", WordSet.of(["XI", "JO"]))
    (lists / "gz.txt.gz").write_bytes(gzip.compress(b"OK\nEW\n"))
    path = recipe_file(lists, 'name = "U"\nsources = ["BASE", "gz.txt.gz"]\n')
    build = build_recipe(store, load_recipe(path))
    assert build.words.words == ("EW", "JO", "OK", "XI")
    assert [r.kind for r in build.sources] == ["lexicon", "file"]
    assert build.sources[0].fingerprint == store.manifest("BASE").fingerprint


def test_import_records_recipe_and_referral(store: LexiconStore, lists: Path):
    path = recipe_file(
        lists,
        'name = "U"\ndescription = "test"\nsources = ["one.txt"]\n'
        'add = ["extra.txt"]\nrefer_longer_than = 4\n',
    )
    summary = import_recipe(store, path)
    m = store.manifest("U")
    assert m == summary.manifest
    assert (m.refer_longer_than, m.source_format, m.source_file, m.description) == (
        4,
        "recipe",
        "r.toml",
        "test",
    )
    assert m.recipe["text"] == path.read_text()
    assert m.recipe["sources"][0] == {
        "name": "one.txt",
        "kind": "file",
        "words": 4,
        "fingerprint": WordSet.of(["AA", "AB", "CAT", "DOG"]).fingerprint,
        "sha256": summary.build.sources[0].sha256,
    }
    assert m.recipe["add"][0]["words"] == 3 and m.recipe["added"] == 2
    assert store.open("U").manifest.refer_longer_than == 4


def test_name_given_overrides_recipe_name(store: LexiconStore, lists: Path):
    path = recipe_file(lists, 'name = "U"\nsources = ["one.txt"]\n')
    import_recipe(store, path, "OTHER")
    assert store.names() == ["OTHER"]


def test_referral_on_a_tiny_recipe(store: LexiconStore, lists: Path):
    path = recipe_file(
        lists, 'name = "R"\nsources = ["one.txt", "two.txt"]\nrefer_longer_than = 5\n'
    )
    import_recipe(store, path)
    lexicon, rule = store.open("R"), get_rule("double")
    assert rule_on(lexicon, rule, ["CAT", "QUIXOTIC"]).verdict is Verdict.ACCEPTABLE
    assert rule_on(lexicon, rule, ["CAT", "QUIXOTAC"]).verdict is Verdict.REFER
    assert rule_on(lexicon, rule, ["CAX", "QUIXOTAC"]).verdict is Verdict.REFER  # NSA X.E
    assert rule_on(lexicon, rule, ["CAX", "QUIXOTIC"]).verdict is Verdict.UNACCEPTABLE


def test_shipped_recipes_parse():
    assert {"nsa-1998", "msa", "school"} <= set(shipped_recipes())
    nsa, msa, school = (load_recipe(name) for name in ("nsa-1998", "msa", "school"))
    assert (nsa.sources, nsa.refer_longer_than) == (("OWL",), 9)
    assert (msa.sources, msa.refer_longer_than) == (("OSWI", "OWL"), 9)
    assert (school.refer_longer_than, len(school.add), len(school.remove)) == (8, 1, 2)
    assert school.refer_even_if_listed and not nsa.refer_even_if_listed
    for name in school.add + school.remove:
        assert (school.folder / name).is_file()


def test_shipped_school_recipe_takes_out_only_ospd4s_removals(store: LexiconStore):
    """No invented adjustment ships: the event's lists hold no words; only the 317 words
    OSPD4 left out of TWL06 are removed (here the one of them this tiny source has)."""
    store.save("TWL06", WordSet.of(["AA", "BOOZE", "BOOZED", "CAT", "JEW"]))
    build = build_recipe(store, load_recipe("school"))
    assert build.words.words == ("AA", "BOOZE", "BOOZED", "CAT")
    assert (build.added, build.removed, build.not_there) == (0, 1, 316)
    assert [r.words for r in build.add + build.remove] == [0, 317, 0]


def test_refer_even_if_listed_sends_every_long_word_to_a_person(store: LexiconStore, lists):
    path = recipe_file(
        lists,
        'name = "EVERY"\nsources = ["one.txt"]\nrefer_longer_than = 2\n'
        "refer_even_if_listed = true\n",
    )
    manifest = import_recipe(store, path).manifest
    assert (manifest.refer_longer_than, manifest.refer_even_if_listed) == (2, True)
    assert manifest.recipe["refer_even_if_listed"] is True
    lexicon, rule = store.open("EVERY"), get_rule("single")
    listed_long, listed_short = "CAT", "AB"
    assert listed_long in lexicon and listed_short in lexicon
    assert rule_on(lexicon, rule, [listed_long]).verdict is Verdict.REFER
    assert rule_on(lexicon, rule, [listed_short]).verdict is Verdict.ACCEPTABLE
    assert rule_on(lexicon, rule, [listed_short, listed_long]).verdict is Verdict.REFER
    # NSA X.E: a referral says nothing of the shorter words; the check closes it
    assert rule_on(lexicon, rule, ["QZ", listed_long]).verdict is Verdict.REFER


# --- unhappy paths: every recipe error, each with a message that names the problem ---------

BAD_RECIPES = [
    ('name = "U"\nsources = ["one.txt"\n', "not valid TOML"),
    ('name = "U"\nsources = ["one.txt"]\nsource = ["two.txt"]\n', "unknown key(s) source"),
    ('name = "U"\nsources = ["one.txt"]\nextra = 1\nother = 2\n', "unknown key(s) extra, other"),
    ('sources = ["one.txt"]\n', "needs name"),
    ('name = "U"\n', "needs sources"),
    ('description = "x"\n', "needs name and sources"),
    ('name = "U"\nsources = []\n', "sources is empty"),
    ('name = "U"\nsources = "one.txt"\n', "sources must be a list"),
    ('name = "U"\nsources = ["one.txt", 3]\n', "sources must be a list"),
    ('name = "U"\nsources = [""]\n', "sources must be a list"),
    ('name = "U"\nsources = ["one.txt"]\nadd = "extra.txt"\n', "add must be a list"),
    ('name = "U"\nsources = ["one.txt"]\nremove = [1]\n', "remove must be a list"),
    ('name = 3\nsources = ["one.txt"]\n', "name must be a non-empty string"),
    ('name = "no spaces allowed"\nsources = ["one.txt"]\n', "Invalid lexicon name"),
    ('name = "U"\ndescription = 5\nsources = ["one.txt"]\n', "description must be"),
    ('name = "U"\nsources = ["one.txt"]\nrefer_longer_than = "9"\n', "refer_longer_than must be"),
    ('name = "U"\nsources = ["one.txt"]\nrefer_longer_than = 1\n', "from 2 to 15"),
    ('name = "U"\nsources = ["one.txt"]\nrefer_longer_than = 16\n', "from 2 to 15"),
    ('name = "U"\nsources = ["one.txt"]\nrefer_longer_than = 9.5\n', "from 2 to 15"),
    ('name = "U"\nsources = ["one.txt"]\nrefer_longer_than = true\n', "from 2 to 15"),
    ('name = "U"\nsources = ["one.txt"]\nrefer_even_if_listed = 1\n', "true or false"),
    ('name = "U"\nsources = ["one.txt"]\nrefer_even_if_listed = true\n', "needs refer_longer_than"),
]


@pytest.mark.parametrize(("body", "message"), BAD_RECIPES)
def test_bad_recipe_is_refused(lists: Path, body: str, message: str):
    path = recipe_file(lists, body)
    with pytest.raises(RecipeError) as error:
        load_recipe(path)
    assert message in str(error.value)
    assert "r.toml" in str(error.value)


def test_refer_longer_than_bounds_are_accepted(lists: Path):
    for n in (2, 15):
        path = recipe_file(lists, f'name = "U"\nsources = ["one.txt"]\nrefer_longer_than = {n}\n')
        assert load_recipe(path).refer_longer_than == n


def test_missing_recipe_file(tmp_path: Path):
    with pytest.raises(RecipeError, match="No recipe file"):
        load_recipe(tmp_path / "absent.toml")
    with pytest.raises(RecipeError, match="nsa-1998"):  # lists the shipped recipes
        load_recipe("no-such-recipe")


def test_recipe_errors_are_lexicon_errors():
    assert issubclass(RecipeError, ImportRefused) and issubclass(RecipeError, LexiconError)


def test_source_neither_file_nor_lexicon(store: LexiconStore, lists: Path):
    store.save("BASE", WordSet.of(["XI"]))
    path = recipe_file(lists, 'name = "U"\nsources = ["one.txt", "NOPE"]\n')
    with pytest.raises(RecipeError) as error:
        build_recipe(store, load_recipe(path))
    text = str(error.value)
    assert "'NOPE' is neither a file" in text and "compiled lexicon" in text and "BASE" in text


@pytest.mark.parametrize("entry", ["sub/missing.txt", "missing.txt", "."])
def test_missing_source_path_is_neither_file_nor_lexicon(
    store: LexiconStore, lists: Path, entry: str
):
    path = recipe_file(lists, f'name = "U"\nsources = ["{entry}"]\n')
    with pytest.raises(RecipeError, match=f"source '{re.escape(entry)}' is neither a file"):
        build_recipe(store, load_recipe(path))


def test_damaged_compiled_source_is_refused(store: LexiconStore, lists: Path):
    manifest = store.save("BASE", WordSet.of(["XI", "JO"]))
    (store.root / manifest.compiled_file).write_bytes(b"garbage")
    path = recipe_file(lists, 'name = "U"\nsources = ["BASE"]\n')
    with pytest.raises(RecipeError, match="source 'BASE'.*damaged"):
        build_recipe(store, load_recipe(path))


def test_source_with_bad_lines_names_them(store: LexiconStore, lists: Path):
    write(lists, "bad.txt", "AA\nQI-1\nCAT\nDOG 2 3\n")
    path = recipe_file(lists, 'name = "U"\nsources = ["bad.txt"]\n')
    with pytest.raises(RecipeError) as error:
        build_recipe(store, load_recipe(path))
    text = str(error.value)
    assert "source bad.txt has 2 line(s)" in text
    assert "line 2: 'QI-1'" in text and "line 4: 'DOG 2 3'" in text


@pytest.mark.parametrize("key", ["add", "remove"])
def test_adjustment_list_with_bad_words_names_lines(store: LexiconStore, lists: Path, key: str):
    write(lists, "adj.txt", "# header\nQI\nA\nZ3\nABCDEFGHIJKLMNOP\nOK\n")
    path = recipe_file(lists, f'name = "U"\nsources = ["one.txt"]\n{key} = ["adj.txt"]\n')
    with pytest.raises(RecipeError) as error:
        build_recipe(store, load_recipe(path))
    text = str(error.value)
    assert f"{key} list adj.txt has 3 line(s)" in text and "2 to 15 letters" in text
    assert "line 3: 'A'" in text and "line 4: 'Z3'" in text and "line 5: 'ABCDEFGHIJKLMNOP'" in text


@pytest.mark.parametrize("key", ["add", "remove"])
def test_missing_adjustment_list(store: LexiconStore, lists: Path, key: str):
    path = recipe_file(lists, f'name = "U"\nsources = ["one.txt"]\n{key} = ["absent.txt"]\n')
    with pytest.raises(RecipeError, match=f"the {key} list 'absent.txt' cannot be read"):
        build_recipe(store, load_recipe(path))


def test_recipe_that_removes_everything(store: LexiconStore, lists: Path):
    path = recipe_file(lists, 'name = "U"\nsources = ["one.txt"]\nremove = ["one.txt"]\n')
    with pytest.raises(RecipeError, match="gives no words"):
        build_recipe(store, load_recipe(path))


def test_catalogue_name_with_other_words_is_refused(store: LexiconStore, lists: Path):
    path = recipe_file(lists, 'name = "TWL06"\nsources = ["one.txt"]\n')
    with pytest.raises(ImportRefused, match="TWL06 has 178,691 words; this file has 4"):
        import_recipe(store, path)
    assert store.names() == []
    assert import_recipe(store, path, force=True).manifest.verified is False


def test_replacing_with_other_words_or_referral_needs_force(store: LexiconStore, lists: Path):
    first = recipe_file(lists, 'name = "U"\nsources = ["one.txt"]\n', "first.toml")
    import_recipe(store, first)
    other_words = recipe_file(lists, 'name = "U"\nsources = ["two.txt"]\n', "words.toml")
    with pytest.raises(ImportRefused, match="already exists"):
        import_recipe(store, other_words)
    other_rule = recipe_file(
        lists, 'name = "U"\nsources = ["one.txt"]\nrefer_longer_than = 9\n', "rule.toml"
    )
    with pytest.raises(RecipeError, match="already exists with no referral rule"):
        import_recipe(store, other_rule)
    assert store.manifest("U").refer_longer_than == 0
    assert import_recipe(store, other_rule, force=True).manifest.refer_longer_than == 9
    import_recipe(store, other_rule)  # the same recipe again is fine


# --- the real lists -----------------------------------------------------------------------


def need(*names: str) -> list[Path]:
    paths = [SHARED_LEXICONS / f"{name}.txt" for name in names]
    missing = [p.name for p in paths if not p.exists()]
    if missing:
        pytest.skip(f"real word lists not found in {SHARED_LEXICONS}: {', '.join(missing)}")
    return paths


def read_words(path: Path) -> set[str]:
    return set(path.read_text().split())


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> LexiconStore:
    """A store with TWL06 and CSW19 compiled once for the module."""
    need("TWL06", "CSW19")
    store = LexiconStore(tmp_path_factory.mktemp("real") / "lexicons")
    for name in ("TWL06", "CSW19"):
        import_lexicon(store, SHARED_LEXICONS / f"{name}.txt", name)
    return store


@pytest.fixture(scope="module")
def real_sets() -> dict[str, set[str]]:
    return {
        name: read_words(path)
        for name, path in zip(
            ("TWL06", "CSW19", "NWL2020"), need("TWL06", "CSW19", "NWL2020"), strict=True
        )
    }


def test_real_union_of_compiled_twl06_and_csw19(real: LexiconStore, real_sets, tmp_path: Path):
    path = recipe_file(tmp_path, 'name = "MSA"\nsources = ["CSW19", "TWL06"]\n')
    summary = import_recipe(real, path)
    expected = WordSet.of(real_sets["TWL06"] | real_sets["CSW19"])
    assert (summary.manifest.words, summary.manifest.fingerprint) == (
        len(expected),
        expected.fingerprint,
    )
    assert [s["fingerprint"] for s in summary.manifest.recipe["sources"]] == [
        real.manifest("CSW19").fingerprint,
        TWL06_FP,
    ]


def test_real_union_of_files_that_overlap_partly(real: LexiconStore, real_sets, tmp_path: Path):
    # Sources are paths relative to the recipe; an absolute path works too.
    body = (
        f'name = "MIX"\nsources = ["{SHARED_LEXICONS}/TWL06.txt", '
        f'"{SHARED_LEXICONS}/NWL2020.txt"]\n'
    )
    build = build_recipe(real, load_recipe(recipe_file(tmp_path, body)))
    expected = WordSet.of(real_sets["TWL06"] | real_sets["NWL2020"])
    assert len(expected) > max(len(real_sets["TWL06"]), len(real_sets["NWL2020"]))
    assert (len(build.words), build.words.fingerprint) == (len(expected), expected.fingerprint)


def test_real_additions_and_removals(real: LexiconStore, real_sets, tmp_path: Path):
    write(tmp_path, "adds.txt", "OK\nEW\nQI\n")  # OK and EW are not in TWL06; QI is
    write(tmp_path, "drops.txt", "ZA\nQAT\nZZZZZ\n")
    path = recipe_file(
        tmp_path,
        'name = "SCHOOL"\nsources = ["TWL06"]\nadd = ["adds.txt"]\n'
        'remove = ["drops.txt"]\nrefer_longer_than = 8\n',
    )
    summary = import_recipe(real, path)
    expected = WordSet.of((real_sets["TWL06"] | {"OK", "EW"}) - {"ZA", "QAT"})
    assert (summary.manifest.words, summary.manifest.fingerprint) == (
        len(expected),
        expected.fingerprint,
    )
    assert (summary.build.added, summary.build.removed, summary.build.not_there) == (2, 2, 1)
    lexicon = real.open("SCHOOL")
    assert "OK" in lexicon and "ZA" not in lexicon and "QI" in lexicon


def test_real_referral_twl06_as_owl(real: LexiconStore, tmp_path: Path):
    path = recipe_file(
        tmp_path, 'name = "OWL-NSA1998"\nsources = ["TWL06"]\nrefer_longer_than = 9\n'
    )
    summary = import_recipe(real, path)
    assert summary.manifest.fingerprint == TWL06_FP and summary.manifest.catalogue_name == "TWL06"
    owl, rule = real.open("OWL-NSA1998"), get_rule("double")
    good10, bad10, good5, bad5 = "ABANDONERS", "ZZZZZZZZZZ", "ZEBRA", "ZZZZZ"
    assert good10 in owl and bad10 not in owl and good5 in owl and bad5 not in owl

    def verdict(*words: str) -> Verdict:
        return rule_on(owl, rule, list(words)).verdict

    assert verdict(good10, good5) is Verdict.ACCEPTABLE
    assert verdict(bad10) is Verdict.REFER
    assert verdict(good5, bad10, "QI") is Verdict.REFER
    assert verdict(bad10, bad10) is Verdict.REFER
    for others in ([], [good10], [good5, "QI", good10]):
        assert verdict(*others, bad5) is Verdict.UNACCEPTABLE
        assert verdict(bad5, *others) is Verdict.UNACCEPTABLE
    for others in ([bad10], [good5, bad10], ["QI", good10, bad10]):  # NSA X.E: tells nothing
        assert verdict(*others, bad5) is Verdict.REFER
        assert verdict(bad5, *others) is Verdict.REFER
    assert verdict("ABANDONED") is Verdict.ACCEPTABLE and verdict("ZZZZZZZZZ") is (
        Verdict.UNACCEPTABLE
    )  # 9 letters is judged, not referred


def test_real_shipped_school_recipe_builds(real: LexiconStore, real_sets):
    # The NSA 1998 recipe needs OWL: tests/words/test_rulebook_recipes.py builds it on the
    # real list.
    school = import_recipe(real, "school").manifest
    assert (school.refer_longer_than, school.words) == (8, len(real_sets["TWL06"]) - 317)
    assert school.catalogue_name == "OSPD4"  # TWL06 without its 317 offensive words
