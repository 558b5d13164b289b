"""Integration over the real tournament lists in ../shared/lexicons (skipped when absent).

Every count and fingerprint of that folder's README table is reproduced through the importer,
from the .txt files and from the .dwg word graphs; edition-sensitive words judge as they should.
Each list is compiled once per module into a temporary store.
"""

from __future__ import annotations

import hashlib
import re

import pytest
from click.testing import CliRunner

from adjudicator.cli import cli
from adjudicator.errors import ImportRefused
from adjudicator.judging.verdict import Verdict, judge
from adjudicator.words import catalogue
from adjudicator.words.importers import read_source
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.paths import SHARED_LEXICONS, present
from support.words import CATALOGUE_LISTS

README = SHARED_LEXICONS / "README.md"
pytestmark = [
    pytest.mark.slow,  # the big real lists, read and compiled
    pytest.mark.skipif(
        not README.is_file(), reason=f"the real word lists are not at {SHARED_LEXICONS}"
    ),
]


def _readme_table() -> dict[str, tuple[int, str]]:
    """{'NWL2023': (196601, '7ced...'), ...} from the README's table rows."""
    if not README.is_file():
        return {}
    rows = {}
    for line in README.read_text().splitlines():
        match = re.match(r"\|\s*(\w+)\.txt\s*\|.*\|\s*([\d,]+)\s*\|\s*([0-9a-f]{64})\s*\|$", line)
        if match:
            rows[match[1]] = (int(match[2].replace(",", "")), match[3])
    return rows


TABLE = _readme_table()
DWGS = ["NWL2023", "CSW21", "TWL06"]


def _path(relative: str):
    return present(SHARED_LEXICONS / relative)


@pytest.fixture(scope="module")
def real_store(tmp_path_factory) -> LexiconStore:
    return LexiconStore(tmp_path_factory.mktemp("real-home") / "lexicons")


@pytest.fixture(scope="module")
def compiled(real_store):
    """compiled("CSW19") -> the lexicon imported from CSW19.txt, compiled once per module."""
    summaries = {}

    def get(name: str):
        if name not in summaries:
            summaries[name] = import_lexicon(real_store, _path(f"{name}.txt"), name)
        return summaries[name]

    return get


@pytest.fixture(scope="module")
def word_sets():
    """word_sets("CSW19") -> the words of CSW19.txt as a Python set, read once."""
    cache = {}

    def get(name: str) -> frozenset[str]:
        if name not in cache:
            cache[name] = frozenset(_path(f"{name}.txt").read_text().split())
        return cache[name]

    return get


def test_the_readme_table_was_read():
    """Every list the catalogue was built from is in the table (more may come later)."""
    assert set(TABLE) >= set(CATALOGUE_LISTS)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_text_list_reproduces_count_and_fingerprint(compiled, real_store, name):
    words, fingerprint = TABLE[name]
    summary = compiled(name)
    manifest = summary.manifest
    assert (manifest.words, manifest.fingerprint) == (words, fingerprint)
    assert manifest.verified, f"{name} should match its catalogue entry"
    assert summary.skipped == [] and summary.duplicates == 0
    edition = catalogue.by_name(name)
    assert (edition.words, edition.fingerprint) == (words, fingerprint)
    # The .txt files are in canonical form, so their own SHA-256 is the fingerprint too.
    assert hashlib.sha256(_path(f"{name}.txt").read_bytes()).hexdigest() == fingerprint
    assert len(real_store.open(name)) == words
    if name != "ENABLE1":
        assert (manifest.words_over_15, manifest.longest_word) == (0, 15)


def test_enable1_keeps_its_long_words_and_is_not_a_tournament_list(compiled):
    manifest = compiled("ENABLE1").manifest
    assert manifest.words_over_15 > 0 and manifest.longest_word > 15
    assert manifest.tournament_list is False


@pytest.mark.parametrize("name", DWGS)
def test_dwg_reproduces_count_and_fingerprint(name):
    result = read_source(_path(f"dwg/{name}.dwg"))
    assert result.format == "dwg"
    words = WordSet.of(result.words)
    assert len(result.words) == len(words), "a word graph yields each word once"
    assert (len(words), words.fingerprint) == TABLE[name]


