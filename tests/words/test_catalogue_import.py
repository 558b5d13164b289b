"""`lexicon import` against the catalogue: verified editions, refusals, --force, messy files."""

from __future__ import annotations

import gzip

import pytest

from adjudicator.errors import ImportRefused
from adjudicator.words import catalogue
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.wordlist import WordSet

EDITION = ["AA", "AB", "QI", "ZA", "CAT", "DOG"]
OTHER_EDITION = ["AA", "QI", "ZA"]


@pytest.fixture(autouse=True)
def test_catalogue(monkeypatch):
    """The real catalogue plus two small editions whose fingerprints we know."""
    small = (
        catalogue.Edition(
            "TESTLEX",
            "Test lexicon",
            "nobody",
            len(EDITION),
            WordSet.of(EDITION).fingerprint,
            "2024-01-01",
        ),
        catalogue.Edition(
            "OLDLEX",
            "Old test lexicon",
            "nobody",
            len(OTHER_EDITION),
            WordSet.of(OTHER_EDITION).fingerprint,
            tournament=False,
        ),
    )
    editions = catalogue.editions() + small
    monkeypatch.setattr(catalogue, "editions", lambda: editions)


def _file(tmp_path, words, name="list.txt"):
    path = tmp_path / name
    path.write_text("".join(w + "\n" for w in words))
    return path


def test_catalogue_match_is_verified(run, tmp_path, store):
    result = run("lexicon", "import", str(_file(tmp_path, reversed(EDITION))), "--name", "TESTLEX")
    assert result.exit_code == 0, result.stderr
    assert "Imported TESTLEX from list.txt (text)" in result.stdout
    assert "words:       6 (longest 3 letters; 0 over 15 letters" in result.stdout
    assert f"fingerprint: {WordSet.of(EDITION).fingerprint}" in result.stdout
    assert "catalogue:   verified: matches TESTLEX in the catalogue" in result.stdout
    manifest = store.manifest("TESTLEX")
    assert manifest.verified and manifest.catalogue_name == "TESTLEX"
    assert manifest.description == "Test lexicon"
    assert manifest.source_file == "list.txt" and manifest.source_format == "text"


def test_known_words_under_another_name_are_recognised_but_not_verified(run, tmp_path, store):
    result = run("lexicon", "import", str(_file(tmp_path, EDITION)), "--name", "MYCOPY")
    assert result.exit_code == 0
    assert "the same words as catalogue edition TESTLEX" in result.stdout
    manifest = store.manifest("MYCOPY")
    assert not manifest.verified and manifest.catalogue_name == "TESTLEX"


def test_unknown_list_says_so(run, tmp_path):
    result = run("lexicon", "import", str(_file(tmp_path, ["XX", "YY"])), "--name", "HOUSE")
    assert result.exit_code == 0
    assert "not a catalogue edition" in result.stdout


def test_not_a_tournament_list_is_recorded(run, tmp_path, store):
    assert (
        run("lexicon", "import", str(_file(tmp_path, OTHER_EDITION)), "-n", "OLDLEX").exit_code == 0
    )
    assert store.manifest("OLDLEX").tournament_list is False
    listing = run("lexicon", "list")
    assert "OLDLEX" in listing.stdout and "not a tournament list" in listing.stdout


