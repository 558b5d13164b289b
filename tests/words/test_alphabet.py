"""Alphabets: the built-in tile sets, spelling (longest match, brackets, case, folds), and
a federation's TOML file with every way it can be wrong."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.errors import ImportRefused
from adjudicator.words.alphabet import ENGLISH, Alphabet, SpellingError
from adjudicator.words.alphabet_files import (
    AlphabetError,
    builtin,
    builtin_names,
    from_manifest,
    load_alphabet_file,
    resolve_alphabet,
)

POLISH, SPANISH, CATALAN = builtin("polish"), builtin("spanish"), builtin("catalan")


# --- the built-in alphabets are the published tile sets ----------------------------------------


def test_builtin_names():
    assert builtin_names() == ["english", "catalan", "french", "polish", "spanish", "spanish-fise"]
    assert builtin("english") is ENGLISH and builtin("klingon") is None


def test_polish_is_the_32_tiles_of_the_polish_set():
    assert POLISH.tiles == tuple("AĄBCĆDEĘFGHIJKLŁMNŃOÓPRSŚTUWYZŹŻ")
    assert not POLISH.fold and not POLISH.multi_tiles
    assert POLISH.special_tiles == tuple("ĄĆĘŁŃÓŚŹŻ")


def test_spanish_has_the_digraph_tiles_and_no_k_or_w():
    assert SPANISH.tiles == (
        *"ABC",
        "CH",
        *"DEFGHIJL",
        "LL",
        *"MNÑOPQR",
        "RR",
        *"STUVXYZ",
    )
    assert SPANISH.multi_tiles == ("CH", "LL", "RR")
    assert SPANISH.special_tiles == ("CH", "LL", "Ñ", "RR")
    assert dict(SPANISH.fold) == {"Á": "A", "É": "E", "Í": "I", "Ó": "O", "Ú": "U", "Ü": "U"}


def test_catalan_has_ç_l·l_ny_qu_and_no_q_alone():
    assert CATALAN.tiles == (
        *"ABCÇDEFGHIJL",
        "L·L",
        *"MN",
        "NY",
        *"OP",
        "QU",
        *"RSTUVXZ",
    )
    assert CATALAN.special_tiles == ("Ç", "L·L", "NY", "QU")


@pytest.mark.parametrize("alphabet", [ENGLISH, POLISH, SPANISH, CATALAN], ids=lambda a: a.name)
def test_every_tile_is_nfc_upper_case(alphabet):
    for tile in alphabet.tiles:
        assert unicodedata.is_normalized("NFC", tile) and tile == tile.upper()


# --- spelling ----------------------------------------------------------------------------------


def spelled(alphabet: Alphabet, text: str) -> str:
    return alphabet.canonical(alphabet.spell(text))


@pytest.mark.parametrize(
    ("alphabet", "typed", "canonical"),
    [
        (POLISH, "źdźbło", "ŹDŹBŁO"),
        (POLISH, "ŻÓŁĆ", "ŻÓŁĆ"),
        (POLISH, "z\u0301dz\u0301bło", "ŹDŹBŁO"),  # decomposed: Z + combining acute is Ź (NFC)
        (SPANISH, "chico", "[CH]ICO"),  # plain letters: the longest tile
        (SPANISH, "[ch]ico", "[CH]ICO"),
        (SPANISH, "[C][H]ICO", "CHICO"),  # forced single tiles: canonical has no brackets
        (SPANISH, "perro", "PE[RR]O"),
        (SPANISH, "llama", "[LL]AMA"),
        (SPANISH, "lll", "[LL]L"),
        (SPANISH, "año", "AÑO"),  # Ñ is a tile: never N
        (SPANISH, "camión", "CAMION"),  # the spanish file folds accents
        (SPANISH, "pingüino", "PINGUINO"),
        (CATALAN, "cel·la", "CE[L·L]A"),
        (CATALAN, "cel.la", "CE[L·L]A"),  # variants the catalan file names
        (CATALAN, "cel\u2027la", "CE[L·L]A"),
        (CATALAN, "ce\u0140la", "CE[L·L]A"),  # ŀl
        (CATALAN, "cel\u0387la", "CE[L·L]A"),  # Greek ano teleia is U+00B7 under NFC
        (CATALAN, "cella", "CELLA"),  # LL without the dot is two L tiles
        (CATALAN, "qüestió", "[QU]ESTIO"),  # the fold makes the QU tile
        (CATALAN, "canya", "CA[NY]A"),
        (CATALAN, "plaça", "PLAÇA"),  # Ç is a tile: never C
        (ENGLISH, "[Q]i", "QI"),
    ],
)
def test_spelling(alphabet, typed, canonical):
    assert spelled(alphabet, typed) == canonical


@pytest.mark.parametrize(
    ("alphabet", "typed", "named"),
    [
        (ENGLISH, "straße", "'ß' (latin small letter sharp s, U+00DF) at position 5"),  # not SS
        (ENGLISH, "ıt", "'ı' (latin small letter dotless i, U+0131) at position 1"),  # not I
        (ENGLISH, "ſo", "'ſ' (latin small letter long s, U+017F) at position 1"),  # not S
        (ENGLISH, "\ufb01t", "(latin small ligature fi, U+FB01) at position 1"),  # not FI
        (ENGLISH, "\u0430b", "(cyrillic small letter a, U+0430) at position 1"),  # looks like a
        (ENGLISH, "café", "'é' (latin small letter e with acute, U+00E9) at position 4"),
        (POLISH, "quiz", "'q' (latin small letter q, U+0071) at position 1"),
        (POLISH, "café", "'é' (latin small letter e with acute, U+00E9) at position 4"),
        (POLISH, "ŻÓŁ\u0301W", "(combining acute accent, U+0301) at position 4"),  # no Ł́
        (POLISH, "ŻÓŁW\u0307", "(latin capital letter w with dot above, U+1E86) at position 4"),
        (SPANISH, "kilo", "'k' (latin small letter k, U+006B) at position 1"),
        (SPANISH, "[chi]co", "[CHI] at position 1, but brackets hold exactly one tile"),
        (SPANISH, "[]a", "[] at position 1, but brackets hold exactly one tile"),
        (SPANISH, "[[ch]]", "[[CH] at position 1"),
        (SPANISH, "[ch", "an opening bracket '[' at position 1 with no closing bracket"),
        (SPANISH, "ch]", "a closing bracket ']' at position 3 with no opening bracket"),
        (
            CATALAN,
            "qatar",
            "'Q' (latin capital letter q, U+0051) at position 1, which is only part of the tile QU",
        ),
        (CATALAN, "cel·", "(middle dot, U+00B7) at position 4, which is only part of the tile L·L"),
        (CATALAN, "l'home", "(apostrophe, U+0027) at position 2"),
        (CATALAN, "cel.", "(full stop, U+002E) at position 4"),
        (CATALAN, "cel\u2219la", "(bullet operator, U+2219) at position 4"),  # a look-alike dot
    ],
)
def test_refusals_name_the_character_and_its_position(alphabet, typed, named):
    with pytest.raises(SpellingError) as caught:
        alphabet.spell(typed)
    assert named in caught.value.problem
    assert caught.value.allowed == alphabet.allowed_text(caught.value.example)


def test_what_the_alphabet_allows_is_said():
    assert ENGLISH.allowed_text() == (
        "use the letters A to Z only (type a blank as the letter it stands for)."
    )
    polish = POLISH.allowed_text()
    assert "the polish alphabet's tiles are A Ą B C Ć D E Ę F" in polish and "Ź Ż" in polish
    spanish = SPANISH.allowed_text()
    assert "CH" in spanish and "such as [CH]" in spanish and "it reads Á as A" in spanish


def test_canonically_equivalent_characters_are_the_same_text():
    # NFC, as the contract says: the Kelvin sign IS the letter K (a canonical singleton),
    # unlike a look-alike from another script, which is refused.
    assert spelled(ENGLISH, "o\u212a") == "OK"
    assert spelled(POLISH, "\u0041\u0328") == "Ą"


def test_language_aware_upper_case():
    turkish = Alphabet("turkish-club", tuple("ABCÇDEFGĞHIİJKLMNOÖPRSŞTUÜVYZ"), language="tr")
    assert spelled(turkish, "ılık") == "ILIK"  # dotless ı is I in Turkish
    assert spelled(turkish, "ilik") == "İLİK"  # dotted i is İ
    greek = Alphabet("greek-club", tuple("ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ"), language="el")
    assert spelled(greek, "λόγος".replace("ό", "ο")) == "ΛΟΓΟΣ"  # final sigma is Σ too
    with pytest.raises(SpellingError):
        spelled(greek, "λόγος")  # ό is no Greek Scrabble tile and the club folds nothing


def test_german_sharp_s_is_ss_only_when_the_alphabet_says_so():
    german = Alphabet("german-club", tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ"), fold=(("ß", "SS"),))
    assert spelled(german, "straße") == "STRASSE"
    without = Alphabet("german-strict", tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ"))
    with pytest.raises(SpellingError, match="sharp s"):
        without.spell("straße")


@given(st.lists(st.sampled_from(CATALAN.tiles), min_size=1, max_size=15))
def test_canonical_and_key_round_trip(tiles):
    canonical = CATALAN.canonical(tiles)
    key = CATALAN.key_of(canonical)
    assert len(key) == len(tiles)  # one character per tile
    assert CATALAN.canonical_of_key(key) == canonical
    assert CATALAN.spell(canonical) == tuple(tiles)  # the canonical spelling reads back


def test_keys_are_the_words_without_multi_letter_tiles():
    assert POLISH.keys_are_canonical and ENGLISH.keys_are_canonical
    words = ["ŹDŹBŁO", "ŻÓŁĆ"]
    assert POLISH.keys_of(words) is words


# --- a federation's file -----------------------------------------------------------------------


SWEDISH = """name = "swedish-club"
tiles = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "R", "S",
         "T", "U", "V", "X", "Y", "Z", "Å", "Ä", "Ö"]
