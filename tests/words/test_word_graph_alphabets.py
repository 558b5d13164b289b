"""Federations' word graphs (an alphabet's [word_graph] table) and the built-in French alphabet.

Graphs are built by hand from small word sets in the format ../shared/lexicons/README.md gives
(conftest.encode_dwg); no federation's list is used or committed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.errors import ImportRefused
from adjudicator.words.alphabet_files import AlphabetError, builtin, load_alphabet_file
from adjudicator.words.importers import read_source
from adjudicator.words.wordlist import fingerprint

from support.words import encode_dwg

# Zyzzyva's Spanish graphs: CH, LL, RR and Ñ written as 1, 2, 3 and 4.
FISE_GRAPH_WORDS = ["1ICO", "PE3O", "2AMA", "A4O", "CA1O", "C1E", "ZORRO"]
FISE_CANONICAL = ["[CH]ICO", "PE[RR]O", "[LL]AMA", "AÑO", "CA[CH]O", "C[CH]E", "ZORRO"]


def _graph(tmp_path: Path, name: str, words: list[str]) -> Path:
    path = tmp_path / name
    path.write_bytes(encode_dwg(words))
    return path


def _alphabet_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "club.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- reading a graph in an alphabet ------------------------------------------------------------


def test_a_fise_graph_reads_each_character_as_its_tile(tmp_path):
    result = read_source(
        _graph(tmp_path, "fise.dwg", FISE_GRAPH_WORDS), "auto", builtin("spanish-fise")
    )
    assert result.format == "dwg" and not result.bad_lines
    # C then H in the graph are two tiles; CH is written 1. RR written as R R is two R tiles.
    assert sorted(result.words) == sorted(FISE_CANONICAL)


def test_the_fise_variant_is_the_spanish_alphabet_plus_its_graph_table():
    spanish, fise = builtin("spanish"), builtin("spanish-fise")
    assert fise.tiles == spanish.tiles and fise.fold == spanish.fold
    assert fise.language == spanish.language == "es"
    assert dict(fise.word_graph) == {"1": "CH", "2": "LL", "3": "RR", "4": "Ñ"}
    assert not spanish.word_graph


def test_cli_imports_a_fise_graph_and_judges_real_spanish(run, tmp_path, store):
    path = _graph(tmp_path, "FISE.dwg", FISE_GRAPH_WORDS)
    result = run("lexicon", "import", str(path), "--name", "FISE-T", "--alphabet", "spanish-fise")
    assert result.exit_code == 0, result.stderr
    assert store.manifest("FISE-T").fingerprint == fingerprint(sorted(FISE_CANONICAL))
    (entry,) = json.loads(run("lexicon", "list", "--json").stdout)
    assert entry["alphabet"] == "spanish-fise" and entry["words"] == 7
    judged = run("judge", "-l", "FISE-T", "chico", "perro", "Llama", "año")
    assert judged.exit_code == 0, judged.stdout + judged.stderr
    assert "[CH]ICO PE[RR]O [LL]AMA AÑO" in judged.stdout
    assert run("judge", "-l", "FISE-T", "ANO").exit_code == 1  # Ñ is never N


def test_a_graph_character_the_alphabet_does_not_map_refuses_the_whole_import(run, tmp_path, store):
    path = _graph(tmp_path, "FISE.dwg", ["AB", "CASA", "PE3O", "ZZZ"])
    result = run("lexicon", "import", str(path), "--name", "ES-T", "--alphabet", "spanish")
    assert result.exit_code == 2 and result.stdout == ""
    assert "uses the character '3' (U+0033), as in 'PE3O'" in result.stderr
    assert "--alphabet spanish-fise" in result.stderr and "Nothing was imported" in result.stderr
    assert run("lexicon", "list", "--json").stdout.strip() == "[]"  # never a half-built lexicon
    assert not (store.root / "ES-T").exists()


def test_an_english_import_of_a_graph_with_digits_is_refused(tmp_path):
    with pytest.raises(ImportRefused, match=r"character '4' \(U\+0034\), as in 'A4O'.*english"):
        read_source(_graph(tmp_path, "x.dwg", ["AA", "A4O"]))


def test_a_federations_own_alphabet_file_reads_its_graph(run, tmp_path):
    # A Catalan club's graph writing L·L, NY and QU as 1, 2 and Q.
    toml = (
        'name = "catalan-club"\n'
        'tiles = ["A", "B", "C", "Ç", "D", "E", "F", "G", "H", "I", "J", "L", "L·L", "M", "N",\n'
        '         "NY", "O", "P", "QU", "R", "S", "T", "U", "V", "X", "Z"]\n'
        "[word_graph]\n"
        '"1" = "L·L"\n'
        '"2" = "NY"\n'
        'Q = "qu"\n'
        '"\\u00c7" = "Ç"\n'
    )
    alphabet = _alphabet_file(tmp_path, toml)
    graph = _graph(tmp_path, "ca.dwg", ["CA2", "CO1A", "QE", "ÇA"])
    result = run("lexicon", "import", str(graph), "-n", "CA-T", "--alphabet", str(alphabet))
    assert result.exit_code == 0, result.stderr
    judged = run("judge", "-l", "CA-T", "CANY", "col·la", "que", "ça")
    assert judged.exit_code == 0, judged.stdout + judged.stderr
    assert "CA[NY] CO[L·L]A [QU]E ÇA" in judged.stdout


# --- bad [word_graph] tables ---------------------------------------------------------------------


def test_a_graph_table_mapping_to_a_tile_not_listed_is_refused_naming_the_line(tmp_path):
    path = _alphabet_file(
        tmp_path,
        'name = "es-club"\ntiles = ["A", "C", "CH", "O"]\n\n[word_graph]\n"1" = "CH"\n"2" = "LL"\n',
    )
    with pytest.raises(AlphabetError) as refused:
        load_alphabet_file(path)
    message = str(refused.value)
    assert message.startswith("Alphabet club.toml, line 6: word_graph maps '2' to 'LL'")
    assert "not one of the alphabet's tiles (A C CH O)" in message


def test_a_graph_table_mapping_a_character_twice_is_refused_naming_both_lines(run, tmp_path):
    path = _alphabet_file(
        tmp_path,
        'name = "es-club"\ntiles = ["A", "C", "CH", "LL", "L"]\n[word_graph]\n'
        '"1" = "CH"\n# LL\n1 = "LL"\n',
    )
    graph = _graph(tmp_path, "g.dwg", ["1A"])
    result = run("lexicon", "import", str(graph), "-n", "X", "--alphabet", str(path))
    assert result.exit_code == 2 and result.stdout == ""
    assert (
        "Alphabet file club.toml, line 6: word_graph maps '1' a second time (first on line 4)"
        in (result.stderr)
    )


@pytest.mark.parametrize(
    ("entry", "problem"),
    [('"12" = "CH"', "key '12' must be one character"), ('" " = "CH"', "key ' ' must be one")],
)
def test_a_graph_key_a_graph_cannot_hold_is_refused(tmp_path, entry, problem):
    path = _alphabet_file(
        tmp_path, f'name = "es-club"\ntiles = ["A", "CH"]\n[word_graph]\n{entry}\n'
    )
    with pytest.raises(AlphabetError, match=f"line 4: word_graph {problem}"):
        load_alphabet_file(path)


# --- French ------------------------------------------------------------------------------------


def test_french_folds_the_accents_and_ligatures_players_type():
    french = builtin("french")
    assert french.tiles == tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ") and french.language == "fr"
    typed = {
        "élève": "ELEVE", "ÊTRE": "ETRE", "noël": "NOEL", "à": "A", "âme": "AME",
        "garçon": "GARCON", "île": "ILE", "maïs": "MAIS", "côte": "COTE", "où": "OU",
        "flûte": "FLUTE", "capharnaüm": "CAPHARNAUM", "L'HAŸ": None, "œuvre": "OEUVRE",
        "cæcum": "CAECUM", "NŒUD": "NOEUD",
    }  # fmt: skip
    for text, tiles in typed.items():
        if tiles is None:
            continue
        assert french.canonical(french.spell(text)) == tiles, text
    assert french.canonical(french.spell("ŸS")) == "YS"


def test_a_french_list_from_a_plain_file_or_a_graph_is_judged_with_accents(run, tmp_path, store):
    words = ["élève", "garçon", "œuvre", "OU", "noël"]
    plain = tmp_path / "fr.txt"
    plain.write_text("\n".join(words) + "\n", encoding="utf-8")
    assert run("lexicon", "import", str(plain), "-n", "FR-T", "--alphabet", "french").exit_code == 0
    graph = _graph(tmp_path, "fr.dwg", ["ELEVE", "GARCON", "OEUVRE", "OU", "NOEL"])
    assert run("lexicon", "import", str(graph), "-n", "FR-G", "--alphabet", "french").exit_code == 0
    # the same words, and the same fingerprint as an A-Z list of them
    expected = fingerprint(["ELEVE", "GARCON", "NOEL", "OEUVRE", "OU"])
    assert store.manifest("FR-T").fingerprint == store.manifest("FR-G").fingerprint == expected
    for name in ("FR-T", "FR-G"):
        judged = run("judge", "-l", name, "Élève", "ŒUVRE", "où", "Garçon")
        assert judged.exit_code == 0, judged.stdout + judged.stderr
        assert "ELEVE OEUVRE OU GARCON" in judged.stdout
        assert run("judge", "-l", name, "élevé", "ÉTÉ").exit_code == 1
    refused = run("judge", "-l", "FR-T", "ñu")
    assert refused.exit_code == 2 and "'ñ'" in refused.stderr
