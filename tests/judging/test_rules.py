"""Challenge rules: what each verdict costs (WESPA 3.10.15, NASPA 6.2, MSA 13)."""

from __future__ import annotations

import pytest

from adjudicator.judging.rules import (
    RULES,
    UnknownRule,
    consequence,
    get_rule,
    void_consequence,
    with_improper_lookup,
)
from adjudicator.judging.verdict import Verdict

KEEPS = "; the challenger keeps the turn."


def test_the_named_rules_are_the_contract():
    assert list(RULES) == [
        "single",
        "double",
        "5-per-word",
        "5-per-turn",
        "10-per-word",
        "10-per-turn",
        "dingle",
        "5-then-10",
        "escalating",
    ]


@pytest.mark.parametrize(
    ("rule", "words", "points", "loses_turn", "text"),
    [
        # WESPA 3.10.15(b)(i): no penalty ('single challenge')
        ("single", 3, 0, False, "The play stands; no penalty" + KEEPS),
        # WESPA 3.10.15(b)(v): loss of turn ('double challenge')
        ("double", 3, 0, True, "The play stands; the challenger loses their turn."),
        # WESPA 3.10.15(b)(ii), MSA 12(iv): five points per word, added to the player's score
        (
            "5-per-word",
            3,
            15,
            False,
            "The play stands; 5 points x 3 words: the player adds 15" + KEEPS,
        ),
        (
            "5-per-word",
            1,
            5,
            False,
            "The play stands; 5 points x 1 word: the player adds 5" + KEEPS,
        ),
        # WESPA 3.10.15(b)(iv): as (ii) or (iii) with ten points
        (
            "10-per-word",
            8,
            80,
            False,
            "The play stands; 10 points x 8 words: the player adds 80" + KEEPS,
        ),
        # WESPA 3.10.15(b)(iii): five points per challenged turn
        ("5-per-turn", 3, 5, False, "The play stands; the player adds 5 points" + KEEPS),
        ("10-per-turn", 8, 10, False, "The play stands; the player adds 10 points" + KEEPS),
        # MSA 13(i): an "x-point penalty challenge", any x
        (
            "7-per-word",
            2,
            14,
            False,
            "The play stands; 7 points x 2 words: the player adds 14" + KEEPS,
        ),
        ("1-per-turn", 4, 1, False, "The play stands; the player adds 1 point" + KEEPS),
        (
            "50-per-word",
            8,
            400,
            False,
            "The play stands; 50 points x 8 words: the player adds 400" + KEEPS,
        ),
    ],
)
def test_acceptable_costs_the_challenger(rule, words, points, loses_turn, text):
    result = consequence(get_rule(rule), Verdict.ACCEPTABLE, words)
    assert result.play_stands is True
    assert result.points_to_player == points
    assert result.challenger_loses_turn is loses_turn
    assert result.text == text
    assert result.penalty() == {
        "play_stands": True,
        "points_to_player": points,
        "challenger_loses_turn": loses_turn,
        "points_to_challenger": 0,
    }


def test_naspa_6_2_five_point_challenge_keeps_the_turn_double_loses_it():
    """NASPA 6.2: in 5-point challenge "You do not lose your turn"; in double you lose it."""
    five = consequence(get_rule("5-per-word"), Verdict.ACCEPTABLE, 2)
    double = consequence(get_rule("double"), Verdict.ACCEPTABLE, 2)
    assert (five.challenger_loses_turn, "keeps the turn" in five.text) == (False, True)
    assert (double.challenger_loses_turn, "loses their turn" in double.text) == (True, True)


@pytest.mark.parametrize(
    ("earlier", "text", "loses_turn"),
    [
        (
            0,
            "the challenger's first unsuccessful challenge in this game: no penalty" + KEEPS,
            False,
        ),
        (
            1,
            "the challenger's 2nd unsuccessful challenge in this game: "
            "the challenger loses their turn.",
            True,
        ),
        (
            5,
            "the challenger's 6th unsuccessful challenge in this game: "
            "the challenger loses their turn.",
            True,
        ),
    ],
)
def test_wespa_3_10_15_c_i_dingle(earlier, text, loses_turn):
    """ "no penalty for first unsuccessful challenge, loss of turn for subsequent ones"."""
    result = consequence(get_rule("dingle"), Verdict.ACCEPTABLE, 3, earlier)
    assert result.text == "The play stands; " + text
    assert (result.challenger_loses_turn, result.points_to_player) == (loses_turn, 0)


