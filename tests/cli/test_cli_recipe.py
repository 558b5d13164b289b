"""The CLI for recipes and diffs: `lexicon import --recipe`, `lexicon diff`, referral in
`lexicon list`/`show`, and `judge` giving REFER (exit 3) without naming a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from adjudicator.cli import cli
from adjudicator.cli.judge_cmd import NOT_RECORDED
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.recipe import import_recipe
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.paths import SHARED_LEXICONS

TWL06_FP = "576f29fa16c7ee47621300c877b5ce338beeb5d34fff1d289ed37310522bfee8"
OWL_FP = "7f84660efc8180f4063fc5bac407b5cca630980066e80dee32fddee367bc911a"
OWL_TEXT = SHARED_LEXICONS / "zyzzyva" / "OWL.zyzzyva.txt"


@pytest.fixture
def recipe(tmp_path: Path) -> Path:
    """A recipe over two small lists, an add list and a remove list, referring over 5 letters."""
    (tmp_path / "one.txt").write_text("AA\nAB\nCAT\nDOG\n")
    (tmp_path / "two.txt").write_text("CAT\nZEBRA\nQUIXOTIC\n")
    (tmp_path / "adds.txt").write_text("QI\nZA\n")
    (tmp_path / "drops.txt").write_text("DOG\n")
    path = tmp_path / "small.toml"
    path.write_text(
        'name = "SMALL"\ndescription = "a small recipe"\n'
        'sources = ["one.txt", "two.txt"]\nadd = ["adds.txt"]\n'
        'remove = ["drops.txt"]\nrefer_longer_than = 5\n'
    )
    return path


def test_import_recipe_prints_summary(run, store: LexiconStore, recipe: Path):
    out = run("lexicon", "import", "--recipe", str(recipe))
    assert out.exit_code == 0, out.stderr
    expected = WordSet.of(["AA", "AB", "CAT", "ZEBRA", "QUIXOTIC", "QI", "ZA"])
    assert out.stdout.startswith("Imported SMALL from small.toml (recipe)")
    assert "words:       7 " in out.stdout
    assert f"fingerprint: {expected.fingerprint}" in out.stdout
    one = WordSet.of(["AA", "AB", "CAT", "DOG"]).fingerprint[:12]
    assert f"one.txt (file): 4 words, fingerprint {one}" in out.stdout
    assert "two.txt (file): 3 words" in out.stdout
    assert "add:         1 list, 2 words no source had" in out.stdout
    assert "remove:      1 list, 1 word removed" in out.stdout
    assert "referral:    a referral rule: a missing word of more than 5 letters gives REFER" in (
        out.stdout
    )
    assert store.manifest("SMALL").fingerprint == expected.fingerprint


def test_import_recipe_with_name_and_compiled_source(run, store: LexiconStore, tmp_path: Path):
    store.save("BASE", WordSet.of(["XI", "JO"]))
    path = tmp_path / "r.toml"
    path.write_text('name = "R"\nsources = ["BASE"]\n')
    out = run(
        "lexicon", "import", "--recipe", str(path), "--name", "MINE", "--description", "given here"
    )
    assert out.exit_code == 0, out.stderr
    assert "BASE (compiled lexicon): 2 words" in out.stdout
    assert "referral:    no referral rule" in out.stdout
    assert store.names() == ["BASE", "MINE"]
    assert store.manifest("MINE").description == "given here"


@pytest.mark.parametrize(
    "args",
    [
        ("lexicon", "import"),
        ("lexicon", "import", "list.txt", "--recipe", "r.toml"),
        ("lexicon", "import", "--recipe", "r.toml", "--format", "text"),
        ("lexicon", "import", "--recipe", "r.toml", "--skip-invalid"),
        ("lexicon", "import", "list.txt"),  # a plain import still needs --name
    ],
)
def test_import_usage_errors(run, args):
    out = run(*args)
    assert out.exit_code == 2 and out.stdout == ""
    assert "Error:" in out.stderr


def test_plain_import_still_works(run, store: LexiconStore, tmp_path: Path):
    (tmp_path / "list.txt").write_text("QI\nZA\n")
    out = run("lexicon", "import", str(tmp_path / "list.txt"), "--name", "PLAIN")
    assert out.exit_code == 0 and out.stdout.startswith("Imported PLAIN from list.txt (text)")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('name = "R"\nsources = ["one.txt"]\nsauce = 1\n', "unknown key(s) sauce"),
        ('name = "R"\nsources = ["nowhere.txt"]\n', "'nowhere.txt' is neither a file"),
        ('name = "R"\nsources = ["one.txt"]\nrefer_longer_than = 20\n', "from 2 to 15"),
        ('name = "R"\nsources = ["one.txt"]\nadd = ["bad.txt"]\n', "line 2: 'Q1'"),
        ('name = "R"\nsources = ["one.txt"\n', "not valid TOML"),
    ],
)
def test_recipe_errors_exit_2_with_message(run, store: LexiconStore, tmp_path: Path, body, message):
    (tmp_path / "one.txt").write_text("QI\n")
    (tmp_path / "bad.txt").write_text("ZA\nQ1\n")
    (tmp_path / "r.toml").write_text(body)
    out = run("lexicon", "import", "--recipe", str(tmp_path / "r.toml"))
    assert out.exit_code == 2 and out.stdout == ""
    assert message in out.stderr and "Traceback" not in out.stderr
    assert store.names() == []


def test_missing_recipe_file_exits_2(run, tmp_path: Path):
    out = run("lexicon", "import", "--recipe", str(tmp_path / "absent.toml"))
    assert out.exit_code == 2 and "No recipe file" in out.stderr and out.stdout == ""


def test_catalogue_name_with_other_words_is_refused(run, store: LexiconStore, tmp_path: Path):
    (tmp_path / "one.txt").write_text("QI\nZA\n")
    (tmp_path / "r.toml").write_text('name = "CSW21"\nsources = ["one.txt"]\n')
    out = run("lexicon", "import", "--recipe", str(tmp_path / "r.toml"))
    assert out.exit_code == 2 and "CSW21 has 279,077 words; this file has 2" in out.stderr
    assert store.names() == []
    forced = run("lexicon", "import", "--recipe", str(tmp_path / "r.toml"), "--force")
    assert forced.exit_code == 0 and "NOT the catalogue's CSW21" in forced.stdout


def test_list_and_show_give_referral_and_recipe(run, recipe: Path):
    run("lexicon", "import", "--recipe", str(recipe))
    listed = run("lexicon", "list")
    line = next(row for row in listed.stdout.splitlines() if row.startswith("SMALL"))
    assert "refers >5" in line and "recipe small.toml" in line
    data = json.loads(run("lexicon", "list", "--json").stdout)
    assert data[0]["name"] == "SMALL" and data[0]["refer_longer_than"] == 5
    shown = run("lexicon", "show", "SMALL").stdout
    assert "refer_longer_than:   5" in shown
    assert "referral:            a referral rule: a missing word of more than 5 letters" in shown
    assert "recipe:              small.toml (sha256 " in shown
    assert "source:  one.txt (file): 4 words" in shown and "remove:  drops.txt (file)" in shown
    assert '    | sources = ["one.txt", "two.txt"]' in shown
    as_json = json.loads(run("lexicon", "show", "SMALL", "--json").stdout)
    assert as_json["recipe"]["text"] == recipe.read_text()
    assert [s["name"] for s in as_json["recipe"]["sources"]] == ["one.txt", "two.txt"]


def test_show_without_recipe(run, store: LexiconStore):
    store.save("PLAIN", WordSet.of(["QI"]))
    shown = run("lexicon", "show", "PLAIN").stdout
    assert "referral:            no referral rule" in shown
    assert "recipe:              - (imported from a single list)" in shown
    assert "refers" not in run("lexicon", "list").stdout


def test_diff_counts_words_and_json(run, store: LexiconStore):
    store.save("OLD", WordSet.of(["QI", "ZA", "CAT", "DOG"]))
    store.save("NEW", WordSet.of(["QI", "ZA", "OK", "EW", "AB"]))
    out = run("lexicon", "diff", "OLD", "NEW")
    assert out.exit_code == 0
    assert out.stdout.splitlines()[0] == "OLD -> NEW"
    assert "  added:   3" in out.stdout and "  removed: 2" in out.stdout
    assert "EW" not in out.stdout.split()  # no words without --words
    words = run("lexicon", "diff", "OLD", "NEW", "--words").stdout
    assert words.split("Added (3):\n")[1] == "  AB\n  EW\n  OK\nRemoved (2):\n  CAT\n  DOG\n"
    data = json.loads(run("lexicon", "diff", "OLD", "NEW", "--json").stdout)
    assert (data["added"], data["removed"], data["old"]["name"]) == (3, 2, "OLD")
    assert "added_words" not in data
    data = json.loads(run("lexicon", "diff", "OLD", "NEW", "--json", "--words").stdout)
    assert (data["added_words"], data["removed_words"]) == (["AB", "EW", "OK"], ["CAT", "DOG"])


def test_diff_unknown_lexicon_exits_2(run, store: LexiconStore):
    store.save("OLD", WordSet.of(["QI"]))
    out = run("lexicon", "diff", "OLD", "NOPE")
    assert out.exit_code == 2 and out.stdout == "" and "No lexicon named 'NOPE'" in out.stderr


def test_judge_tiny_referral(run, recipe: Path):
    run("lexicon", "import", "--recipe", str(recipe))
    assert run("judge", "-l", "SMALL", "CAT", "QUIXOTIC").exit_code == 0
    refer = run("judge", "-l", "SMALL", "CAT", "QUIXOTAC")
    assert refer.exit_code == 3 and refer.stdout.startswith("REFER")
    assert run("judge", "-l", "SMALL", "CAX", "QUIXOTAC").exit_code == 3  # NSA X.E
    data = json.loads(run("judge", "-l", "SMALL", "--json", "QUIXOTAC").stdout)
    assert data["verdict"] == "REFER"


# --- the real lists: OWL with refer_longer_than = 9 (NSA 1998); NWL edition diff -----------


@pytest.fixture(scope="module")
def real_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data home with OWL (from Zyzzyva's text), NWL2018, NWL2020 and the nsa-1998 recipe
    compiled once."""
    names = ("NWL2018", "NWL2020")
    paths = [SHARED_LEXICONS / f"{n}.txt" for n in names] + [OWL_TEXT]
    missing = [p.name for p in paths if not p.exists()]
    if missing:
        pytest.skip(f"real word lists not found in {SHARED_LEXICONS}: {', '.join(missing)}")
    home = tmp_path_factory.mktemp("realhome")
    store = LexiconStore(home / "lexicons")
    for name in names:
        import_lexicon(store, SHARED_LEXICONS / f"{name}.txt", name)
    import_lexicon(store, OWL_TEXT, "OWL")
    import_recipe(store, "nsa-1998")
    return home


