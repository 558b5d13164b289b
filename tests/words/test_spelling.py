"""How typed words read as tiles before JUDGE (adjudicator/spelling.py): the readings the kiosk
offers, the typing it sends for each, and the problems it shows, in every built-in alphabet and a
federation's; always the same reading as the adjudication's, and never a look at the lexicon.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from adjudicator.errors import ChallengeInputError
from adjudicator.words.alphabet import ENGLISH
from adjudicator.words.alphabet_files import AlphabetError, builtin, parse_alphabet
from adjudicator.words.normalize import normalize_challenge
from adjudicator.words.spelling import (
    MAX_READINGS,
    canonical_tiles,
    spell_challenge,
    tilings,
    written,
)

SPANISH = builtin("spanish")
CATALAN = builtin("catalan")
POLISH = builtin("polish")
# A federation's alphabet with a three-letter tile and a fold that reads two letters as one tile.
CLUB = parse_alphabet(
    {
        "name": "test-club",
        "tiles": ["A", "B", "C", "E", "H", "S", "SCH", "CH", "Æ"],
        "fold": {"AE": "Æ"},
    },
    "test",
)
NESTED = parse_alphabet({"name": "nested", "tiles": ["A", "AA", "AAA", "AAAA", "B"]}, "test")
ALPHABETS = [ENGLISH, POLISH, SPANISH, CATALAN, CLUB, NESTED]


def readings_of(word: str, alphabet) -> list[tuple[list[str], str, str]]:
    (spelled,) = spell_challenge([word], alphabet)
    assert not spelled.problem, spelled.problem
    return [(list(r.tiles), r.word, r.written) for r in spelled.readings]


def test_a_spanish_word_reads_as_typed_first_and_offers_the_other_splits():
    (chico,) = spell_challenge(["chico"], SPANISH)
    assert chico.current == 0 and chico.readings[0].tiles == ("CH", "I", "C", "O")
    assert readings_of("chico", SPANISH) == [
        (["CH", "I", "C", "O"], "[CH]ICO", "[CH]ICO"),
        (["C", "H", "I", "C", "O"], "CHICO", "[C][H]ICO"),
    ]
    (forced,) = spell_challenge(["[c][h]ico"], SPANISH)  # typed as two tiles: that way is chosen
    assert forced.readings[forced.current].tiles == ("C", "H", "I", "C", "O")
    churro = readings_of("churro", SPANISH)
    assert [written for _, _, written in churro] == [
        "[CH]U[RR]O",
        "[CH]U[R][R]O",
        "[C][H]U[RR]O",
        "[C][H]U[R][R]O",
    ]
    assert [w for _, _, w in readings_of("rrr", SPANISH)] == ["[RR]R", "R[RR]", "[R][R][R]"]


def test_words_with_one_reading():
    assert readings_of("col.legi", CATALAN) == [
        (["C", "O", "L·L", "E", "G", "I"], "CO[L·L]EGI", "CO[L·L]EGI")
    ]
    # Catalan NY and QU cannot split: there is no Y tile and no Q tile
    assert len(readings_of("nyap", CATALAN)) == len(readings_of("queda", CATALAN)) == 1
    assert readings_of("paella", CATALAN)[0][0] == ["P", "A", "E", "L", "L", "A"]
    assert readings_of("źdźbło", POLISH) == [(list("ŹDŹBŁO"), "ŹDŹBŁO", "ŹDŹBŁO")]
    assert readings_of("camión", SPANISH) == [(list("CAMION"), "CAMION", "CAMION")]
    assert readings_of("qi", ENGLISH) == [(["Q", "I"], "QI", "QI")]


def test_problems_are_the_adjudications_own_messages_numbered_by_position():
    spelled = spell_challenge(["kiwi", "whisky", "a", "·l", "l·l", "chico perro", ""], CATALAN)
    problems = [word.problem for word in spelled]
    assert problems[0].startswith("Word 1 ('kiwi') has the character 'k'")  # no K tile
    assert problems[1].startswith("Word 2 ('whisky') has the character 'w'")
    assert problems[2] == "Word 3 ('a') has 1 tile: a word has at least 2 tiles."
    assert "which is only part of the tile L·L" in problems[3]
    assert problems[4] == "Word 5 ('l·l') has 1 tile: a word has at least 2 tiles."
    assert "is not one word" in problems[5] and "is not one word" in problems[6]
    for word in ("whisky", "a", "·l"):  # the same message the adjudication gives
        with pytest.raises(ChallengeInputError) as refused:
            normalize_challenge(["quo", "ça", word], CATALAN)
        (again,) = [w for w in spell_challenge(["quo", "ça", word], CATALAN) if w.problem]
        assert again.problem == str(refused.value)


def test_limits_count_tiles_and_readings_over_15_tiles_are_not_offered():
    fifteen = "ch" * 15  # 15 CH tiles; split, they would be 30
    (spelled,) = spell_challenge([fifteen], SPANISH)
    assert [len(r.tiles) for r in spelled.readings] == [15]
    many = "ch" * 7 + "a"  # 2**7 ways, of which MAX_READINGS are offered
    (spelled,) = spell_challenge([many], SPANISH)
    assert len(spelled.readings) == MAX_READINGS and spelled.current == 0
    (forced,) = spell_challenge(["[c][h]" * 7 + "a"], SPANISH)  # the chosen way is always offered
    assert forced.readings[forced.current].tiles == ("C", "H") * 7 + ("A",)
    assert len(forced.readings) == MAX_READINGS
    (too_long,) = spell_challenge(["ab" * 8], SPANISH)
    assert "has 16 tiles" in too_long.problem


def test_the_list_itself_must_be_usable():
    with pytest.raises(ChallengeInputError, match="Too many words: 9 given"):
        spell_challenge(["qi"] * 9, ENGLISH)
    with pytest.raises(ChallengeInputError, match="Each word must be text"):
        spell_challenge(["qi", 7], ENGLISH)
    assert spell_challenge([], ENGLISH) == []


def test_a_federation_alphabet_with_folds_and_long_tiles():
    ways = readings_of("asche", CLUB)
    assert ways[0][0] == ["A", "SCH", "E"]
    assert {tuple(tiles) for tiles, _, _ in ways} == {
        ("A", "SCH", "E"),
        ("A", "S", "CH", "E"),
        ("A", "S", "C", "H", "E"),
    }
    # A then E read together would be the Æ tile: the typing brackets them
    assert written(CLUB, ("A", "E", "B")) == "[A][E]B"
    assert CLUB.spell("[A][E]B") == ("A", "E", "B") and CLUB.spell("AEB") == ("Æ", "B")


def tile_sequences(alphabet):
    return st.lists(st.sampled_from(alphabet.tiles), min_size=2, max_size=15)


@pytest.mark.parametrize("alphabet", ALPHABETS, ids=lambda a: a.name)
def test_every_reading_is_typed_so_that_it_reads_back_exactly(alphabet):
    @settings(max_examples=150, deadline=None)
    @given(tiles=tile_sequences(alphabet))
    def check(tiles):
        tiles = tuple(tiles)
        text = written(alphabet, tiles)
        assert alphabet.spell(text) == tiles
        assert normalize_challenge([text], alphabet) == (alphabet.canonical(tiles),)
        assert canonical_tiles(alphabet.canonical(tiles)) == tiles
        ways = tilings(alphabet, tiles)
        assert tiles in ways and len(ways) <= 16 and len(set(ways)) == len(ways)
        assert all("".join(way) == "".join(tiles) for way in ways)
        (spelled,) = spell_challenge([text], alphabet)
        assert spelled.readings[spelled.current].tiles == tiles
        for reading in spelled.readings:
            assert alphabet.spell(reading.written) == reading.tiles
            assert reading.word == alphabet.canonical(reading.tiles)

    check()


def test_spelling_has_no_lexicon_to_look_at():
    """Nothing in spelling.py can consult a lexicon: it imports no lexicon or store code."""
    import ast
    from pathlib import Path

    import adjudicator.words.spelling as spelling

    tree = ast.parse(Path(spelling.__file__).read_text())
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= {
        "__future__",
        "collections.abc",
        "dataclasses",
        "typing",
        "adjudicator.words.alphabet",
        "adjudicator.errors",
        "adjudicator.words.normalize",
        "adjudicator.wording",  # the problem as a kiosk says it: a message, no words
    }


def test_nested_tiles_are_read_without_searching_every_way():
    """Tiles A, AA, AAA, AAAA: 60 A's have about 10**9 part-ways of up to 15 tiles; only ways
    that can still end within 15 tiles are followed, so a kiosk's request cannot hang a server."""
    longest, middling = within_budget(lambda: spell_challenge(["a" * 60, "a" * 30], NESTED))
    assert [r.tiles for r in longest.readings] == [("AAAA",) * 15]
    assert len(middling.readings) == MAX_READINGS
    assert all(len(r.tiles) <= 15 for r in middling.readings)
    assert middling.readings[0].tiles == ("AAAA",) * 7 + ("AA",)