class TestWrongEdition:
    def test_refused_with_both_counts(self, run, tmp_path, store):
        path = _file(tmp_path, EDITION + ["PETRI", "POPUP", "SMURF"])
        result = run("lexicon", "import", str(path), "--name", "TESTLEX")
        assert result.exit_code == 2 and result.stdout == ""
        assert "TESTLEX has 6 words; this file has 9, 3 more." in result.stderr
        assert WordSet.of(EDITION).fingerprint[:12] in result.stderr
        assert "use --force" in result.stderr
        assert "Traceback" not in result.stderr
        assert not store.exists("TESTLEX")

    def test_the_difference_is_listed_when_the_edition_is_at_hand(self, tmp_path, store):
        store.save("REFERENCE", WordSet.of(EDITION))  # a compiled copy of the real TESTLEX
        path = _file(tmp_path, [w for w in EDITION if w != "DOG"] + ["PETRI", "POPUP", "SMURF"])
        with pytest.raises(ImportRefused) as caught:
            import_lexicon(store, path, "TESTLEX")
        message = str(caught.value)
        assert "TESTLEX has 6 words; this file has 8, 2 more; " in message
        assert "3 not in TESTLEX: PETRI, POPUP, SMURF" in message
        assert "1 of TESTLEX missing: DOG" in message

    def test_same_count_different_words(self, tmp_path, store):
        path = _file(tmp_path, EDITION[:-1] + ["EMU"])
        with pytest.raises(ImportRefused, match="this file has 6, as many"):
            import_lexicon(store, path, "TESTLEX")

    def test_the_file_is_named_when_it_is_another_edition(self, tmp_path, store):
        with pytest.raises(ImportRefused) as caught:
            import_lexicon(store, _file(tmp_path, OTHER_EDITION), "TESTLEX")
        assert "3 fewer" in str(caught.value)
        assert "This file is OLDLEX (Old test lexicon)." in str(caught.value)

    def test_catalogue_names_are_matched_without_case(self, tmp_path, store):
        with pytest.raises(ImportRefused, match="TESTLEX has 6 words"):
            import_lexicon(store, _file(tmp_path, ["XX"]), "testlex")

    def test_force_imports_but_does_not_verify(self, run, tmp_path, store):
        path = _file(tmp_path, EDITION + ["PETRI"])
        result = run("lexicon", "import", str(path), "--name", "TESTLEX", "--force")
        assert result.exit_code == 0, result.stderr
        assert "NOT the catalogue's TESTLEX: imported with --force" in result.stdout
        assert store.manifest("TESTLEX").verified is False
        (line,) = [x for x in run("lexicon", "list").stdout.splitlines() if x.startswith("TESTLEX")]
        assert line.endswith("unlisted")


class TestReplacement:
    def test_different_words_need_force(self, run, tmp_path, store):
        assert (
            run("lexicon", "import", str(_file(tmp_path, ["AA", "QI"])), "-n", "HOUSE").exit_code
            == 0
        )
        result = run(
            "lexicon", "import", str(_file(tmp_path, ["AA", "QI", "ZA"], "v2.txt")), "-n", "HOUSE"
        )
        assert result.exit_code == 2 and result.stdout == ""
        assert "Lexicon HOUSE already exists with 2 words" in result.stderr
        assert "this file has 3" in result.stderr and "--force" in result.stderr
        assert "ZA" not in store.open("HOUSE")
        forced = run("lexicon", "import", str(tmp_path / "v2.txt"), "-n", "HOUSE", "--force")
        assert forced.exit_code == 0
        assert "ZA" in store.open("HOUSE")

    def test_same_words_again_need_no_force(self, run, tmp_path):
        path = _file(tmp_path, ["AA", "QI"])
        assert run("lexicon", "import", str(path), "-n", "HOUSE").exit_code == 0
        path.write_text("qi\naa\naa\n")
        assert run("lexicon", "import", str(path), "-n", "HOUSE").exit_code == 0