"""


def test_a_federation_file_is_read(tmp_path):
    path = tmp_path / "swedish.toml"
    path.write_text(SWEDISH)
    alphabet = resolve_alphabet(str(path))
    assert alphabet.name == "swedish-club" and alphabet.tiles[-3:] == ("Å", "Ä", "Ö")
    assert spelled(alphabet, "åsna") == "ÅSNA"
    assert resolve_alphabet("swedish.toml", tmp_path) == alphabet  # relative to a folder
    assert from_manifest(alphabet.to_dict()) == alphabet  # what a manifest stores reads back


def test_lower_case_tiles_in_a_file_are_upper_cased(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text('name = "tiny-club"\ntiles = ["a", "b", "ch"]\n')
    assert load_alphabet_file(path).tiles == ("A", "B", "CH")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "x"\ntiles = ["A", "B"]\nscore = 1\n', "unknown key(s) score"),
        ('tiles = ["A", "B"]\n', "name must be"),
        ('name = "Bad Name"\ntiles = ["A", "B"]\n', "name must be"),
        ('name = "polish"\ntiles = ["A", "B"]\n', "belongs to a built-in alphabet"),
        ('name = "x"\n', "tiles must be a list"),
        ('name = "x"\ntiles = "AB"\n', "tiles must be a list"),
        ('name = "x"\ntiles = ["A"]\n', "give 2 to 128 tiles"),
        ('name = "x"\ntiles = ["A", "a"]\n', "tile 'A' is listed twice"),
        ('name = "x"\ntiles = ["A", ""]\n', "must be 1 to 4 characters"),
        ('name = "x"\ntiles = ["A", "ABCDE"]\n', "must be 1 to 4 characters"),
        ('name = "x"\ntiles = ["A", "B C"]\n', "cannot be part of a tile"),
        ('name = "x"\ntiles = ["A", "[B]"]\n', "cannot be part of a tile"),
        ('name = "x"\ntiles = ["A", "B,"]\n', "cannot be part of a tile"),
        ('name = "x"\ntiles = ["A", "\\u200bB"]\n', "cannot be part of a tile"),
        ('name = "x"\ntiles = ["A", "\\ue000"]\n', "cannot be part of a tile"),  # private use
        ('name = "x"\ntiles = ["A", "1"]\n', "has no letter"),
        ('name = "x"\ntiles = ["A", "B"]\nfold = { "B" = "A" }\n', "is a tile"),
        ('name = "x"\ntiles = ["A", "B"]\nfold = { "É" = "E" }\n', "not spelled in the"),
        ('name = "x"\ntiles = ["A", "B"]\nfold = ["É"]\n', "fold must be a table"),
        ('name = "x"\ntiles = ["A", "B"]\nfold = { "É" = "ABABABABA" }\n', "1 to 8 characters of"),
        # a fold or case pair that changes part of a tile: that tile could never be typed
        ('name = "x"\ntiles = ["A", "SCH", "S"]\nfold = { "SC" = "S" }\n', "'SCH' could never"),
        ('name = "x"\ntiles = ["AA", "AAA"]\nfold = { "A" = "AAA" }\n', "fold 'A' reads part"),
        ('name = "x"\ntiles = ["ß", "ẞ"]\ncase = { "ß" = "ẞ" }\n', "case 'ß' reads part"),
        ('name = "x"\ntiles = ["A", "B"]\ncase = { "ab" = "A" }\n', "case must pair"),
        ('name = "x"\ntiles = ["A", "B"]\ncase = { "ı" = "I" }\n', "is in no tile"),
        ('name = "x"\ntiles = ["A", "B"]\nlanguage = "Polish"\n', "language must be"),
        ('name = "x"\ntiles = ["A", "B"', "not valid TOML"),
    ],
)
def test_a_bad_federation_file_is_refused_with_what_to_fix(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(AlphabetError) as caught:
        load_alphabet_file(path)
    assert message in str(caught.value)
    assert isinstance(caught.value, ImportRefused)  # the CLI prints it and exits 2


def test_an_unknown_alphabet_lists_the_built_in_ones(tmp_path):
    with pytest.raises(AlphabetError) as caught:
        resolve_alphabet("klingon")
    assert "english, catalan, french, polish, spanish, spanish-fise" in str(caught.value)
    with pytest.raises(AlphabetError):
        resolve_alphabet(str(tmp_path / "missing.toml"))


def test_an_unusable_alphabet_in_a_manifest_is_a_value_error():
    with pytest.raises(ValueError, match="tiles"):
        from_manifest({"name": "x", "tiles": "AB"})
    assert from_manifest({}) is ENGLISH  # manifests written before alphabets existed
