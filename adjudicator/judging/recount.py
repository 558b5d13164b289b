"""Effective penalties: a challenge's penalty as every later ruling and void in its game leave it.

Under the rules that count the challenger's earlier unsuccessful challenges in a game
(WESPA 3.10.15(c): dingle, 5-then-10, escalating), the penalty recorded with a challenge used
the count known then. A later ruling or void on an earlier challenge changes that count, so
each challenge's penalty is recounted from the game as it now stands: the challenges in id
order, each by its effective outcome (outcomes.outcome_of), an ACCEPTABLE one counting as one
unsuccessful challenge for those after it; a final play's challenge too (WESPA 3.10.15(c)(ii):
"ten-point penalty for subsequent unsuccessful challenges", whichever turn). Other rules charge
no count: nothing changes.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from adjudicator.judging import director_points
from adjudicator.judging.rules import Rule, UnknownRule, consequence, get_rule
from adjudicator.judging.verdict import Verdict

Outcome = Any  # outcomes.Outcome (imported there: this module stays below it, no cycle)

GameKey = tuple[str, str, str, str]  # tournament, round, table, challenger


@cache
def counting_rule(name: str) -> Rule | None:
    """The rule `name` when it counts earlier challenges in the game, else None."""
    try:
        rule = get_rule(name)
    except UnknownRule:
        return None
    return rule if rule.counts_earlier_challenges else None


def game_key(tournament: str, round_no, table, challenger) -> GameKey | None:
    """The game a challenge belongs to, or None when it gave no full game."""
    if not (round_no and table and challenger):
        return None
    return (tournament, round_no, table, challenger)


def recount(
    rule: Rule,
    found: Outcome,
    earlier_unsuccessful: int,
    final_play: bool = False,
    final_play_free: bool = False,
) -> Outcome:
    """`found` with its penalty and consequence recounted after `earlier_unsuccessful`
    unsuccessful challenges (as effective now): a final play's too, worded for the end of the
    game (and free under school rule 12). The consequence follows the count ("2nd unsuccessful
    challenge") even where the penalty does not change; `shown_penalty` is set only when the
    penalty itself changed (the players must be told)."""
    if found.verdict != Verdict.ACCEPTABLE.value or (found.penalty or {}).get("waived"):
        return found  # nothing to count, or the director's free challenge (waivers.py)
    result = consequence(
        rule,
        Verdict.ACCEPTABLE,
        found.word_count,
        earlier_unsuccessful,
        final_play=final_play,
        final_play_free=final_play_free,
    )
    # the director's points (director_points.py) are no part of the count: kept as they were
    text, penalty = director_points.kept(
        result.text, result.penalty(), found.points, director_points.sentence_in(found.consequence)
    )
    if penalty == found.penalty:
        if text == found.consequence:
            return found
        return replace(found, consequence=text, how=f"{found.how}; {RECOUNTED}")
    return replace(
        found,
        consequence=text,
        penalty=penalty,
        shown_penalty=found.penalty,
        how=f"{found.how}; {RECOUNTED}",
    )


RECOUNTED = "penalty recounted after later rulings and voids in the game"