class TestMessyFiles:
    def test_bad_lines_fail_the_import_with_line_numbers(self, run, tmp_path, store):
        path = tmp_path / "bad.txt"
        path.write_text("AA\nQI\nZ4\n\nCO-OP\nZA\n")
        result = run("lexicon", "import", str(path), "-n", "HOUSE")
        assert result.exit_code == 2 and result.stdout == ""
        assert "2 lines are not words" in result.stderr
        assert "line 3: 'Z4'" in result.stderr
        assert "line 5: 'CO-OP'" in result.stderr
        assert "--skip-invalid" in result.stderr
        assert not store.exists("HOUSE")

    def test_many_bad_lines_are_summarised(self, tmp_path, store):
        path = tmp_path / "bad.txt"
        path.write_text("".join(f"W{n}\n" for n in range(25)))
        with pytest.raises(ImportRefused) as caught:
            import_lexicon(store, path, "HOUSE")
        assert "25 lines are not words" in str(caught.value)
        assert "line 10: 'W9'" in str(caught.value) and "W10'" not in str(caught.value)
        assert "... and 15 more" in str(caught.value)

    def test_skip_invalid_lists_what_it_skipped(self, run, tmp_path, store):
        path = tmp_path / "bad.txt"
        path.write_text("AA\nQI\nZ4\n\nCO-OP\nZA\n")
        result = run("lexicon", "import", str(path), "-n", "HOUSE", "--skip-invalid")
        assert result.exit_code == 0, result.stderr
        assert "skipped:     2 lines that are not words:" in result.stdout
        assert "line 3: 'Z4'" in result.stdout and "line 5: 'CO-OP'" in result.stdout
        assert sorted(store.open("HOUSE")) == ["AA", "QI", "ZA"]

    def test_gzip_crlf_bom_comments_duplicates(self, run, tmp_path, store):
        text = (
            "\ufeff# TESTLEX, as exported\r\nqi\r\nZA\r\n\r\nAA\r\nAB\r\nCat\r\nDOG\r\nQI\r\nqi\r\n"
        )
        path = tmp_path / "testlex.txt.gz"
        path.write_bytes(gzip.compress(text.encode()))
        result = run("lexicon", "import", str(path), "-n", "TESTLEX")
        assert result.exit_code == 0, result.stderr
        assert "duplicates:  2 repeated lines counted once" in result.stdout
        assert "verified: matches TESTLEX" in result.stdout
        assert store.manifest("TESTLEX").words == 6

    def test_words_over_15_letters_are_kept_and_counted(self, run, tmp_path, store):
        long_words = ["ANTIDISESTABLISHMENTARIANISM", "ABCDEFGHIJKLMNOP"]  # 28 and 16 letters
        path = _file(tmp_path, ["AA", "QI", *long_words])
        result = run("lexicon", "import", str(path), "-n", "ENABLEISH")
        assert result.exit_code == 0
        assert (
            "words:       4 (longest 28 letters; 2 over 15 letters, kept but never playable)"
            in (result.stdout)
        )
        assert all(word in store.open("ENABLEISH") for word in long_words)
        manifest = store.manifest("ENABLEISH")
        assert (manifest.words_over_15, manifest.longest_word) == (2, 28)

    def test_empty_file_is_refused(self, run, tmp_path):
        path = tmp_path / "empty.txt"
        path.write_text("# nothing here\n\n")
        result = run("lexicon", "import", str(path), "-n", "HOUSE")
        assert result.exit_code == 2
        assert "holds no words: nothing to import" in result.stderr

    def test_only_bad_lines_skipped_leaves_nothing(self, run, tmp_path):
        path = tmp_path / "bad.txt"
        path.write_text("12\n34\n")
        result = run("lexicon", "import", str(path), "-n", "HOUSE", "--skip-invalid")
        assert result.exit_code == 2 and "holds no words" in result.stderr

    def test_zyzzyva_and_dwg_formats(self, run, tmp_path, store):
        from support.words import encode_dwg

        (tmp_path / "z.txt").write_text(
            "AA lava\nAB muscle\nQI force\nZA pizza\nCAT\nDOG a hound\n"
        )
        (tmp_path / "t.dwg").write_bytes(encode_dwg(EDITION))
        z = run("lexicon", "import", str(tmp_path / "z.txt"), "-n", "TESTLEX")
        assert z.exit_code == 0 and "(zyzzyva)" in z.stdout and "verified" in z.stdout
        d = run("lexicon", "import", str(tmp_path / "t.dwg"), "-n", "TESTLEX")
        assert d.exit_code == 0 and "(dwg)" in d.stdout and "verified" in d.stdout

    def test_forced_text_format_on_zyzzyva_reports_bad_lines(self, run, tmp_path):
        (tmp_path / "z.txt").write_text("AA lava\nQI force\n")
        result = run("lexicon", "import", str(tmp_path / "z.txt"), "-n", "X", "--format", "text")
        assert result.exit_code == 2 and "line 1: 'AA lava'" in result.stderr
