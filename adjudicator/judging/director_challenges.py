"""The challenges the director decides: a play's placement, and an exchange's legality.

Not every challenge is a word look-up. WESPA 3.10.16 lets a player challenge "a turn on the
grounds that a word has been placed illegally" (the centre square missed on the opening play,
tiles that do not all form part of one word, a diagonal word, a word beyond the 15x15 grid, a
misoriented word), and 3.10.17 "the legality of an exchange on the grounds that fewer than seven
tiles remain in the bag"; "the Tournament Director" adjudicates both, and "There is no penalty
for an unsuccessful challenge" (3.10.16(c), 3.10.17(c)). The other rulebooks have their own
clauses (PLACEMENT, EXCHANGE below), each quoted from its text in ../shared/seeds.

The director's decision is a journal row of its own kind (`placement` or `exchange`): no words
and no lexicon, the outcome (UPHELD or DISMISSED), the reason, the clause. It carries no
penalty to the challenger, and is never counted among a player's unsuccessful challenges (the
rules that count them read `challenge` rows only: game.py). Where the rulebook penalises the
offender, the row says what the rulebook gives, for the scorecard (`details.offender`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.judging import director_points
from adjudicator.judging.corrections.follow_up import NO_WORDS
from adjudicator.judging.reasons import check_reason
from adjudicator.judging.rulebooks import get_rulebook
from adjudicator.judging.rules import Consequence
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal

KINDS = ("placement", "exchange")
OUTCOMES = {"upheld": "UPHELD", "dismissed": "DISMISSED"}
NO_PENALTY = (
    "No penalty to the challenger, and it is not counted among their unsuccessful challenges."
)


class DirectorChallengeRefused(AdjudicatorError):
    """A director's challenge cannot be recorded as asked; the message says why."""


@dataclass(frozen=True)
class Decided:
    """One rulebook's word on one kind of challenge the director decides."""

    clause: str  # what the row cites ("" with no rulebook named)
    upheld: str  # what follows when the director upholds the challenge
    dismissed: str  # what follows when the director dismisses it
    offender: str = ""  # what the rulebook gives the offender, for the scorecard (upheld only)
    points_clause: str = ""  # the clause that names the offender's points (else the rulebook's)


_NONE = {
    "placement": Decided("", "the play comes off the board.", "the play stands."),
    "exchange": Decided("", "the exchange is not allowed.", "the exchange stands."),
}

RULINGS: dict[str, dict[str, Decided]] = {
    "wespa": {
        "placement": Decided(
            "WESPA 3.10.16",
            "the turn is successfully challenged, and the player loses that turn (3.10.15(a)).",
            "the play stands; there is no penalty for an unsuccessful challenge (3.10.16(c)).",
        ),
        "exchange": Decided(
            "WESPA 3.10.17",
            "the turn is successfully challenged, and the player loses that turn (3.10.15(a)).",
            "the exchange stands; there is no penalty for an unsuccessful challenge (3.10.17(c)).",
        ),
    },
    "naspa": {
        "placement": Decided(
            "NASPA 4.7 and 4.8",
            "the play is illegal: its tiles come off the board and the player scores zero for "
            'the turn (4.8; 4.7: a first word that does not cover the center square "can be '
            'challenged off the board").',
            "the play stands; these rules set no penalty for the challenger.",
            "NASPA 4.8: the offender scores zero for the turn and removes the illegally placed "
            "tiles (newly drawn tiles go back as 4.8 says); if the opponent has already played "
            "and restarted the offender's clock, the offender still scores zero for the turn.",
        ),
        "exchange": Decided(
            "NASPA 4.11(a)",
            "the exchange with fewer than 7 tiles in the bag is illegal: the offender scores "
            "zero (illegal play).",
            "the exchange stands; 4.11(a) sets no penalty for the challenger.",
            "NASPA 4.11(a): the offender scores zero for the turn. If no new tile reached the "
            "offender's rack and no original tile went into the bag, the turn counts as a pass; "
            "otherwise the opponent sees the rack, the tiles to be traded and the bag, and has "
            "one minute to choose which 7 tiles the offender keeps. If the opponent has already "
            "played and restarted the offender's clock, subtract 30 from the offender's score.",
            'NASPA 4.11(a): "If your opponent has already played and restarted your clock, '
            'subtract 30 from your score"',
        ),
    },
    "nsa-1998": {
        "placement": Decided(
            "NSA IV.B, IV.D and IV.F.1",
            "the play is successfully challenged off the board, regardless of the words' "
            "acceptability (IV.B: the center square missed; IV.D: tiles that do not all help to "
            "spell one main word, or a diagonal word; IV.F.1: a misoriented word).",
            "the play stands; these rules set no penalty for the challenger (XII: the director "
            "decides situations the rules do not describe).",
        ),
        "exchange": Decided(
            "NSA IV.H.3",
            "the player who exchanged with fewer than seven tiles in the pool is penalized "
            "(IV.H.3).",
            "the exchange stands; these rules set no penalty for the challenger (XII: the "
            "director decides situations the rules do not describe).",
            "NSA IV.H.3: the opponent looks at all the tiles in the pool and on the player's "
            "rack, and chooses within one minute which seven tiles the player shall have; if it "
            "was noticed after the opponent's timer started but before the player drew new "
            "tiles, the player loses the turn without exchanging, and no further penalty.",
        ),
    },
    "msa": {
        "placement": Decided(
            "MSA 20",
            "the challenge is upheld; the director's decision is final (MSA 20).",
            "the play stands; the director's decision is final (MSA 20).",
        ),
        "exchange": Decided(
            "MSA 10.1 and 20",
            "an exchange needs at least 7 tiles in the bag (MSA 10.1); the director's decision "
            "is final (MSA 20).",
            "the exchange stands; the director's decision is final (MSA 20).",
        ),
    },
    "school-2011": {
        "placement": Decided(
            "school rules 1 and 3",
            "the play breaks school rule 1 (the first word covers the center square) or rule 3 "
            "(one row, one complete word, no diagonal words); final decisions on all rulings "
            "are at the director's discretion (the closing note).",
            "the play stands; final decisions on all rulings are at the director's discretion "
            "(the closing note).",
        ),
        "exchange": Decided(
            "school rule 8",
            'tiles cannot be exchanged with fewer than seven tiles in the bag, and "a penalty '
            "applies\" (school rule 8); penalty points are the director's to assess (rule 36).",
            "the exchange stands; final decisions on all rulings are at the director's "
            "discretion (the closing note).",
            'school rule 8: "a penalty applies"; rule 36: penalty points may be assessed by the '
            "director.",
            'school rules 8 and 36: "a penalty applies"; "Penalty points may be assessed by the '
            'Director for the violation of these rules"',
        ),
    },
}