def test_zyzzyva_owl_text():
    path = _path("zyzzyva/OWL.zyzzyva.txt")
    result = read_source(path)
    assert result.format == "zyzzyva" and result.bad_lines == []
    words = WordSet.of(result.words)
    assert len(words) == 167_964
    assert words.fingerprint == "7f84660efc8180f4063fc5bac407b5cca630980066e80dee32fddee367bc911a"
    bare = sum(1 for line in path.read_text().splitlines() if " " not in line.strip())
    assert bare == 66_995
    assert catalogue.by_fingerprint(words.fingerprint).name == "OWL"


class TestEditions:
    def _judge(self, real_store, compiled, name, *words):
        compiled(name)
        return judge(real_store.open(name).trie, words)

    def test_ok_and_ew_arrived_in_nwl2018(self, real_store, compiled):
        for word in ("OK", "EW"):
            assert self._judge(real_store, compiled, "NWL2018", word) is Verdict.ACCEPTABLE
            assert self._judge(real_store, compiled, "TWL06", word) is Verdict.UNACCEPTABLE

    def test_ze_is_collins_only(self, real_store, compiled):
        assert self._judge(real_store, compiled, "CSW19", "ZE") is Verdict.ACCEPTABLE
        assert self._judge(real_store, compiled, "NWL2023", "ZE") is Verdict.UNACCEPTABLE

    def test_a_word_csw21_deleted(self, real_store, compiled, word_sets):
        deleted = sorted(word_sets("CSW19") - word_sets("CSW21"))
        assert len(deleted) == 419  # DOMAIN.md: CSW21 removed 419 words of CSW19
        word = next(w for w in deleted if len(w) <= 15)
        assert self._judge(real_store, compiled, "CSW19", "QI", word) is Verdict.ACCEPTABLE
        assert self._judge(real_store, compiled, "CSW21", "QI", word) is Verdict.UNACCEPTABLE

    def test_published_edition_changes(self, word_sets):
        assert len(word_sets("NWL2018") - word_sets("NWL2020")) == 259
        csw21, csw24 = word_sets("CSW21"), word_sets("CSW24")
        assert (len(csw24 - csw21), len(csw21 - csw24)) == (1_816, 6)


def test_wrong_edition_under_a_catalogue_name_is_refused(real_store, compiled, word_sets, tmp_path):
    compiled("NWL2023")  # a compiled copy is at hand, so the difference names the words
    extra = sorted(word_sets("CSW24") - word_sets("NWL2023"))[:3]
    path = tmp_path / "nwl-plus.txt"
    path.write_text("\n".join(sorted(word_sets("NWL2023") | set(extra))) + "\n")
    before = real_store.manifest("NWL2023")
    with pytest.raises(ImportRefused) as caught:
        import_lexicon(real_store, path, "NWL2023")
    message = str(caught.value)
    assert "NWL2023 has 196,601 words; this file has 196,604, 3 more" in message
    assert f"3 not in NWL2023: {', '.join(extra)}" in message
    assert real_store.manifest("NWL2023") == before


def test_cli_imports_dwg_and_judges(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    runner = CliRunner()
    imported = runner.invoke(
        cli, ["lexicon", "import", str(_path("dwg/NWL2023.dwg")), "--name", "NWL2023"]
    )
    assert imported.exit_code == 0, imported.stderr
    assert "(dwg)" in imported.stdout and "verified: matches NWL2023" in imported.stdout
    assert "196,601" in imported.stdout
    good = runner.invoke(cli, ["judge", "--lexicon", "NWL2023", "ok", "ew", "qi"])
    assert good.exit_code == 0 and good.stdout.startswith("ACCEPTABLE")
    assert "NWL2023 (196,601 words, fingerprint 7ced91210162)" in good.stdout
    bad = runner.invoke(cli, ["judge", "--lexicon", "NWL2023", "ze", "qi"])
    assert bad.exit_code == 1 and bad.stdout.startswith("UNACCEPTABLE")