@pytest.fixture
def real_run(real_home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(real_home))
    for name in ("DEFAULT_LEXICON", "DEFAULT_RULE", "DATABASE_URL"):
        monkeypatch.delenv(f"ADJUDICATOR_{name}", raising=False)
    runner = CliRunner()

    def invoke(*args: str):
        result = runner.invoke(cli, list(args), prog_name="adjudicator")
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result

    return invoke


@pytest.fixture
def owl(real_run):
    """The CLI on the real home, where OWL-NSA1998 (OWL, refer_longer_than = 9) is compiled."""
    return real_run


def test_real_import_shipped_nsa_recipe(real_run):
    out = real_run("lexicon", "import", "--recipe", "nsa-1998", "--name", "OWL-CLI")
    assert out.exit_code == 0, out.stderr
    assert out.stdout.startswith("Imported OWL-CLI from nsa-1998.toml (recipe)")
    assert f"fingerprint: {OWL_FP}" in out.stdout
    assert "the same words as catalogue edition OWL" in out.stdout
    assert f"OWL (compiled lexicon): 167,964 words, fingerprint {OWL_FP[:12]}" in out.stdout
    assert "a missing word of more than 9 letters gives REFER" in out.stdout
    # issue 28: the summary agrees with the REFER it gives (whatever the shorter words: NSA X.E)
    assert "judged with the referral rule below (which OWL alone does not have)" in out.stdout
    assert "whatever the shorter words" in out.stdout and "unless" not in out.stdout
    judged = real_run("judge", "--lexicon", "OWL-CLI", "ZZ", "ZZZZZZZZZZ")  # a short one missing
    assert judged.exit_code == 3 and judged.stdout.startswith("REFER")


