"""What decides a challenge: its outcome as the voids, reissues, rulings and opinions that refer
to it give it, before any waiver, free challenge or recount (outcomes.py adds those).

In order of precedence:
1. a `void` row (withdrawn, rescinded, late, entered by mistake): VOID, no penalty to anyone,
   unless a later `revocation` row revoked it (a void given on the wrong row);
2. a challenge that names it as the one it replaces (a reissued slip): VOID, reissued;
3. the director's ruling: its verdict and consequence;
4. a second opinion that is final (it agrees, a word judge's dictionary check closed a
   referral, or a third opinion decided two of three: NSA X.G): its verdict and consequence,
   still pending while a later opinion contests it and no director has ruled;
5. otherwise the challenge as judged (pending while a flagged second opinion awaits a ruling).
`game.earlier_unsuccessful` counts challenges by the same order, in SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adjudicator.judging import director_points
from adjudicator.judging.corrections.opinion_chain import decides_two_of_three
from adjudicator.judging.rules import void_consequence
from adjudicator.record.journal import journal
from adjudicator.record.journal.tallies import is_flagged

VOID = "VOID"
AS_JUDGED = "as judged"
AWAITING = "awaiting the director's ruling"


@dataclass(frozen=True)
class Outcome:
    """What a challenge finally means, and which row says so."""

    verdict: str  # ACCEPTABLE, UNACCEPTABLE, REFER (a referral still open) or VOID
    consequence: str
    penalty: dict[str, Any] | None
    decided_by: int  # the row that gives this outcome (the challenge itself if nothing else)
    how: str  # "as judged", "ruling #20", "void #15: <reason>", "reissued as #16", ...
    pending: bool = False  # a flagged second opinion waits for the director's ruling
    word_count: int = 0  # the words the deciding row counted (a per-word penalty's)
    shown_penalty: dict[str, Any] | None = None  # set when a recount changed what was shown
    points: int = 0  # the director's points to the player in `penalty` (director_points.py)

    def to_api(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "consequence": self.consequence,
            "penalty": self.penalty,
            "decided_by": self.decided_by,
            "how": self.how,
            "pending": self.pending,
        }

    @property
    def penalty_changed(self) -> bool:
        """True when a recount changed the penalty the deciding row recorded (and showed)."""
        return self.shown_penalty is not None


def decided(challenge: journal.Entry, follow_ups: Sequence[journal.Entry]) -> Outcome:
    """The outcome the voids, reissues, rulings and opinions give, before any waiver or free
    challenge."""
    latest: dict[str, journal.Entry] = {}
    final_opinion = None
    pending = False
    for row in sorted(follow_ups, key=lambda e: e.id):
        if row.kind == "second-opinion":
            if is_flagged(row):
                pending = True
            else:
                final_opinion = row
                pending = pending and not decides_two_of_three(row)  # NSA X.G
        elif row.kind == "challenge":
            latest.setdefault("challenge", row)  # the first reissue decides
        elif row.kind == "void":
            latest.setdefault("void", row)  # the void in effect, until revoked
        elif row.kind == "revocation":
            latest.pop("void", None)
        elif row.kind == "ruling":
            latest["ruling"] = row
    if "void" in latest:
        void = latest["void"]
        return Outcome(
            VOID,
            void.consequence,
            void.penalty_numbers(),
            void.id,
            f"void #{void.id}: {void.note}",
            word_count=0,
        )
    if "challenge" in latest:
        reissue = latest["challenge"]
        replaced = void_consequence(f"Reissued as #{reissue.id}: this one counts for nothing.")
        return Outcome(
            VOID, replaced.text, replaced.penalty(), reissue.id, f"reissued as #{reissue.id}"
        )
    if "ruling" in latest:
        ruling = latest["ruling"]
        return _from(ruling, f"ruling #{ruling.id} by {ruling.actor}")
    majority = final_opinion is not None and decides_two_of_three(final_opinion)
    if final_opinion is not None and final_opinion.verdict != challenge.verdict:
        what = "third opinion" if majority else "second opinion"
        how = f"{what} #{final_opinion.id} by {final_opinion.actor}"
        how += ", two of three (NSA X.G)" if majority else ""
        if pending:  # a later opinion contests it: it stands until the director rules
            how += f"; {AWAITING}"
        return _from(final_opinion, how, pending)
    how = AWAITING if pending else AS_JUDGED
    if majority and not pending:
        how = f"as judged: third opinion #{final_opinion.id} agreed, two of three (NSA X.G)"
    return Outcome(
        challenge.verdict,
        challenge.consequence,
        challenge.penalty_numbers(),
        challenge.id,
        how,
        pending,
        challenge.word_count,
    )


def _from(row: journal.Entry, how: str, pending: bool = False) -> Outcome:
    points = row.detail(director_points.DETAIL)
    return Outcome(
        row.verdict,
        row.consequence,
        row.penalty_numbers(),
        row.id,
        how,
        pending,
        word_count=row.word_count,
        points=points if isinstance(points, int) else 0,
    )
