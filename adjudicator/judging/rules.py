"""Challenge rules and what a verdict costs under each (WESPA 3.10.15, NASPA 6.2, MSA 13).

An UNACCEPTABLE verdict always takes the play off for zero. An ACCEPTABLE one may cost the
challenger: nothing, points per word or per turn (added to the player's score), or the turn.
Per-word penalties need only the number of words challenged. The non-standard systems of
WESPA 3.10.15(c) also need how many unsuccessful challenges the challenger made earlier in
the same game; that count is given to `consequence`, never looked up here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from adjudicator.errors import AdjudicatorError
from adjudicator.judging.verdict import Verdict

MIN_POINTS, MAX_POINTS = 1, 50
IMPROPER_LOOKUP_POINTS = 10  # NASPA 6.2, "Improper Lookups"
_POINTS_RULE = re.compile(r"([1-9][0-9]?)-per-(word|turn)")
# WESPA 3.10.15(c)(iii): "5-5-10-20-30 point (or similar)"; (c)(iv): time penalties.
_LADDER_RULE = re.compile(r"ladder((?:-[0-9]{1,3}){1,10})")
_SECONDS_RULE = re.compile(r"([0-9]{1,3})-seconds")
MAX_LADDER_STEPS, MAX_LADDER_POINTS, MAX_SECONDS = 10, 100, 300


@dataclass(frozen=True)
class Step:
    """What one unsuccessful challenge costs under a rule that counts them."""

    points: int = 0
    loses_turn: bool = False


@dataclass(frozen=True)
class Rule:
    name: str
    title: str
    points: int = 0
    per_word: bool = False
    loses_turn: bool = False
    # For the rules that count (WESPA 3.10.15(c)): the 1st, 2nd, ... unsuccessful challenge's
    # cost in one game; the last step holds for every later one.
    ladder: tuple[Step, ...] = ()
    seconds: int = 0  # WESPA 3.10.15(c)(iv): the challenger's clock loses this many seconds

    @property
    def counts_earlier_challenges(self) -> bool:
        """True when the cost depends on the challenger's earlier unsuccessful challenges."""
        return bool(self.ladder)

    @property
    def non_standard(self) -> bool:
        """A system of WESPA 3.10.15(c): WESPA may treat the event as non-ratable (d)."""
        return bool(self.ladder or self.seconds)

    def step(self, earlier_unsuccessful: int) -> Step:
        """The cost of an unsuccessful challenge after `earlier_unsuccessful` others."""
        if self.ladder:
            return self.ladder[min(earlier_unsuccessful, len(self.ladder) - 1)]
        return Step(self.points, self.loses_turn)


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def _points_rule(points: int, per: str) -> Rule:
    if per == "word":
        return Rule(f"{points}-per-word", f"{_points(points)} per word challenged", points, True)
    return Rule(f"{points}-per-turn", f"{_points(points)} per challenged turn", points)


NON_STANDARD = (
    Rule(
        "dingle",
        "Dingle: no penalty for a player's first unsuccessful challenge in a game, "
        "then loss of turn",
        ladder=(Step(), Step(loses_turn=True)),
    ),
    Rule(
        "5-then-10",
        "5 points for a player's first unsuccessful challenge in a game, then 10",
        ladder=(Step(5), Step(10)),
    ),
    Rule(
        "escalating",
        "Escalating: 5, 5, 10, 20, 30, then 30 points for each unsuccessful challenge "
        "by a player in a game",
        ladder=(Step(5), Step(5), Step(10), Step(20), Step(30)),
    ),
)

# The rules offered by name in lists and forms; any N-per-word or N-per-turn (N from 1 to 50)
# is accepted too (MSA 13(i): "x-point penalty challenge").
RULES: dict[str, Rule] = {
    rule.name: rule
    for rule in (
        Rule("single", "Single challenge: no penalty for an unsuccessful challenge"),
        Rule(
            "double", "Double challenge: an unsuccessful challenger loses the turn", loses_turn=True
        ),
        _points_rule(5, "word"),
        _points_rule(5, "turn"),
        _points_rule(10, "word"),
        _points_rule(10, "turn"),
        *NON_STANDARD,
    )
}


class UnknownRule(AdjudicatorError):
    """No challenge rule has that name."""