def decided(rulebook: str | None, kind: str) -> Decided:
    """The rulebook's word on `kind` (placement or exchange); with no rulebook, no clause."""
    return RULINGS.get(rulebook or "", _NONE)[kind]


def check_kind(kind: str | None) -> str:
    """`placement` or `exchange`, else a refusal naming them."""
    kind = (kind or "").strip().lower()
    if kind not in KINDS:
        raise DirectorChallengeRefused(
            f"The challenges the director decides are {' and '.join(KINDS)}: a play's placement "
            "(the centre square, one word, a diagonal word, beyond the grid, misoriented) or an "
            "exchange with fewer than seven tiles in the bag."
        )
    return kind


def check_outcome(outcome: str | None) -> str:
    """UPHELD or DISMISSED, from `upheld` or `dismissed` (any case)."""
    found = OUTCOMES.get((outcome or "").strip().lower())
    if found is None:
        raise DirectorChallengeRefused(
            "The director's decision is upheld (the challenge succeeds) or dismissed (it fails)."
        )
    return found


def consequence(rulebook: str | None, kind: str, outcome: str) -> Consequence:
    """What the decision means, citing the rulebook's own clause: never a penalty to the
    challenger."""
    word = decided(rulebook, kind)
    what = "The play's placement" if kind == "placement" else "The exchange"
    cited = f" ({word.clause})" if word.clause else ""
    if outcome == "UPHELD":
        text = f"{what} was challenged, and the director upheld the challenge{cited}: {word.upheld}"
    else:
        text = f"{what} was challenged, and the director dismissed it{cited}: {word.dismissed}"
    return Consequence(f"{text} {NO_PENALTY}", play_stands=outcome != "UPHELD")


def record(
    db: Database,
    tournament: str,
    rulebook: str | None,
    kind: str,
    outcome: str,
    reason: str,
    *,
    actor: str,
    station: str,
    game: dict[str, Any],
    points: int | None = None,
) -> journal.Entry:
    """Journal the director's decision on a placement or exchange challenge at `tournament`
    (under `rulebook`); `game`: table, round, challenger, player and, for a linked game, its
    division and players; `points`: the director's points to the player whose play or exchange
    was challenged (negative for a deduction: NASPA 4.11(a)'s 30), citing the clause that names
    them, else the rulebook's own (director_points.py)."""
    kind, outcome = check_kind(kind), check_outcome(outcome)
    reason = check_reason(reason, "director's decision")
    word = decided(rulebook, kind)
    clause = word.points_clause or get_rulebook(rulebook).points_clause
    effect = director_points.with_points(consequence(rulebook, kind, outcome), points, clause)
    details: dict[str, Any] = {"clause": word.clause} if word.clause else {}
    if outcome == "UPHELD" and word.offender:
        details["offender"] = word.offender
    if points:
        details[director_points.DETAIL] = points
    return journal.append(
        db,
        kind=kind,
        tournament=tournament,
        kiosk=station,
        **NO_WORDS,
        verdict=outcome,
        consequence=effect.text,
        penalty=effect.penalty_json(),
        actor=actor,
        note=reason,
        details=json.dumps(details, sort_keys=True) if details else None,
        **{name: game.get(name) for name in ("table", "round", "challenger", "player")},
        division=game.get("division"),
        players=game.get("players"),
    )