WORK_BUDGET = 50_000  # Python calls for one 8-word challenge; the worst known case makes ~7,000


class OverBudget(Exception):
    pass


def within_budget(call):
    """Run `call`, failing (never hanging) once it makes more than WORK_BUDGET Python calls:
    work counted, not time, so a busy machine cannot fail it and a slow search cannot hide."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += 1
        if calls > WORK_BUDGET:
            raise OverBudget(f"more than {WORK_BUDGET} calls")

    sys.settrace(count)
    try:
        return call()
    finally:
        sys.settrace(None)


@st.composite
def federation_challenges(draw):
    """A random small alphabet a federation could write (tiles of 1-4 letters that nest, a
    combining accent, folds of up to 8 characters into tiles), and 1-8 words typed in it."""
    letters = st.text(alphabet="AB\u0301", min_size=1, max_size=4)
    tiles = draw(st.lists(letters, min_size=2, max_size=7, unique=True))
    fold = {
        draw(st.text(alphabet="ABD", min_size=1, max_size=8)): "".join(
            draw(st.lists(st.sampled_from(tiles), min_size=1, max_size=2))
        )
        for _ in range(draw(st.integers(0, 3)))
    }
    try:
        alphabet = parse_alphabet({"name": "club", "tiles": tiles, "fold": fold}, "club.toml")
    except AlphabetError:
        assume(False)
    pieces = [*alphabet.tiles, *(source for source, _ in alphabet.fold), "[", "]", "a", "b"]
    typed = st.lists(st.sampled_from(pieces), min_size=1, max_size=20).map("".join)
    # the longest search: one tile 13 to 15 times over, its letters also smaller tiles (AA AA...)
    repeated = st.builds(str.__mul__, st.sampled_from(alphabet.tiles), st.integers(13, 15))
    return alphabet, draw(st.lists(typed | repeated, min_size=1, max_size=8))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(federation_challenges())
@example((parse_alphabet({"name": "pairs", "tiles": ["A", "AA"]}, "test"), ["a" * 30] * 8))
def test_any_federation_alphabet_reads_any_typing_within_a_fixed_amount_of_work(challenge):
    """Whatever alphabet file a federation writes and whatever a kiosk sends: the answer comes
    after a bounded amount of work, agrees with the adjudication, and each way offered is typed
    so that it reads back exactly."""
    alphabet, words = challenge
    spelled = within_budget(lambda: spell_challenge(words, alphabet))
    for position, word in enumerate(spelled, 1):
        try:
            canonical = normalize_challenge([word.typed], alphabet)
        except ChallengeInputError as refused:
            assert word.problem == str(refused).replace("Word 1 ", f"Word {position} ", 1)
            continue
        assert not word.problem and len(canonical) == 1
        assert word.readings[word.current].word == canonical[0]
        assert 1 <= len(word.readings) <= MAX_READINGS
        for reading in word.readings:
            assert 2 <= len(reading.tiles) <= 15
            assert alphabet.spell(reading.written) == reading.tiles
            assert normalize_challenge([reading.written], alphabet) == (reading.word,)
