"""The director's free challenge: a challenge's penalty waived, its verdict left as decided.

NSA VI.C names a free challenge granted for later (free_challenges.py); waiving one challenge's
penalty is the Director's power under NSA XII ("reasonable decisions pertaining to any
situations not specifically described"), or, for an undesignated blank, Guideline 2 ("the
Director shall have the power to overrule the penalty for this particular challenge":
`undesignated_blank`, NSA's only). Under the other rulebooks it rests on the director's
discretion (WESPA 6.1.2(e), NASPA 1.2, MSA 20, the school rules' closing note), and the row
cites the tournament's own clause. A waiver is a row of kind `waiver` referring to
the challenge: it rules on nothing else. The verdict stays as judged, and a second opinion or the
director's review (NSA X.G) may still change it; whenever the challenge ends up unsuccessful,
it costs the challenger nothing (outcomes.py). It still counts as an unsuccessful challenge for
the rules that count them (the penalty was waived, not the challenge).
"""

from __future__ import annotations

import json
from typing import Any

from adjudicator.judging.corrections.follow_up import follow_up_fields
from adjudicator.judging.corrections.second_opinion import SecondOpinionRefused, original_of
from adjudicator.judging.corrections.voids import refuse_if_void
from adjudicator.judging.reasons import check_reason
from adjudicator.judging.rulebooks import Rulebook, rulebook_of
from adjudicator.judging.rules import Consequence
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal

WAIVED = "WAIVED"


def waive(
    db: Database,
    adjudication_id: int,
    reason: str,
    *,
    actor: str,
    station: str,
    undesignated_blank: bool = False,
) -> journal.Entry:
    """Journal the director's waiver of challenge `adjudication_id`'s penalty, citing the
    tournament's own clause (NSA Guideline 2 for an `undesignated_blank`); refused when it is
    void, or its penalty is waived already."""
    original = original_of(db, adjudication_id)
    reason = check_reason(reason, "free challenge")
    book = rulebook_of(db, original.tournament)
    if undesignated_blank and not book.blank_waiver_ref:
        raise SecondOpinionRefused(
            "Overruling the penalty of a challenge over an undesignated blank is NSA Guideline "
            f"2's: tournament {original.tournament} is not under the nsa-1998 rulebook. Leave "
            "out the undesignated blank: the waiver cites the tournament's own clause."
        )
    ref, clause = (
        (book.blank_waiver_ref, book.blank_waiver_clause)
        if undesignated_blank
        else (book.waiver_ref, book.waiver_clause)
    )
    how = _how(book.waiver_named and not undesignated_blank, clause)
    effect = Consequence(waiver_text(how), play_stands=None, waived=True)

    def guard(cur: Any) -> None:
        refuse_if_void(cur, original.id)
        earlier = waiver_of(cur, original.id)
        if earlier is not None:
            raise SecondOpinionRefused(
                f"The penalty of #{original.id} is waived already (journal row #{earlier})."
            )
        lookup = cur.execute(
            "SELECT id FROM adjudications WHERE refers_to = ? AND kind = 'ruling' "
            """AND penalty LIKE '%"points_to_challenger":-%'""",
            (original.id,),
        ).one()
        if lookup:
            raise SecondOpinionRefused(
                f"Your ruling #{lookup['id']} charged #{original.id}'s challenger for improper "
                "separate look-ups (NASPA 6.2): a free challenge charges nobody."
            )

    return journal.append(
        db,
        guard=guard,
        kind="waiver",
        **follow_up_fields(original, station),
        rule=original.rule,
        words=(),
        word_count=0,
        verdict=WAIVED,
        consequence=effect.text,
        penalty=effect.penalty_json(),
        actor=actor,
        note=f"{reason} [penalty waived: {how}]",
        details=json.dumps(
            {"ref": ref, "named": book.waiver_named and not undesignated_blank}, sort_keys=True
        ),
    )


def waiver_text(how: str) -> str:
    """What a waiver row says: the penalty waived (`how`: on which clause), the verdict and
    its review left open."""
    return (
        f"The director waived the penalty ({how}): whatever the verdict, this challenge "
        "costs the challenger nothing. The verdict stands as decided and may still be reviewed."
    )


def waiver_how(book: Rulebook) -> str:
    """How the rulebook's waiver is worded ('a free challenge at the director's discretion
    (CLAUSE)')."""
    return _how(book.waiver_named, book.waiver_clause)


def _how(named: bool, clause: str) -> str:
    if named:
        return f"a free challenge, {clause}"
    return (
        f"a free challenge at the director's discretion ({clause})"
        if clause
        else ("a free challenge at the director's discretion")
    )


def waiver_of(cur: Any, adjudication_id: int) -> int | None:
    """The id of the waiver on the challenge, if any (inside a transaction)."""
    row = cur.execute(
        "SELECT MIN(id) AS id FROM adjudications WHERE refers_to = ? AND kind = 'waiver'",
        (adjudication_id,),
    ).one()
    return row["id"] if row and row["id"] is not None else None