GOOD10, BAD10, GOOD5, BAD5 = "ABANDONERS", "ZZZZZZZZZZ", "ZEBRA", "ZZZZZ"
OTHER_BAD10 = "QQQQQQQQQQ"


def test_real_judge_refers_long_missing_word(owl):
    out = owl("judge", "--lexicon", "OWL-NSA1998", "EMF", BAD10)
    assert out.exit_code == 3
    assert out.stdout.splitlines()[0] == "REFER: call a word judge; a dictionary check is needed"
    assert owl("judge", "--lexicon", "OWL-NSA1998", GOOD10, GOOD5).exit_code == 0


@pytest.mark.parametrize("others", [[], [GOOD10], [GOOD5, GOOD10, "EMF"]])
def test_real_judge_short_missing_word_is_unacceptable(owl, others):
    out = owl("judge", "--lexicon", "OWL-NSA1998", *others, BAD5)
    assert out.exit_code == 1 and out.stdout.startswith("UNACCEPTABLE")


@pytest.mark.parametrize("others", [[BAD10], [GOOD5, BAD10, "EMF"]])
def test_real_nsa_x_e_a_referral_hides_whether_a_shorter_word_is_missing(owl, others):
    """NSA X.E: with a long word missing it is REFER either way; only the echo differs."""
    bad = owl("judge", "--lexicon", "OWL-NSA1998", *others, BAD5)
    good = owl("judge", "--lexicon", "OWL-NSA1998", *others, GOOD5)
    assert bad.exit_code == good.exit_code == 3
    assert bad.stdout.splitlines()[:-1] == good.stdout.splitlines()[:-1]


