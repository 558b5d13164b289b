"""What a kiosk says about a verdict and a rule, as phrases a catalogue translates.

The journal keeps each consequence in English (rules.consequence). A kiosk speaks its
tournament's language (ARCHITECTURE.md, "Languages"), so it says the same things from the
row's numbers, each once: the verdict word; its gloss, the play's fate; and the consequence,
only what the gloss has not said (the penalty, whose turn it is). Each phrase is an English
msgid with named fields; the web layer looks it up in the gettext catalogues (Babel extracts the
`N_` and `NP_` marks here) and fills the fields in.
"""

from __future__ import annotations

import re
from typing import Any

from adjudicator.judging.rules import Rule, UnknownRule, get_rule
from adjudicator.wording import N_, NP_, Phrase


def _plural(marked: tuple[str, str], n: int, **fields: Any) -> Phrase:
    return Phrase.counted(marked, n, **fields)


VERDICT_WORDS = {
    "ACCEPTABLE": N_("ACCEPTABLE"),
    "UNACCEPTABLE": N_("UNACCEPTABLE"),
    "REFER": N_("REFER"),
}
GLOSSES = {
    "ACCEPTABLE": N_("the play stands"),
    "UNACCEPTABLE": N_("the play comes off the board"),
    "REFER": N_("call a word judge"),
}
_UNACCEPTABLE_DETAIL = N_("It scores zero, and the turn passes to the challenger.")
_REFER_DETAIL = N_("A dictionary check is needed before the play is ruled on.")
_COUNTED = N_("Unsuccessful challenge number {n} by the challenger in this game.")
_LOSES_TURN = N_("The challenger loses their turn.")
_NO_PENALTY = N_("No penalty: the challenger keeps the turn.")
_PER_WORD = NP_(
    "{n} word challenged, {each} each: the player adds {points}; the challenger keeps the turn.",
    "{n} words challenged, {each} each: the player adds {points}; the challenger keeps the turn.",
)
_ADDS = NP_(
    "The player adds {n} point; the challenger keeps the turn.",
    "The player adds {n} points; the challenger keeps the turn.",
)
_PER_WORD_FINAL = NP_(
    "{n} word challenged, {each} each: the player adds {points}.",
    "{n} words challenged, {each} each: the player adds {points}.",
)
_ADDS_FINAL = NP_("The player adds {n} point.", "The player adds {n} points.")
_NO_PENALTY_FINAL = N_("No penalty.")
_CLOCK = NP_(
    "The challenger's clock loses {n} second; the challenger keeps the turn.",
    "The challenger's clock loses {n} seconds; the challenger keeps the turn.",
)
_CLOCK_FINAL = NP_(
    "The challenger's clock loses {n} second.", "The challenger's clock loses {n} seconds."
)
_WAIVED = N_(
    "The director waived the penalty (a free challenge, {clause}): no penalty to either player."
)
_WAIVED_DISCRETION = N_(
    "The director waived the penalty (a free challenge at the director's discretion, {clause}): "
    "no penalty to either player."
)
_WAIVED_PLAIN = N_(
    "The director waived the penalty (a free challenge at the director's discretion): no "
    "penalty to either player."
)
_GRANTED = N_(
    "Free challenge #{grant}, granted by the director ({clause}): no penalty to either player."
)
_GRANTED_DISCRETION = N_(
    "Free challenge #{grant}, granted at the director's discretion ({clause}): no penalty to "
    "either player."
)
_GRANTED_PLAIN = N_(
    "Free challenge #{grant}, granted at the director's discretion: no penalty to either player."
)
# rules.granted_consequence's English: the grant's number and the clause it rests on.
_GRANT = re.compile(
    r"free challenge #(?P<grant>\d+), granted by the director \((?P<discretion>at the "
    r"director's discretion)?(?:, )?(?P<clause>[^)]*(?:\([^)]*\)[^)]*)*)\): no penalty"
)
# rules.waived_consequence's English: the clause the waiver cites, if any.
_WAIVER = re.compile(
    r"waived the penalty \(a free challenge(?P<discretion> at the director's discretion)?"
    r"(?:, (?P<clause>.*?))?\): no penalty"
)
_FINAL_FREE = N_("No penalty for challenging the final play of the game (school rule 12).")
_CHALLENGER_LOSES = NP_("The challenger loses {n} point.", "The challenger loses {n} points.")
_ORDINAL = re.compile(r"the challenger's (first|(\d+)(?:st|nd|rd|th)) unsuccessful challenge")


def verdict_phrases(entry: Any) -> dict[str, Phrase | list[Phrase]]:
    """The verdict word, its gloss and the consequence's phrases for a challenge row (any
    object with verdict, rule, word_count, consequence and penalty_numbers())."""
    verdict = entry.verdict
    if verdict not in VERDICT_WORDS:
        raise ValueError(f"not a verdict: {verdict!r}")
    return {
        "word": Phrase(VERDICT_WORDS[verdict]),
        "gloss": Phrase(GLOSSES[verdict]),
        "consequence": consequence_phrases(entry),
    }


