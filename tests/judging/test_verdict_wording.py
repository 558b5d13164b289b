"""What a kiosk says about a verdict: each thing once, the numbers the journal recorded."""

from __future__ import annotations

import re

import pytest

from adjudicator.judging.rules import RULES, consequence, get_rule, waived_consequence
from adjudicator.judging.verdict import Verdict
from adjudicator.judging.verdict_wording import rule_phrase, verdict_phrases
from adjudicator.record.journal.journal_entry import Entry


def _english(phrase) -> str:
    return phrase.render(lambda text: text, lambda one, many, n: one if n == 1 else many)


def _row(rule: str, verdict: Verdict, words: int, earlier: int = 0) -> Entry:
    result = consequence(get_rule(rule), verdict, words, earlier)
    return Entry(
        1, "now", "challenge", "open", "k1", "NWL", "f" * 64, 10, rule, ("QI",) * words,
        words, verdict.value, result.text, penalty=result.penalty_json(),
    )  # fmt: skip


def _said(row: Entry) -> tuple[str, str, str]:
    shown = verdict_phrases(row)
    said = " ".join(_english(phrase) for phrase in shown["consequence"])
    return _english(shown["word"]), _english(shown["gloss"]), said


RULE_NAMES = [*RULES, "3-per-word", "1-per-word", "25-per-turn"]


@pytest.mark.parametrize("rule", RULE_NAMES)
@pytest.mark.parametrize("verdict", list(Verdict))
@pytest.mark.parametrize(("words", "earlier"), [(1, 0), (3, 0), (2, 1), (2, 4), (1, 9)])
def test_the_gloss_and_the_consequence_say_each_thing_once(rule, verdict, words, earlier):
    word, gloss, said = _said(_row(rule, verdict, words, earlier))
    assert word == verdict.value and gloss and said
    assert gloss.lower() not in said.lower()  # the play's fate is said once, by the gloss
    assert "word judge" not in said.lower() and "play stands" not in said.lower()
    journaled = _row(rule, verdict, words, earlier).consequence
    for number in re.findall(r"\d+", journaled.replace("3.10.15", "")):
        if number != str(words) or verdict is Verdict.ACCEPTABLE:
            assert number in said, (journaled, said)  # every penalty number is shown
    if "loses their turn" in journaled:
        assert said.endswith("The challenger loses their turn.")


def test_a_counting_rule_says_which_unsuccessful_challenge_it_was():
    assert "number 1 by the challenger" in _said(_row("escalating", Verdict.ACCEPTABLE, 1))[2]
    word, gloss, said = _said(_row("escalating", Verdict.ACCEPTABLE, 2, earlier=11))
    assert said == (
        "Unsuccessful challenge number 12 by the challenger in this game. "
        "The player adds 30 points; the challenger keeps the turn."
    )


def test_per_word_points_count_the_words():
    assert _said(_row("5-per-word", Verdict.ACCEPTABLE, 3))[2] == (
        "3 words challenged, 5 each: the player adds 15; the challenger keeps the turn."
    )
    assert _said(_row("5-per-word", Verdict.ACCEPTABLE, 1))[2].startswith("1 word challenged")


def test_refer_and_unacceptable():
    assert _said(_row("double", Verdict.REFER, 2))[1:] == (
        "call a word judge",
        "A dictionary check is needed before the play is ruled on.",
    )
    assert _said(_row("double", Verdict.UNACCEPTABLE, 2))[1:] == (
        "the play comes off the board",
        "It scores zero, and the turn passes to the challenger.",
    )


def test_an_improper_look_up_penalty_is_said():
    row = _row("double", Verdict.UNACCEPTABLE, 1)
    penalty = row.penalty.replace('"points_to_challenger":0', '"points_to_challenger":-10')
    from dataclasses import replace

    assert _said(replace(row, penalty=penalty))[2].endswith("The challenger loses 10 points.")


@pytest.mark.parametrize("rule", RULE_NAMES)
def test_every_rules_phrase_is_its_english_title(rule):
    assert _english(rule_phrase(get_rule(rule))) == get_rule(rule).title


def _row_of(rule: str, waived: bool = False, **options) -> Entry:
    result = consequence(get_rule(rule), Verdict.ACCEPTABLE, 2, 0, **options)
    if waived:
        result = waived_consequence(get_rule(rule), "NSA VI.C", named=True)
    return Entry(
        1, "now", "challenge", "open", "k1", "NWL", "f" * 64, 10, rule, ("QI", "ZA"), 2,
        "ACCEPTABLE", result.text, penalty=result.penalty_json(),
    )  # fmt: skip


def test_time_penalties_final_plays_and_waived_penalties_are_said_as_recorded():
    assert _said(_row_of("30-seconds"))[2] == (
        "The challenger's clock loses 30 seconds; the challenger keeps the turn."
    )
    assert _said(_row_of("30-seconds", final_play=True))[2] == (
        "The challenger's clock loses 30 seconds."
    )
    assert _said(_row_of("5-per-word", final_play=True))[2] == (
        "2 words challenged, 5 each: the player adds 10."
    )
    assert _said(_row_of("double", final_play=True))[2] == ""  # the game is over
    assert _said(_row_of("single", final_play=True))[2] == "No penalty."
    assert _said(_row_of("double", waived=True))[2].startswith("The director waived the penalty")
    assert _said(_row_of("double", final_play=True, final_play_free=True))[2] == (
        "No penalty for challenging the final play of the game (school rule 12)."
    )
