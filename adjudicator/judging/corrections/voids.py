"""Voids: a challenge that counts for nothing, recorded as a row linked to it.

NSA IV.I.2 and NASPA 4.10 let a challenge be withdrawn once a misunderstood blank is cleared up
(each event's ground cites its own); NASPA 5.4 lets an outplay challenge be rescinded (only a
challenge of the play that went out, `final_play`); every rulebook bounds the time to challenge
(school rule 11, NSA X.A, MSA 12(i), WESPA 3.10.1(c), NASPA 4.6 and 7.3), so a challenge made
after it is `late` (the timing is the clock's; the void cites the tournament's own clause, or
the hall's practice with none); a challenge typed at the wrong kiosk or for the wrong game was
entered by mistake. `void` appends a row of kind `void` referring to it, with the reason and
its ground (offered only where the tournament's rulebook has it); a void of a ruled challenge
needs `over_ruling`. A void given on the wrong row is revoked by a `revocation` row.
A reissue (reissues.py) also makes the challenge it replaces count for nothing. The original
row is never changed; journal views and exports show the effective outcome.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.judging.corrections.follow_up import follow_up_fields
from adjudicator.judging.corrections.opinion_chain import HALLS_PRACTICE
from adjudicator.judging.reasons import check_reason
from adjudicator.judging.rulebooks import Rulebook, get_rulebook, rulebook_name, rulebook_of
from adjudicator.judging.rules import Consequence
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.record.journal.tallies import live_void

VOID_TEXT = "Void: this challenge counts for nothing; no penalty to either player."


@dataclass(frozen=True)
class Ground:
    """Why a challenge is void, as a rulebook has it."""

    name: str
    title: str
    text: str  # the effective consequence: what becomes of the play
    play_stands: bool | None
    rulebooks: tuple[str, ...] | None  # where it is offered (None: under every rulebook)

    def under(self, book: Rulebook) -> Ground:
        """The ground as `book` words it: citing its own clause (NSA IV.I.2 or NASPA 4.10 for
        `withdrawn`; the rulebook's time to challenge for `late`), not another's."""
        if self.name == "late":
            cited = book.late_clause or f"{HALLS_PRACTICE}: no rulebook is named"
            return replace(self, title=f"{LATE} ({cited})")
        if self.name != "withdrawn" or not book.withdraw_clause:
            return self
        return replace(self, title=f"{WITHDRAWN} ({book.withdraw_clause})")


WITHDRAWN = "withdrawn once a misunderstood blank was cleared up"
LATE = "late: made after the time to challenge had run out"
GROUNDS: dict[str, Ground] = {
    ground.name: ground
    for ground in (
        Ground(
            "withdrawn",
            f"{WITHDRAWN} (NASPA 4.10, NSA IV.I.2)",  # no rulebook named: both, as before
            "Withdrawn: the play stands and the challenge counts for nothing; no penalty to "
            "either player. Tell the players.",
            True,
            ("naspa", "nsa-1998"),
        ),
        Ground(
            "rescinded",
            "an outplay challenge rescinded: tiles found that the player going out should have "
            "drawn (NASPA 5.4)",
            "Rescinded: the outplay challenge counts for nothing; no penalty to either player. "
            "Tell the players.",
            None,
            ("naspa",),
        ),
        Ground(
            "late",
            LATE,  # each rulebook's clause (Ground.under), the hall's practice with none
            "Late: the challenge came after the time to challenge, so the play stands and the "
            "challenge counts for nothing; no penalty to either player. Tell the players.",
            True,
            None,
        ),
        Ground(
            "mistake", "entered by mistake (wrong kiosk, wrong game, a test)", VOID_TEXT, None, None
        ),
    )
}


def ground_title(db: Database, tournament: str, name: str) -> str:
    """How the tournament's rulebook words the ground `name` (citing its own clause)."""
    return GROUNDS[name].under(rulebook_of(db, tournament)).title


def grounds_for(rulebook: str | None) -> tuple[Ground, ...]:
    """The grounds a tournament under `rulebook` offers (every one when it names none), each
    worded as that rulebook cites it."""
    book = get_rulebook(rulebook)
    return tuple(
        g.under(book)
        for g in GROUNDS.values()
        if rulebook is None or g.rulebooks is None or rulebook in g.rulebooks
    )


class VoidRefused(AdjudicatorError):
    """A void or reissue cannot be recorded as asked; the message says why."""


class ReissueRefused(VoidRefused):
    """A reissue would undo a decision the players may no longer reach back to: a ruling or
    second opinion exists, or the game has moved on (the API answers 409: it conflicts)."""


class RulingIsFinal(ReissueRefused):
    """The challenge has the director's final ruling (WESPA 3.10.13, NSA X.G)."""


OVER_RULING = "[void over the director's ruling #{ruling}]"


def void(
    db: Database,
    adjudication_id: int,
    reason: str,
    *,
    actor: str,
    station: str,
    over_ruling: bool = False,
    ground: str = "mistake",
):
    """Append a `void` row for challenge `adjudication_id` on `ground` (GROUNDS, as the
    tournament's rulebook offers them); refused if it is void already, and refused when the
    director has ruled on it unless `over_ruling` (the void row then says so and the journal
    keeps both rows)."""
    reason = check_reason(reason, "void")
    original = challenge_row(db, adjudication_id)
    chosen = _check_ground(db, original, ground)
    consequence = Consequence(chosen.text, play_stands=chosen.play_stands)
    notes = {"note": reason}

    final = ruling_is_final(rulebook_of(db, original.tournament).ruling_final_clause)

    def guard(cur) -> dict:
        refuse_if_void(cur, original.id)
        ruling = ruling_of(cur, original.id)
        if ruling is not None and not over_ruling:
            raise RulingIsFinal(
                f"Adjudication #{original.id} has the director's final ruling (journal row "
                f"#{ruling}): {final}. To void it anyway, give --over-ruling (the journal keeps "
                "both rows)."
            )
        if ruling is not None:
            return {"note": f"{reason} {OVER_RULING.format(ruling=ruling)}"}
        return notes

    row = {
        "kind": "void",
        "verdict": "VOID",
        "consequence": consequence.text,
        "penalty": consequence.penalty_json(),
        "note": reason,
        "details": json.dumps({"ground": chosen.name}),
    }
    return _append_wordless(db, original, guard, station, actor, row)


def ruling_is_final(clause: str) -> str:
    """'a ruling is final (CLAUSE)', citing the tournament's own rulebook where it has one."""
    return f"a ruling is final ({clause})" if clause else "a ruling is final"


RESCIND = "NASPA 5.4"  # the one rulebook (or none named) where the ground is offered
# Why a rulebook has no such ground, where its text says so.
_NOT_OFFERED = {("wespa", "withdrawn"): "WESPA 3.10.10: a challenge may not be retracted"}


def _check_ground(db: Database, original: journal.Entry, ground: str) -> Ground:
    """The ground, if the tournament's rulebook has it (WESPA 3.10.10 allows no retraction),
    and `rescinded` only for a challenge of the final play (NASPA 5.4: an outplay challenge)."""
    book = rulebook_name(db, original.tournament)
    offered = grounds_for(book)
    chosen = GROUNDS.get((ground or "").strip().lower())
    chosen = chosen.under(get_rulebook(book)) if chosen is not None else None
    if chosen is None or chosen not in offered:
        under = f"the {book} rulebook" if book else "this tournament"
        why = _NOT_OFFERED.get((book or "", chosen.name if chosen else ""))
        raise VoidRefused(
            f"A void on the ground {ground!r} is not offered under {under}"
            f"{f' ({why})' if why else ''}: choose {' or '.join(g.name for g in offered)}."
        )
    if chosen.name == "rescinded" and not original.detail("final_play"):
        raise VoidRefused(
            f"Challenge #{original.id} was not of the play that went out (final_play): a "
            "challenge is rescinded only during an outplay challenge, when tiles are found that "
            f"the player going out should have drawn ({RESCIND}). "
            "Choose another ground."
        )
    return chosen


def challenge_row(db: Database, adjudication_id: int) -> journal.Entry:
    """The challenge `adjudication_id`, or VoidRefused saying what that id is instead."""
    entry = journal.get(db, adjudication_id)
    if entry is None:
        raise VoidRefused(f"No adjudication #{adjudication_id} in the journal: check the id.")
    if entry.kind != "challenge":
        raise VoidRefused(
            f"#{adjudication_id} is a {entry.kind}, not a challenge: only a challenge can be "
            f"void or reissued (the challenge is #{entry.refers_to})."
        )
    return entry


def ruling_of(cur: Any, adjudication_id: int) -> int | None:
    """The id of the director's ruling on the challenge, if any (inside a transaction)."""
    rows = _rows_referring(cur, adjudication_id, "'ruling'")
    return rows[0]["id"] if rows else None


def _rows_referring(cur: Any, adjudication_id: int, kinds: str) -> list:
    """The rows of the `kinds` (an SQL list of quoted kinds) that refer to the row, by id."""
    return cur.execute(
        f"SELECT id, kind FROM adjudications WHERE refers_to = ? AND kind IN ({kinds}) ORDER BY id",
        (adjudication_id,),
    ).all()


def live_void_row(cur: Any, adjudication_id: int) -> dict | None:
    """The row that makes the challenge void now (a reissue, or a void not revoked), if any."""
    rows = _rows_referring(cur, adjudication_id, "'void', 'challenge', 'revocation'")
    live = live_void(rows)
    return next((row for row in rows if row["id"] == live), None)


def refuse_if_void(cur: Any, adjudication_id: int) -> None:
    """Raise VoidRefused if the challenge is void already or was reissued (inside a transaction)."""
    row = live_void_row(cur, adjudication_id)
    if row is None:
        return
    if row["kind"] == "void":
        raise VoidRefused(
            f"Adjudication #{adjudication_id} is already void (journal row #{row['id']}): "
            "it counts for nothing already."
        )
    raise VoidRefused(
        f"Adjudication #{adjudication_id} is already reissued (journal row #{row['id']}): "
        f"it counts for nothing already; #{row['id']}, the reissue, is the challenge now."
    )


def refuse_if_void_now(db: Database, adjudication_id: int) -> None:
    """refuse_if_void in a transaction of its own: before anything else is asked of a
    correction (a reissued challenge is #N's now, whatever the confirmation would say)."""
    with db.transaction() as cur:
        refuse_if_void(cur, adjudication_id)


def revoke(db: Database, adjudication_id: int, reason: str, *, actor: str, station: str):
    """Revoke the void in effect on challenge `adjudication_id` (a void given on the wrong row):
    a `revocation` row naming it; the challenge counts again as it stood before the void."""
    reason = check_reason(reason, "revocation")
    original = challenge_row(db, adjudication_id)

    def guard(cur) -> dict:
        row = live_void_row(cur, original.id)
        if row is None or row["kind"] != "void":
            what = "was reissued: a reissue is not revoked" if row else "is not void"
            raise VoidRefused(f"Adjudication #{original.id} {what}; nothing to revoke.")
        return {
            "details": json.dumps({"revokes": row["id"]}),
            "note": f"{reason} [revokes void #{row['id']}]",
        }

    row = {
        "kind": "revocation",
        "verdict": "REVOKED",
        "consequence": "The void is revoked: the challenge counts again as it stood before it.",
        "note": reason,
    }
    return _append_wordless(db, original, guard, station, actor, row)


def _append_wordless(
    db: Database, original: journal.Entry, guard, station: str, actor: str, fields: dict
) -> journal.Entry:
    """Append a follow-up row with no words (a void or a revocation: `fields`) on `original`,
    under its rule, checked by `guard` inside the transaction."""
    return journal.append(
        db,
        guard=guard,
        **follow_up_fields(original, station),
        rule=original.rule,
        words=(),
        word_count=0,
        actor=actor,
        **fields,
    )