def consequence_phrases(entry: Any) -> list[Phrase]:
    """What the consequence adds to the gloss, from the row's numbers and rule."""
    if entry.verdict == "REFER":
        return [Phrase(_REFER_DETAIL)]
    penalty = entry.penalty_numbers() or {}
    phrases: list[Phrase] = []
    if entry.verdict == "UNACCEPTABLE":
        phrases.append(Phrase(_UNACCEPTABLE_DETAIL))
    elif penalty.get("waived"):
        phrases.append(_waived(entry.consequence or ""))
    elif "school rule 12" in (entry.consequence or ""):
        phrases.append(Phrase(_FINAL_FREE))
    else:
        phrases.extend(_acceptable(entry, penalty))
    lost = -int(penalty.get("points_to_challenger") or 0)
    if lost > 0:
        phrases.append(_plural(_CHALLENGER_LOSES, lost))
    return phrases


def _waived(english: str) -> Phrase:
    """The free challenge as its row words it, citing the same clause: a waiver, or a grant
    the challenger held (free_challenges.py)."""
    granted = _GRANT.search(english)
    if granted:
        grant, clause = int(granted.group("grant")), granted.group("clause")
        if granted.group("discretion"):
            if clause:
                return Phrase.of(_GRANTED_DISCRETION, grant=grant, clause=clause)
            return Phrase.of(_GRANTED_PLAIN, grant=grant)
        return Phrase.of(_GRANTED, grant=grant, clause=clause)
    match = _WAIVER.search(english)
    clause = match.group("clause") if match else None
    if match and match.group("discretion"):
        return Phrase.of(_WAIVED_DISCRETION, clause=clause) if clause else Phrase(_WAIVED_PLAIN)
    return Phrase.of(_WAIVED, clause=clause or "NSA VI.C")  # the third round's wording


def _acceptable(entry: Any, penalty: dict) -> list[Phrase]:
    """An unsuccessful challenge's cost: which one in the game, and points, time or the turn
    (no turn kept or lost when the challenged play ended the game)."""
    try:
        rule: Rule | None = get_rule(entry.rule)
    except UnknownRule:
        rule = None
    english = entry.consequence or ""
    final = "keeps the turn" not in english and "loses their turn" not in english
    phrases: list[Phrase] = []
    counted = _counted(english)
    if rule is not None and rule.counts_earlier_challenges and counted:
        phrases.append(Phrase(_COUNTED, fields=(("n", counted),)))
    points = int(penalty.get("points_to_player") or 0)
    seconds = int(penalty.get("seconds_to_challenger") or 0)
    if seconds:
        phrases.append(_plural(_CLOCK_FINAL if final else _CLOCK, seconds))
    elif penalty.get("challenger_loses_turn"):
        phrases.append(Phrase(_LOSES_TURN))
    elif points and rule is not None and rule.per_word and entry.word_count:
        each = points // entry.word_count
        marked = _PER_WORD_FINAL if final else _PER_WORD
        phrases.append(_plural(marked, entry.word_count, each=each, points=points))
    elif points:
        phrases.append(_plural(_ADDS_FINAL if final else _ADDS, points))
    elif not (final and english.rstrip().endswith("The play stands.")):
        phrases.append(Phrase(_NO_PENALTY_FINAL if final else _NO_PENALTY))
    return phrases


def _counted(english: str) -> int | None:
    """Which unsuccessful challenge in the game the row's English consequence says it is."""
    match = _ORDINAL.search(english or "")
    if match is None:
        return None
    return 1 if match.group(1) == "first" else int(match.group(2))


# --- rule titles, for the kiosk's status bar ------------------------------------------------

_RULE_TITLES = {
    "single": N_("Single challenge: no penalty for an unsuccessful challenge"),
    "double": N_("Double challenge: an unsuccessful challenger loses the turn"),
    "dingle": N_(
        "Dingle: no penalty for a player's first unsuccessful challenge in a game, "
        "then loss of turn"
    ),
    "5-then-10": N_("5 points for a player's first unsuccessful challenge in a game, then 10"),
    "escalating": N_(
        "Escalating: 5, 5, 10, 20, 30, then 30 points for each unsuccessful challenge "
        "by a player in a game"
    ),
}
_PER_WORD_TITLE = NP_("{n} point per word challenged", "{n} points per word challenged")
_PER_TURN_TITLE = NP_("{n} point per challenged turn", "{n} points per challenged turn")
_LADDER_TITLE = N_(
    "Ladder: {steps} points for a player's unsuccessful challenges in a game, then {last} "
    "for each later one"
)
_SECONDS_TITLE = NP_(
    "Time penalty: the challenger's clock loses {n} second for each unsuccessful challenge",
    "Time penalty: the challenger's clock loses {n} seconds for each unsuccessful challenge",
)


def rule_phrase(rule: Rule) -> Phrase:
    """The rule's title as a phrase (the English is the rule's own title)."""
    if rule.name in _RULE_TITLES:
        return Phrase(_RULE_TITLES[rule.name])
    if rule.points and not rule.ladder:
        return _plural(_PER_WORD_TITLE if rule.per_word else _PER_TURN_TITLE, rule.points)
    if rule.seconds:
        return _plural(_SECONDS_TITLE, rule.seconds)
    if rule.ladder and rule.name.startswith("ladder-"):
        steps = [step.points for step in rule.ladder]
        return Phrase.of(_LADDER_TITLE, steps=", ".join(map(str, steps)), last=steps[-1])
    return Phrase(rule.title)  # a rule added without a phrase here: its English title
