"""Challenge input: separators, case, lengths, counts, and every class of input error."""

from __future__ import annotations

import pytest

from adjudicator.errors import ChallengeInputError
from adjudicator.words.alphabet_files import builtin
from adjudicator.words.normalize import MAX_LETTERS, MAX_WORDS, normalize_challenge, split_words


@pytest.mark.parametrize(
    "typed",
    ["QI ZA JO", "qi,za,jo", "Qi, zA,\njo", "  QI\t\tZA\r\nJO\n", ",QI,,ZA, ,JO,"],
)
def test_separators_and_case_are_ignored(typed):
    assert normalize_challenge(typed) == ("QI", "ZA", "JO")


def test_a_list_of_words_is_normalised_like_text():
    assert normalize_challenge(["qi", "Za jo", "cat,dog"]) == ("QI", "ZA", "JO", "CAT", "DOG")


def test_duplicates_are_kept_in_order():
    assert normalize_challenge("za QI za") == ("ZA", "QI", "ZA")


def test_limits_themselves_are_accepted():
    longest = "A" * MAX_LETTERS
    assert normalize_challenge(["AB"] * MAX_WORDS) == ("AB",) * MAX_WORDS
    assert normalize_challenge(longest) == (longest,)


def test_split_words_drops_empty_pieces():
    assert split_words(" ,\n") == []
    assert split_words("a,b c") == ["a", "b", "c"]


def _error(typed) -> str:
    with pytest.raises(ChallengeInputError) as caught:
        normalize_challenge(typed)
    return str(caught.value)


@pytest.mark.parametrize("typed", ["", "   ", ",,\n", []])
def test_no_words_is_an_error(typed):
    assert "No words to judge" in _error(typed)


def test_too_many_words_says_how_many():
    message = _error(" ".join(["QI"] * 9))
    assert "Too many words: 9 given" in message
    assert "at most 8" in message


def test_one_letter_word_is_named():
    message = _error("QI A ZA")
    assert "Word 2 ('A') has 1 letter" in message
    assert "at least 2" in message


def test_too_long_word_is_named_with_its_length():
    word = "B" * 16
    message = _error(f"QI {word}")
    assert f"Word 2 ('{word}') has 16 letters" in message
    assert "15" in message


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("QI Z4", "Word 2 ('Z4') has the digit '4' at position 2"),
        ("Q?", "Word 1 ('Q?') has the character '?' (question mark, U+003F) at position 2"),
        ("RE-DO", "the character '-' (hyphen-minus, U+002D) at position 3"),
        ("CAN'T", 'the character "\'" (apostrophe, U+0027) at position 4'),
        ("CAFÉ", "(latin capital letter e with acute, U+00C9) at position 4"),
        ("\u0410A", "(cyrillic capital letter a, U+0410) at position 1"),  # looks like A
        ("Q\u200bI", "U+200B) at position 2"),  # zero-width space
        ("Q\x00I", "an invisible or control character (U+0000) at position 2"),
        ("ＱＩ", "(fullwidth latin capital letter q, U+FF31) at position 1"),
    ],
)
def test_a_bad_character_is_named_with_its_position(typed, expected):
    message = _error(typed)
    assert expected in message
    assert "letters A to Z only" in message


def test_the_first_problem_is_reported_in_word_order():
    assert _error("QI A Z4").startswith("Word 2 ('A')")


def test_a_word_that_is_not_text_is_an_error():
    assert "must be text" in _error(["QI", 7])


def test_input_errors_do_not_depend_on_the_words_being_valid():
    # The same shape of mistake gives the same message whoever wrote which word.
    valid_first = _error("QI ZA Z4").replace("QI ZA", "")
    invalid_first = _error("XQ QX Z4").replace("XQ QX", "")
    assert valid_first == invalid_first


# --- other alphabets (issue 14): the tournament lexicon's tiles decide -------------------------

POLISH, SPANISH = builtin("polish"), builtin("spanish")


def test_polish_words_are_read_in_polish_tiles():
    assert normalize_challenge("źdźbło, Żółć", POLISH) == ("ŹDŹBŁO", "ŻÓŁĆ")


def test_a_polish_word_is_refused_in_english():
    message = _error("ŹDŹBŁO")
    assert "'Ź' (latin capital letter z with acute, U+0179) at position 1" in message
    assert "letters A to Z only" in message


