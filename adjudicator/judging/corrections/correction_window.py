"""When a misadjudication may still be corrected (WESPA 3.10.13): only the director knows.

WESPA 3.10.13: the error "may be corrected if and only if: (a) no newly drawn tiles have touched
the player's rack, or (b) no retracted tiles have touched the player's rack".
The program cannot see the rack, but it can see that the game went on: a later challenge at the
same table. When a ruling (or a second opinion) would change a challenge's outcome after that,
the director must confirm that the correction is still allowed; the row records that they did
(`details.confirmed`). Only WESPA has that limit: under another rulebook nothing is asked (NSA
X.G lets the director review a challenge again), and with no rulebook named it is asked, as
before. Under another rulebook the confirmation is refused when given: it is WESPA 3.10.13's
step, and recording it there would cite a rule the event does not follow.
"""

from __future__ import annotations

from adjudicator.errors import AdjudicatorError
from adjudicator.judging.rulebooks import rulebook_of
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal

# WESPA 3.10.13, both of its conditions, as the seed words them.
CONFIRM_QUOTE = (
    "(a) no newly drawn tiles have touched the player's rack, or (b) no retracted tiles have "
    "touched the player's rack"
)


class ConfirmationNeeded(AdjudicatorError):
    """A correction after later turns needs the director's confirmation (WESPA 3.10.13)."""


class ConfirmationNotOffered(AdjudicatorError):
    """The 3.10.13 confirmation was given at an event whose rulebook has no such step."""


def refuse_unless_offered(db: Database, original: journal.Entry, confirmed: bool) -> None:
    """ConfirmationNotOffered when the confirmation is given under a rulebook without it."""
    if not confirmed:
        return
    book = rulebook_of(db, original.tournament)
    if not book.confirms_corrections:
        raise ConfirmationNotOffered(
            f"This is WESPA 3.10.13's confirmation (a correction after later turns): "
            f"tournament {original.tournament} is under the {book.name} rulebook, which has no "
            "such step. Leave out --confirm-correction (on the page, the box)."
        )


def later_challenge(db: Database, original: journal.Entry) -> int | None:
    """The first challenge at the same table of the same tournament after `original`, if any
    (a table not given: None, nothing to compare)."""
    if not original.table:
        return None
    with db.transaction() as cur:
        row = cur.execute(
            "SELECT MIN(id) AS id FROM adjudications WHERE tournament = ? AND table_no = ? "
            "AND kind = 'challenge' AND id > ?",
            (original.tournament, original.table, original.id),
        ).one()
    return row["id"] if row and row["id"] is not None else None


def require_confirmation(
    db: Database, original: journal.Entry, changes_outcome: bool, confirmed: bool, what: str
) -> bool:
    """True when the row must record the director's confirmation; ConfirmationNeeded when it is
    needed and not given. Needed only under a rulebook with that limit (WESPA 3.10.13), when
    `changes_outcome` and the table has moved on; refused when given under another."""
    refuse_unless_offered(db, original, confirmed)
    if not changes_outcome:
        return False
    book = rulebook_of(db, original.tournament)
    if not book.confirms_corrections:
        return False
    later = later_challenge(db, original)
    if later is None:
        return False
    if not confirmed:
        raise ConfirmationNeeded(
            f"Challenge #{later} came after #{original.id} at table {original.table}: this "
            f"{what} changes #{original.id}'s outcome, and {book.confirm_clause} allows it "
            f'"if and only if: {CONFIRM_QUOTE}". If that is so, confirm it '
            "(--confirm-correction, or the box on the page)."
        )
    return True
