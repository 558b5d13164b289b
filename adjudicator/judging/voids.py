"""Voids and reissues: a challenge that counts for nothing, recorded as a row linked to it.

NSA IV.I.2 and NASPA 4.10 let a challenge be withdrawn once a misunderstood blank is cleared up;
NASPA 5.4 lets an outplay challenge be rescinded; a challenge typed at the wrong kiosk or for the
wrong game was entered by mistake. `void` appends a row of kind `void` referring to it, with the
reason. WESPA 3.10.12 and MSA 13 let a slip that did not match the board be reissued: the new
challenge names the one it replaces (its `refers_to`), which then counts for nothing either.
The original row is never changed; journal views and exports show the effective outcome.
"""

from __future__ import annotations

from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.judging.follow_up import follow_up_fields
from adjudicator.judging.reasons import check_reason
from adjudicator.judging.rules import void_consequence
from adjudicator.record import journal
from adjudicator.record.db import Database

VOID_TEXT = "Void: this challenge counts for nothing; no penalty to either player."


class VoidRefused(AdjudicatorError):
    """A void or reissue cannot be recorded as asked; the message says why."""


def void(db: Database, adjudication_id: int, reason: str, *, actor: str, station: str):
    """Append a `void` row for challenge `adjudication_id`; refused if it is void already."""
    reason = check_reason(reason, "void")
    original = challenge_row(db, adjudication_id)
    consequence = void_consequence(VOID_TEXT)
    return journal.append(
        db,
        guard=lambda cur: refuse_if_void(cur, original.id),
        kind="void",
        **follow_up_fields(original, station),
        rule=original.rule,
        words=(),
        word_count=0,
        verdict="VOID",
        consequence=consequence.text,
        penalty=consequence.penalty_json(),
        actor=actor,
        note=reason,
    )


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


def refuse_if_void(cur: Any, adjudication_id: int) -> None:
    """Raise VoidRefused if the challenge is void already or was reissued (inside a transaction)."""
    row = cur.execute(
        "SELECT id, kind FROM adjudications WHERE refers_to = ? AND kind IN ('void', 'challenge') "
        "ORDER BY id LIMIT 1",
        (adjudication_id,),
    ).one()
    if row is None:
        return
    how = "void" if row["kind"] == "void" else "reissued"
    raise VoidRefused(
        f"Adjudication #{adjudication_id} is already {how} (journal row #{row['id']}): "
        "it counts for nothing already."
    )


def check_reissue(cur: Any, replaced: int, tournament: str, station: str, details: dict) -> None:
    """A reissued challenge may replace only a live challenge of the same tournament made at
    the same station, for the same game where that game was given, and only the latest one
    made there for that table and round: WESPA 3.10.12 reissues the slip of "the most recent
    turn", not any earlier challenge (inside the transaction)."""
    row = cur.execute("SELECT * FROM adjudications WHERE id = ?", (replaced,)).one()
    entry = journal.from_row(row) if row else None
    if entry is None or entry.kind != "challenge":
        raise VoidRefused(f"There is no challenge #{replaced} to replace: check the number.")
    if entry.tournament != tournament or entry.kiosk != station:
        raise VoidRefused(
            f"Challenge #{replaced} was not made here: a reissued challenge replaces one made "
            "at the same kiosk in the same tournament. Ask the director to void it instead."
        )
    for name in ("table", "round", "challenger"):
        if getattr(entry, name) and getattr(entry, name) != details.get(name):
            raise VoidRefused(
                f"Challenge #{replaced} was for {name} {getattr(entry, name)}: a reissued "
                "challenge keeps the same game and challenger."
            )
    refuse_if_void(cur, replaced)
    latest = _latest_challenge(cur, station, entry.table, entry.round)
    if latest != replaced:
        raise VoidRefused(
            f"Challenge #{replaced} is not the latest one made here (#{latest} came after it): "
            "only the most recent challenge can be reissued. Ask the director to void it instead."
        )


def _latest_challenge(cur: Any, station: str, table: str | None, round_no: str | None) -> int:
    """The newest challenge made at `station` for this table and round (a few rows, by index)."""
    rows = cur.execute(
        "SELECT id, table_no, round_no FROM adjudications WHERE kiosk = ? AND kind = 'challenge' "
        "ORDER BY id DESC LIMIT 50",  # the journal's clock never runs backwards: newest first
        (station,),
    ).all()
    return next(
        (row["id"] for row in rows if (row["table_no"], row["round_no"]) == (table, round_no)), 0
    )
