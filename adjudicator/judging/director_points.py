"""The director's points: a ruling's or a director's challenge's points to the player, by hand.

Some decisions carry points the rules name but no penalty rule computes: NASPA 4.11(a), an
exchange with fewer than 7 tiles in the bag found after the opponent played ("subtract 30
from your score"); school rule 8 ("a penalty applies"), with rule 36 ("Penalty points may be
assessed by the Director for the violation of these rules"); elsewhere the director's own
discretion, cited from the tournament's rulebook (`Rulebook.points_clause`). `ruling ID ...
--points N` and `director-challenge ... --points N` record them: N points to the player whose
play (or exchange) was challenged, negative for a deduction, as the row's
`penalty.points_to_player` (added to what the challenge rule gives) and `details.points`, so
every later recount keeps them (outcomes.py) and the game's totals count them (game_totals.py).
"""

from __future__ import annotations

from dataclasses import replace

from adjudicator.errors import AdjudicatorError
from adjudicator.judging.rules import Consequence

MAX_POINTS = 500  # a director's decision, not a score: more is a typing mistake
DETAIL = "points"  # the details key that keeps them apart from the rule's own penalty


class PointsRefused(AdjudicatorError):
    """The director's points are not a whole number of points, or are out of range."""


def check_points(value: object) -> int | None:
    """The director's points as a whole number from -MAX_POINTS to MAX_POINTS, not 0 (None:
    none given); PointsRefused saying what to type otherwise."""
    if value is None or value == "":
        return None
    text = str(value).strip()
    digits = text[1:] if text[:1] in "+-" else text
    if isinstance(value, bool) or not (digits.isascii() and digits.isdigit()):
        raise PointsRefused(
            f"--points takes a whole number of points to the player, negative for a deduction "
            f"(such as -30), not {text!r}."
        )
    points = int(text)
    if points == 0 or abs(points) > MAX_POINTS:
        raise PointsRefused(
            f"--points is from -{MAX_POINTS} to {MAX_POINTS}, not 0 (leave it out for none): "
            f"points to the player, negative for a deduction; {points} was given."
        )
    return points


def points_text(points: int, clause: str = "") -> str:
    """'The director adds 30 points to the player's score (CLAUSE).' or '... takes ... off'."""
    noun = "point" if abs(points) == 1 else "points"
    cited = f" ({clause})" if clause else ""
    if points > 0:
        return f"The director adds {points} {noun} to the player's score{cited}."
    return f"The director takes {-points} {noun} off the player's score{cited}."


def sentence_in(consequence: str) -> str:
    """The director's points as a row's consequence says them ("" if it says none): kept when
    a recount or a waiver words the rest of it again."""
    for start in (" The director adds ", " The director takes "):
        at = consequence.find(start)
        if at >= 0:
            return consequence[at + 1 :]
    return ""


def kept(text: str, penalty: dict | None, points: int, sentence: str) -> tuple[str, dict | None]:
    """A consequence and penalty worded again (a recount, a waiver), the director's points
    added back."""
    if not points or penalty is None:
        return text, penalty
    added = {**penalty, "points_to_player": int(penalty.get("points_to_player") or 0) + points}
    return f"{text} {sentence}".rstrip(), added


def with_points(result: Consequence, points: int | None, clause: str = "") -> Consequence:
    """`result` with the director's points to the player added (unchanged for None)."""
    if not points:
        return result
    return replace(
        result,
        text=f"{result.text} {points_text(points, clause)}",
        points_to_player=result.points_to_player + points,
    )