@dataclass(frozen=True)
class Consequence:
    """What the verdict means for the two players, as text and numbers."""

    text: str
    play_stands: bool | None  # None while a referral is open, or for a void challenge
    points_to_player: int = 0
    challenger_loses_turn: bool = False
    points_to_challenger: int = 0  # negative: points the challenger loses (NASPA 6.2)
    seconds_to_challenger: int | None = None  # a time rule's: seconds off the challenger's clock
    waived: bool = False  # the director's free challenge (waivers.py): no penalty to anyone

    def penalty(self) -> dict[str, bool | int | None]:
        """The consequence as numbers, as the API's `penalty` object gives it (a time rule's
        `seconds_to_challenger`, and `waived`, only where they apply)."""
        numbers: dict[str, bool | int | None] = {
            "play_stands": self.play_stands,
            "points_to_player": self.points_to_player,
            "challenger_loses_turn": self.challenger_loses_turn,
            "points_to_challenger": self.points_to_challenger,
        }
        if self.seconds_to_challenger is not None:
            numbers["seconds_to_challenger"] = self.seconds_to_challenger
        if self.waived:
            numbers["waived"] = True
        return numbers

    def penalty_json(self) -> str:
        """The penalty object as the journal stores it: canonical JSON."""
        return json.dumps(self.penalty(), sort_keys=True, separators=(",", ":"))


def get_rule(name: str) -> Rule:
    """The rule called `name`, or UnknownRule listing the names there are."""
    name = (name or "").strip()
    if name in RULES:
        return RULES[name]
    match = _POINTS_RULE.fullmatch(name)
    if match and MIN_POINTS <= int(match.group(1)) <= MAX_POINTS:
        return _points_rule(int(match.group(1)), match.group(2))
    match = _LADDER_RULE.fullmatch(name)
    if match:
        steps = [int(text) for text in match.group(1)[1:].split("-")]
        if all(
            1 <= n <= MAX_LADDER_POINTS and str(n) == t
            for n, t in zip(steps, match.group(1)[1:].split("-"), strict=True)
        ):
            return _ladder_rule(steps)
    match = _SECONDS_RULE.fullmatch(name)
    if match and 1 <= int(match.group(1)) <= MAX_SECONDS and not match.group(1).startswith("0"):
        seconds = int(match.group(1))
        return Rule(
            f"{seconds}-seconds",
            f"Time penalty: the challenger's clock loses {seconds} "
            f"{'second' if seconds == 1 else 'seconds'} for each "
            "unsuccessful challenge",
            seconds=seconds,
        )
    raise UnknownRule(
        f"Unknown challenge rule {name!r}: choose single, double, N-per-word or N-per-turn "
        f"(N from {MIN_POINTS} to {MAX_POINTS}, such as 5-per-word), "
        f"{', '.join(r.name for r in NON_STANDARD)}, ladder-A-B-C... (1 to "
        f"{MAX_LADDER_STEPS} steps of 1 to {MAX_LADDER_POINTS} points, such as "
        f"ladder-5-5-10-20-30) or N-seconds (N from 1 to {MAX_SECONDS})."
    )


def _ladder_rule(steps: list[int]) -> Rule:
    """`ladder-A-B-C...`: A points for the first unsuccessful challenge in a game, B for the
    second, ...; the last step repeats (WESPA 3.10.15(c)(iii): "or similar")."""
    listed = ", ".join(str(n) for n in steps)
    return Rule(
        "ladder-" + "-".join(str(n) for n in steps),
        f"Ladder: {listed} points for a player's unsuccessful challenges in a game, then "
        f"{steps[-1]} for each later one",
        ladder=tuple(Step(n) for n in steps),
    )