def test_real_refer_never_names_the_word(owl):
    """Which long word is missing changes nothing but the echo of the words typed."""
    first = owl("judge", "-l", "OWL-NSA1998", GOOD10, BAD10, OTHER_BAD10)
    second = owl("judge", "-l", "OWL-NSA1998", BAD10, GOOD10, OTHER_BAD10)
    third = owl("judge", "-l", "OWL-NSA1998", OTHER_BAD10, BAD10, GOOD10)
    assert {first.exit_code, second.exit_code, third.exit_code} == {3}

    def without_echo(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("Words judged")]

    assert without_echo(first.stdout) == without_echo(second.stdout) == without_echo(third.stdout)
    for out in (first, second, third):
        assert not {GOOD10, BAD10, OTHER_BAD10} & set("\n".join(without_echo(out.stdout)).split())
        assert out.stderr == NOT_RECORDED + "\n"


def test_real_list_shows_referral(owl):
    line = next(
        row for row in owl("lexicon", "list").stdout.splitlines() if row.startswith("OWL-NSA1998")
    )
    assert "= OWL" in line and "refers >9" in line and "recipe nsa-1998.toml" in line


def test_real_diff_nwl2018_to_nwl2020(real_run):
    out = real_run("lexicon", "diff", "NWL2018", "NWL2020")
    assert out.exit_code == 0
    assert "  added:   0\n" in out.stdout and "  removed: 259\n" in out.stdout
    data = json.loads(real_run("lexicon", "diff", "NWL2018", "NWL2020", "--json", "--words").stdout)
    assert (data["added"], data["removed"], len(data["removed_words"])) == (0, 259, 259)
    assert data["removed_words"] == sorted(data["removed_words"])
    assert data["new"]["words"] == 191_852 and data["old"]["words"] == 192_111
