"""Challenge rules: what each verdict costs, as text and points."""

from __future__ import annotations

import pytest

from adjudicator.rules import RULES, UnknownRule, consequence, get_rule
from adjudicator.verdict import Verdict


def test_the_rule_names_are_the_contract():
    assert list(RULES) == [
        "single",
        "double",
        "5-per-word",
        "5-per-turn",
        "10-per-word",
        "10-per-turn",
    ]


@pytest.mark.parametrize(
    ("rule", "words", "points", "loses_turn", "text"),
    [
        ("single", 3, 0, False, "The play stands; no penalty."),
        ("double", 3, 0, True, "The play stands; the challenger loses their turn."),
        ("5-per-word", 3, 15, False, "The play stands; 5 points x 3 words: the player adds 15."),
        ("5-per-word", 1, 5, False, "The play stands; 5 points x 1 word: the player adds 5."),
        ("10-per-word", 8, 80, False, "The play stands; 10 points x 8 words: the player adds 80."),
        ("5-per-turn", 3, 5, False, "The play stands; the player adds 5 points."),
        ("10-per-turn", 8, 10, False, "The play stands; the player adds 10 points."),
    ],
)
def test_acceptable_costs_the_challenger(rule, words, points, loses_turn, text):
    result = consequence(get_rule(rule), Verdict.ACCEPTABLE, words)
    assert result.play_stands is True
    assert result.points_to_player == points
    assert result.challenger_loses_turn is loses_turn
    assert result.text == text


@pytest.mark.parametrize("rule", list(RULES))
def test_unacceptable_takes_the_play_off_under_every_rule(rule):
    result = consequence(get_rule(rule), Verdict.UNACCEPTABLE, 3)
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


def test_unknown_rule_lists_the_known_ones():
    with pytest.raises(UnknownRule) as caught:
        get_rule("triple")
    message = str(caught.value)
    assert "'triple'" in message
    for name in RULES:
        assert name in message