def consequence(
    rule: Rule,
    verdict: Verdict,
    word_count: int,
    earlier_unsuccessful: int = 0,
    *,
    final_play: bool = False,
    final_play_free: bool = False,
) -> Consequence:
    """The consequence of `verdict` under `rule` for a challenge of `word_count` words.

    `earlier_unsuccessful` counts the challenger's unsuccessful challenges earlier in the
    same game; only the rules of WESPA 3.10.15(c) use it. `final_play`: the challenged play
    went out, so no turn is kept or lost; with `final_play_free` (school rule 12) an
    unsuccessful challenge of it costs nothing.
    """
    seconds = 0 if rule.seconds else None
    if verdict is Verdict.UNACCEPTABLE:
        return Consequence(
            "The play comes off the board and scores zero.",
            play_stands=False,
            seconds_to_challenger=seconds,
        )
    if verdict is Verdict.REFER:
        return Consequence(
            "Call a word judge: a dictionary check is needed before the play is ruled on.",
            play_stands=None,
            seconds_to_challenger=seconds,
        )
    if final_play and final_play_free:
        return Consequence(
            "The play stands; no penalty for challenging the final play of the game "
            "(school rule 12).",
            play_stands=True,
            seconds_to_challenger=seconds,
        )
    step = rule.step(earlier_unsuccessful)
    prefix = "The play stands; "
    if rule.counts_earlier_challenges:
        prefix += f"the challenger's {_ordinal(earlier_unsuccessful + 1)} unsuccessful challenge "
        prefix += "in this game: "
    if rule.seconds:
        keeps = "." if final_play else "; the challenger keeps the turn."
        return Consequence(
            f"{prefix}the challenger's clock loses {rule.seconds} seconds{keeps}",
            play_stands=True,
            seconds_to_challenger=rule.seconds,
        )
    if step.loses_turn and final_play:  # the game is over: no turn to lose
        return Consequence(prefix.rstrip(": ;") + ".", play_stands=True)
    if step.loses_turn:
        return Consequence(
            prefix + "the challenger loses their turn.",
            play_stands=True,
            challenger_loses_turn=True,
        )
    keeps = "." if final_play else "; the challenger keeps the turn."
    if step.points and rule.per_word:
        points = step.points * word_count
        noun = "word" if word_count == 1 else "words"
        per_word = f"{_points(step.points)} x {word_count} {noun}"
        return Consequence(
            f"{prefix}{per_word}: the player adds {points}{keeps}",
            play_stands=True,
            points_to_player=points,
        )
    if step.points:
        return Consequence(
            f"{prefix}the player adds {_points(step.points)}{keeps}",
            play_stands=True,
            points_to_player=step.points,
        )
    return Consequence(f"{prefix}no penalty{keeps}", play_stands=True)


def waived_consequence(rule: Rule, ref: str = "", named: bool = False) -> Consequence:
    """An unsuccessful challenge whose penalty the director waived: a free challenge, named by
    the rulebook (NSA VI.C) or at the director's discretion (`ref`: the rulebook's clause)."""
    how = "a free challenge" if named else "a free challenge at the director's discretion"
    how += f", {ref}" if ref else ""
    return Consequence(
        f"The play stands; the director waived the penalty ({how}): no penalty to either player.",
        play_stands=True,
        seconds_to_challenger=0 if rule.seconds else None,
        waived=True,
    )


def granted_consequence(rule: Rule, grant_id: int, how: str) -> Consequence:
    """An unsuccessful challenge that used free challenge `grant_id`, which the director
    granted its challenger (`how`: NSA VI.C, or the director's discretion and its clause)."""
    return Consequence(
        f"The play stands; free challenge #{grant_id}, granted by the director ({how}): no "
        "penalty to either player.",
        play_stands=True,
        seconds_to_challenger=0 if rule.seconds else None,
        waived=True,
    )


def costs_something(result: Consequence) -> bool:
    """True when an unsuccessful challenge's consequence charges the challenger anything."""
    return bool(
        result.points_to_player
        or result.challenger_loses_turn
        or result.seconds_to_challenger
        or result.points_to_challenger
    )


def with_improper_lookup(result: Consequence) -> Consequence:
    """`result` plus NASPA 6.2's penalty for looking up one play's words separately."""
    return Consequence(
        f"{result.text} Improper separate look-ups (NASPA 6.2): the challenger loses "
        f"{IMPROPER_LOOKUP_POINTS} points.",
        play_stands=result.play_stands,
        points_to_player=result.points_to_player,
        challenger_loses_turn=result.challenger_loses_turn,
        points_to_challenger=result.points_to_challenger - IMPROPER_LOOKUP_POINTS,
        seconds_to_challenger=result.seconds_to_challenger,
    )


def void_consequence(text: str) -> Consequence:
    """A void challenge: no verdict applies and nobody is penalised."""
    return Consequence(text, play_stands=None)


def _ordinal(n: int) -> str:
    if n == 1:
        return "first"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
