"""Challenge rules and what a verdict costs under each (WESPA 3.10.15, NASPA 6.2, MSA 13).

An UNACCEPTABLE verdict always takes the play off for zero. An ACCEPTABLE one may cost the
challenger: nothing, points per word or per turn (added to the player's score), or the turn.
Per-word penalties need only the number of words challenged.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.errors import AdjudicatorError
from adjudicator.verdict import Verdict


@dataclass(frozen=True)
class Rule:
    name: str
    title: str
    points: int = 0
    per_word: bool = False
    loses_turn: bool = False


RULES: dict[str, Rule] = {
    rule.name: rule
    for rule in (
        Rule("single", "Single challenge: no penalty for an unsuccessful challenge"),
        Rule(
            "double", "Double challenge: an unsuccessful challenger loses the turn", loses_turn=True
        ),
        Rule("5-per-word", "5 points per word challenged", points=5, per_word=True),
        Rule("5-per-turn", "5 points per challenged turn", points=5),
        Rule("10-per-word", "10 points per word challenged", points=10, per_word=True),
        Rule("10-per-turn", "10 points per challenged turn", points=10),
    )
}


class UnknownRule(AdjudicatorError):
    """No challenge rule has that name."""


@dataclass(frozen=True)
class Consequence:
    """What the verdict means for the two players, as text and numbers."""

    text: str
    play_stands: bool | None  # None while a referral is open
    points_to_player: int = 0
    challenger_loses_turn: bool = False


def get_rule(name: str) -> Rule:
    """The rule called `name`, or UnknownRule listing the names there are."""
    try:
        return RULES[name]
    except KeyError:
        known = ", ".join(RULES)
        raise UnknownRule(f"Unknown challenge rule {name!r}: choose one of {known}.") from None


def consequence(rule: Rule, verdict: Verdict, word_count: int) -> Consequence:
    """The consequence of `verdict` under `rule` for a challenge of `word_count` words."""
    if verdict is Verdict.UNACCEPTABLE:
        return Consequence("The play comes off the board and scores zero.", play_stands=False)
    if verdict is Verdict.REFER:
        return Consequence(
            "Call a word judge: a dictionary check is needed before the play is ruled on.",
            play_stands=None,
        )
    if rule.loses_turn:
        return Consequence(
            "The play stands; the challenger loses their turn.",
            play_stands=True,
            challenger_loses_turn=True,
        )
    if rule.points and rule.per_word:
        points = rule.points * word_count
        noun = "word" if word_count == 1 else "words"
        return Consequence(
            f"The play stands; {rule.points} points x {word_count} {noun}: "
            f"the player adds {points}.",
            play_stands=True,
            points_to_player=points,
        )
    if rule.points:
        return Consequence(
            f"The play stands; the player adds {rule.points} points.",
            play_stands=True,
            points_to_player=rule.points,
        )
    return Consequence("The play stands; no penalty.", play_stands=True)