def test_spanish_digraphs_count_as_one_tile_each():
    # A word of 15 tiles fits the board however many letters they are written with.
    fifteen = "ch" * 15  # 30 letters, 15 CH tiles
    assert normalize_challenge(fifteen, SPANISH) == ("[CH]" * 15,)
    message = _error_in(SPANISH, "ch" * 16)
    assert "has 16 tiles: no word on a 15 x 15 board has more than 15" in message
    message = _error_in(SPANISH, "ch")
    assert "has 1 tile: a word has at least 2 tiles" in message


def test_a_bad_character_names_what_the_alphabet_allows():
    message = _error_in(SPANISH, "QI kilo")
    assert message.startswith("Word 2 ('kilo') has the character 'k' (latin small letter k")
    assert "the spanish alphabet's tiles are A B C CH D" in message
    assert "letters A to Z only" not in message


def test_input_errors_in_other_alphabets_do_not_depend_on_the_words():
    valid_first = _error_in(SPANISH, "[CH]ICO PERRO KILO").replace("[CH]ICO PERRO", "")
    invalid_first = _error_in(SPANISH, "XQXQ QXQX KILO").replace("XQXQ QXQX", "")
    assert valid_first == invalid_first


def _error_in(alphabet, typed) -> str:
    with pytest.raises(ChallengeInputError) as caught:
        normalize_challenge(typed, alphabet)
    return str(caught.value)


def test_a_huge_word_in_another_alphabet_is_refused_without_spelling_it_out():
    message = _error_in(SPANISH, "ch" * 5000)
    assert "has 10000 characters: no word on a 15 x 15 board has more than 15 tiles" in message


# The refusal's example is the tile the typing reached for (issue 28, item 5): Catalan XYZ has
# the Y of NY, so the hint shows [NY], never the alphabet's first tile of several letters.
@pytest.mark.parametrize(
    ("alphabet", "typed", "example"),
    [
        ("catalan", "xyz", "NY"),  # Y is only part of NY
        ("catalan", "qa", "QU"),  # Q is only part of QU
        ("catalan", "coŀ", "L·L"),  # Ŀ without its L, read as no tile: the tile it begins
        ("catalan", "al·a", "L·L"),  # the middle dot is only part of L·L
        ("catalan", "[ny", "NY"),  # an unclosed bracket: the tile after it
        ("catalan", "any]a", "NY"),  # an unopened one: the tile before it
        ("catalan", "[LL]", "L·L"),  # brackets holding L L: the tile with those letters
        ("catalan", "kny", "NY"),  # K is no tile: the word's own tile of several letters
        ("spanish", "[chi]co", "CH"),
        ("spanish", "ca[rr", "RR"),
        ("spanish", "ll]ave", "LL"),
        ("spanish", "[RX]", "RR"),
        ("spanish-fise", "[ll", "LL"),
        ("spanish-fise", "pe[rx]o", "RR"),
        ("spanish-fise", "ch]ico", "CH"),
        ("polish", "[ąb]", "Ą"),
        ("polish", "[ęa", "Ę"),
        ("polish", "ż]ółw", "Ż"),
        ("french", "[oe]uf", "O"),
        ("french", "[é", "E"),
    ],
)
def test_the_refusal_shows_the_very_tile_typed(alphabet, typed, example):
    with pytest.raises(ChallengeInputError) as caught:
        normalize_challenge(typed, builtin(alphabet))
    said = caught.value.phrase.render(lambda text: text, None)
    assert f"such as [{example}]" in said, said
    if "only part of" in str(caught.value) or builtin(alphabet).multi_tiles:
        assert f"such as [{example}]" in str(caught.value)  # the English error too


@pytest.mark.parametrize("alphabet", ["polish", "french"])
def test_a_letter_no_tile_spells_gets_no_advice_on_brackets_where_no_tile_needs_them(alphabet):
    with pytest.raises(ChallengeInputError) as caught:
        normalize_challenge("xø", builtin(alphabet))
    said = caught.value.phrase.render(lambda text: text, None)
    assert "type a blank as the letter it stands for" in said
    assert "bracket" not in said and "bracket" not in str(caught.value)
