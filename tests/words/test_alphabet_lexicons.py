"""Lexicons in other alphabets end to end: import (--alphabet, recipes, a federation's TOML file),
the manifest and `lexicon list --json`, judging over the CLI and the API, and the kiosk status.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.errors import ChallengeInputError
from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.judging.corrections import second_opinion
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal
from adjudicator.words.alphabet_files import builtin
from adjudicator.words.recipe import import_recipe
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet, fingerprint

from support.hall import make_app

POLISH_WORDS = ["źdźbło", "żółw", "kot", "pies", "źle", "łódź", "gęś", "Kraków"]
SPANISH_WORDS = ["chico", "perro", "llama", "camión", "año", "cacho", "[c][h]at"]
SWEDISH_TOML = """name = "swedish-club"
description = "Swedish club set"
tiles = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "R",
         "S", "T", "U", "V", "X", "Y", "Z", "Å", "Ä", "Ö"]
fold = { "É" = "E" }
"""


def _list(tmp_path: Path, name: str, words: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(words) + "\n", encoding="utf-8")
    return path


# --- the CLI -------------------------------------------------------------------------------------


def test_import_with_alphabet_and_list_json(run, tmp_path, store):
    path = _list(tmp_path, "pl.txt", POLISH_WORDS)
    result = run("lexicon", "import", str(path), "--name", "PL-TEST", "--alphabet", "polish")
    assert result.exit_code == 0, result.stderr
    assert "alphabet:    polish (A Ą B C Ć" in result.stdout
    (entry,) = json.loads(run("lexicon", "list", "--json").stdout)
    assert entry["alphabet"] == "polish" and entry["words"] == 8
    canonical = sorted(["ŹDŹBŁO", "ŻÓŁW", "KOT", "PIES", "ŹLE", "ŁÓDŹ", "GĘŚ", "KRAKÓW"])
    assert entry["fingerprint"] == fingerprint(canonical)  # canonical words, code point order
    manifest = store.manifest("PL-TEST")
    assert manifest.alphabet["name"] == "polish" and manifest.alphabet["tiles"][1] == "Ą"
    assert "alphabet polish" in run("lexicon", "list").stdout
    shown = run("lexicon", "show", "PL-TEST").stdout
    assert "alphabet:            polish (32 tiles: A Ą B" in shown


def test_an_english_import_of_a_polish_list_says_how_to_fix_it(run, tmp_path):
    path = _list(tmp_path, "pl.txt", POLISH_WORDS)
    result = run("lexicon", "import", str(path), "--name", "PL-TEST")
    assert result.exit_code == 2 and result.stdout == ""
    assert "letters A-Z only" in result.stderr and "--alphabet NAME" in result.stderr
    assert "line 1: 'źdźbło'" in result.stderr


def test_judge_reads_input_in_the_lexicons_alphabet(run, tmp_path):
    path = _list(tmp_path, "es.txt", SPANISH_WORDS)
    run("lexicon", "import", str(path), "--name", "ES-TEST", "--alphabet", "spanish")
    accepted = run("judge", "-l", "ES-TEST", "CHICO", "Camión", "[LL]ama", "PERRO")
    assert accepted.exit_code == 0, accepted.stderr
    assert "Words judged (4): [CH]ICO CAMION [LL]AMA PE[RR]O" in accepted.stdout
    # CHAT was listed with two single tiles: plain CHAT is [CH]AT, a different word
    assert run("judge", "-l", "ES-TEST", "[C][H]AT").exit_code == 0
    assert run("judge", "-l", "ES-TEST", "CHAT").exit_code == 1
    refused = run("judge", "-l", "ES-TEST", "chico", "whisky")
    assert refused.exit_code == 2 and refused.stdout == ""
    assert "Word 2 ('whisky') has the character 'w' (latin small letter w, U+0077)" in (
        refused.stderr
    )
    assert "the spanish alphabet's tiles are A B C CH D" in refused.stderr


def test_unknown_alphabet_on_import_exits_2(run, tmp_path):
    path = _list(tmp_path, "pl.txt", POLISH_WORDS)
    result = run("lexicon", "import", str(path), "--name", "X", "--alphabet", "klingon")
    assert result.exit_code == 2 and "No alphabet 'klingon'" in result.stderr


def test_reimporting_in_another_alphabet_needs_force(run, tmp_path):
    path = _list(tmp_path, "plain.txt", ["kot", "pies"])
    assert run("lexicon", "import", str(path), "-n", "L", "--alphabet", "polish").exit_code == 0
    result = run("lexicon", "import", str(path), "-n", "L")  # the same words, in english
    assert result.exit_code == 2 and "reads challenges differently" in result.stderr
    assert run("lexicon", "import", str(path), "-n", "L", "--force").exit_code == 0


def test_lexicon_alphabets_lists_the_built_in_ones(run):
    text = run("lexicon", "alphabets").stdout
    assert "catalan (26 tiles: A B C Ç D E F G H I J L L·L M N NY O P QU" in text
    data = json.loads(run("lexicon", "alphabets", "--json").stdout)
    assert [a["name"] for a in data] == [
        "english", "catalan", "french", "polish", "spanish", "spanish-fise"
    ]  # fmt: skip


def test_the_english_default_is_unchanged(run, tmp_path, store):
    path = _list(tmp_path, "en.txt", ["qi", "za", "cat"])
    run("lexicon", "import", str(path), "--name", "EN")
    assert store.manifest("EN").fingerprint == fingerprint(["CAT", "QI", "ZA"])
    assert store.manifest("EN").get_alphabet().is_english


def test_refer_rule_counts_tiles(tmp_path, store):
    path = _list(tmp_path, "es.txt", SPANISH_WORDS)
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        'name = "ES-REF"\nalphabet = "spanish"\nsources = ["es.txt"]\nrefer_longer_than = 4\n'
    )
    import_recipe(store, recipe)
    lexicon = store.open("ES-REF")
    from adjudicator.judging.rules import get_rule
    from adjudicator.judging.ruling import rule_on

    # CHICHO: 6 letters, 4 tiles ([CH]I[CH]O): not longer than 4 tiles, so UNACCEPTABLE
    assert rule_on(lexicon, get_rule("double"), ["[CH]I[CH]O"]).verdict.value == "UNACCEPTABLE"
    # CHICHOS: 5 tiles, longer than 4: REFER
    assert rule_on(lexicon, get_rule("double"), ["[CH]I[CH]OS"]).verdict.value == "REFER"
    assert path.exists()


# --- recipes -------------------------------------------------------------------------------------


def test_recipe_drops_capitalised_entries_and_skips_unspellable_lines(tmp_path, store, run):
    _list(tmp_path, "pl.txt", [*POLISH_WORDS, "PKP", "quiz", "voltaż"])
    recipe = tmp_path / "pl.toml"
    recipe.write_text(
        'name = "PL-R"\nalphabet = "polish"\nsources = ["pl.txt"]\n'
        "drop_capitalised = true\nskip_invalid = true\ntournament_list = false\n"
    )
    summary = import_recipe(store, recipe)
    assert summary.manifest.words == 7  # Kraków and PKP capitalised; quiz, voltaż unspellable
    assert not summary.manifest.tournament_list
    (source,) = summary.manifest.recipe["sources"]
    assert source["capitalised"] == 2 and source["skipped"] == 2
    assert summary.manifest.recipe["alphabet"] == "polish"
    assert "KRAKÓW" not in store.open("PL-R")
    shown = run("lexicon", "show", "PL-R").stdout
    assert "2 capitalised entries left out; 2 lines left out" in shown


def test_recipe_without_skip_invalid_names_the_bad_lines(tmp_path, store):
    _list(tmp_path, "pl.txt", ["kot", "quiz"])
    recipe = tmp_path / "pl.toml"
    recipe.write_text('name = "PL-R"\nalphabet = "polish"\nsources = ["pl.txt"]\n')
    with pytest.raises(Exception) as caught:
        import_recipe(store, recipe)
    assert "words (tiles of the polish alphabet" in str(caught.value)
    assert "line 2: 'quiz'" in str(caught.value)


def test_recipe_adjustment_lists_count_tiles(tmp_path, store):
    _list(tmp_path, "es.txt", SPANISH_WORDS)
    _list(tmp_path, "add.txt", ["chacha", "x"])  # [CH]A[CH]A is 4 tiles; X is 1
    recipe = tmp_path / "es.toml"
    recipe.write_text(
        'name = "ES"\nalphabet = "spanish"\nsources = ["es.txt"]\nadd = ["add.txt"]\n'
    )
    with pytest.raises(Exception) as caught:
        import_recipe(store, recipe)
    assert "words of 2 to 15 tiles of the spanish alphabet" in str(caught.value)
    assert "line 2: 'x'" in str(caught.value) and "chacha" not in str(caught.value)


def test_recipe_refuses_a_compiled_source_of_another_alphabet(tmp_path, store):
    store.save("PL", WordSet.of(["KOT"], builtin("polish")))
    recipe = tmp_path / "r.toml"
    recipe.write_text('name = "ES"\nalphabet = "spanish"\nsources = ["PL"]\n')
    with pytest.raises(Exception, match="spelled in the polish alphabet, this recipe in spanish"):
        import_recipe(store, recipe)


def test_recipe_alphabet_from_the_command_line_must_agree(run, tmp_path):
    _list(tmp_path, "pl.txt", ["kot"])
    recipe = tmp_path / "pl.toml"
    recipe.write_text('name = "PL-R"\nalphabet = "polish"\nsources = ["pl.txt"]\n')
    result = run("lexicon", "import", "--recipe", str(recipe), "--alphabet", "spanish")
    assert result.exit_code == 2 and "leave out --alphabet" in result.stderr
    plain = tmp_path / "plain.toml"
    plain.write_text('name = "PL-P"\nsources = ["pl.txt"]\n')  # no alphabet key: the option sets it
    assert run("lexicon", "import", "--recipe", str(plain), "--alphabet", "polish").exit_code == 0


# --- a federation's alphabet, end to end through the kiosk API ----------------------------------


@pytest.fixture
def swedish_hall(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    alphabet_file = tmp_path / "swedish.toml"
    alphabet_file.write_text(SWEDISH_TOML, encoding="utf-8")
    _list(tmp_path, "sv.txt", ["åsna", "äpple", "öga", "katt", "idé"])
    recipe = tmp_path / "sv.toml"
    recipe.write_text(
        'name = "SV-CLUB"\nalphabet = "swedish.toml"\nsources = ["sv.txt"]\n', encoding="utf-8"
    )
    store = LexiconStore(tmp_path / "lexicons")
    import_recipe(store, recipe)
    alphabet_file.unlink()  # the manifest keeps the definition: the file is not needed again
    db = SqliteDatabase(str(tmp_path / "journal.sqlite3"))
    hall = Hall(store, db, rate_limit=None)
    hall.upgrade()
    tournaments.create(db, store, "sv-open", "SV-CLUB", "double", "Swedish Open")
    enrolment = kiosks.add(db, "bord-1", "sv-open")
    client = make_app(hall).test_client()
    return client, {"Authorization": f"Bearer {enrolment.token}"}, hall


def test_a_federation_alphabet_judges_over_the_api(swedish_hall):
    client, headers, hall = swedish_hall
    response = client.post(
        "/api/v1/adjudications", json={"words": ["åsna", "IDÉ"]}, headers=headers
    )
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["verdict"] == "ACCEPTABLE" and body["words"] == ["ÅSNA", "IDE"]
    assert journal.get(hall.db, body["id"]).words == ("ÅSNA", "IDE")
    missing = client.post("/api/v1/adjudications", json={"words": ["ÖGA", "ÅÅ"]}, headers=headers)
    assert missing.status_code == 201 and missing.get_json()["verdict"] == "UNACCEPTABLE"


def test_a_federation_alphabet_refuses_input_naming_the_character(swedish_hall):
    client, headers, hall = swedish_hall
    before = len(list(journal.entries(hall.db)))
    response = client.post("/api/v1/adjudications", json={"words": ["KATT", "QI"]}, headers=headers)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert "Word 2 ('QI') has the character 'Q' (latin capital letter q, U+0051)" in error
    assert "the swedish-club alphabet's tiles are A B C" in error and "Å Ä Ö" in error
    assert "verdict" not in response.get_json()
    assert len(list(journal.entries(hall.db))) == before  # no row for bad input


def test_the_kiosk_status_gives_the_alphabet(swedish_hall):
    client, headers, _ = swedish_hall
    status = client.get("/api/v1/kiosk", headers=headers).get_json()
    alphabet = status["lexicon"]["alphabet"]
    assert alphabet["name"] == "swedish-club"
    assert alphabet["tiles"][-3:] == ["Å", "Ä", "Ö"]
    assert alphabet["special_tiles"] == ["Å", "Ä", "Ö"]
    assert alphabet["fold"] == {"É": "E"}


def test_a_second_opinion_reads_the_slip_in_the_originals_alphabet(swedish_hall):
    client, headers, hall = swedish_hall
    body = client.post("/api/v1/adjudications", json={"words": ["ÅSNA"]}, headers=headers)
    original = body.get_json()["id"]
    opinion = second_opinion.give(
        hall.db, hall.store, original, "åsna", actor="judge-1", station="desk"
    )
    assert opinion.entry.words == ("ÅSNA",) and opinion.entry.verdict == "ACCEPTABLE"
    assert not opinion.flagged  # the same words and verdict: nothing for the director
    with pytest.raises(ChallengeInputError, match="'Q' .* the swedish-club alphabet's tiles"):
        # another judge (NSA Guideline 11g: judge-1 may not judge the same challenge twice)
        second_opinion.give(hall.db, hall.store, original, "QI", actor="judge-2", station="desk")