@pytest.mark.parametrize(("earlier", "points"), [(0, 5), (1, 10), (2, 10), (9, 10)])
def test_wespa_3_10_15_c_ii_five_then_ten(earlier, points):
    """ "five-point penalty for first unsuccessful challenge, ten-point penalty for subsequent"."""
    result = consequence(get_rule("5-then-10"), Verdict.ACCEPTABLE, 4, earlier)
    assert (result.points_to_player, result.challenger_loses_turn) == (points, False)
    assert result.text.endswith(f"the player adds {points} points" + KEEPS)


def test_wespa_3_10_15_c_iii_escalating_5_5_10_20_30_then_30():
    """ "5-5-10-20-30 point (or similar) increasing penalties": 30 for each one after the fifth."""
    rule = get_rule("escalating")
    points = [consequence(rule, Verdict.ACCEPTABLE, 2, n).points_to_player for n in range(8)]
    assert points == [5, 5, 10, 20, 30, 30, 30, 30]
    third = consequence(rule, Verdict.ACCEPTABLE, 2, 2).text
    assert (
        third == "The play stands; the challenger's 3rd unsuccessful challenge in this game: "
        "the player adds 10 points" + KEEPS
    )


@pytest.mark.parametrize("rule", ["dingle", "5-then-10", "escalating"])
def test_counting_rules_say_so_and_the_standard_ones_do_not(rule):
    assert get_rule(rule).counts_earlier_challenges
    for standard in ("single", "double", "5-per-word", "17-per-turn"):
        assert not get_rule(standard).counts_earlier_challenges


@pytest.mark.parametrize("rule", [*RULES, "3-per-word", "25-per-turn"])
@pytest.mark.parametrize("earlier", [0, 3])
def test_unacceptable_takes_the_play_off_under_every_rule(rule, earlier):
    """WESPA 3.10.15(a): "The challenger may be penalised only if all challenged words are
    acceptable"; the player loses the turn (NSA X.E)."""
    result = consequence(get_rule(rule), Verdict.UNACCEPTABLE, 3, earlier)
    assert result.play_stands is False
    assert result.points_to_player == 0
    assert result.challenger_loses_turn is False
    assert result.text == "The play comes off the board and scores zero."


@pytest.mark.parametrize("rule", list(RULES))
def test_refer_leaves_the_ruling_open(rule):
    result = consequence(get_rule(rule), Verdict.REFER, 2)
    assert result.play_stands is None
    assert result.points_to_player == 0
    assert "word judge" in result.text


def test_naspa_6_2_improper_lookup_costs_the_challenger_10_points():
    """NASPA 6.2 "Improper Lookups": "If it was solely your error and the word is invalid,
    you lose 10 points"."""
    result = with_improper_lookup(consequence(get_rule("double"), Verdict.UNACCEPTABLE, 2))
    assert result.penalty() == {
        "play_stands": False,
        "points_to_player": 0,
        "challenger_loses_turn": False,
        "points_to_challenger": -10,
    }
    assert result.text.endswith(
        "Improper separate look-ups (NASPA 6.2): the challenger loses 10 points."
    )


def test_a_void_challenge_costs_nobody_anything():
    result = void_consequence("Void.")
    assert result.penalty() == {
        "play_stands": None,
        "points_to_player": 0,
        "challenger_loses_turn": False,
        "points_to_challenger": 0,
    }


def test_penalty_json_is_canonical():
    result = consequence(get_rule("5-per-word"), Verdict.ACCEPTABLE, 2)
    assert result.penalty_json() == (
        '{"challenger_loses_turn":false,"play_stands":true,"points_to_challenger":0,'
        '"points_to_player":10}'
    )


@pytest.mark.parametrize("name", ["triple", "0-per-word", "51-per-word", "5-per-game", "5per-word"])
def test_unknown_rule_says_what_there_is(name):
    with pytest.raises(UnknownRule) as caught:
        get_rule(name)
    message = str(caught.value)
    assert repr(name) in message
    for known in (
        "single",
        "double",
        "N-per-word",
        "N-per-turn",
        "1 to 50",
        "dingle",
        "escalating",
    ):
        assert known in message
