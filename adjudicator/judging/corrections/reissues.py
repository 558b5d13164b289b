"""Reissues (WESPA 3.10.12, MSA 13): a slip that did not match the board, judged again.

Only those two rulebooks have them (and a tournament that names none): school rule 12 ("Only
the words written down will be used"), NSA X.D (the slip is checked against the board before
adjudication) and NASPA 6.2 (words may change "before the play is adjudicated") settle the slip
before the verdict, so a reissue there is refused, citing that clause. The reissued challenge
names the one it replaces (its `refers_to`), which then counts for nothing. Only the slip of
"the most recent turn" may be reissued from the table: not once the game has moved on (a later
challenge at that table, a later round at that kiosk), and not once a second opinion or the
director's ruling exists (a ruling is final). Those go to the director (voids.py). Every check
but the rulebook's runs inside the append transaction.
"""

from __future__ import annotations

from typing import Any

from adjudicator.judging.corrections.voids import (
    ReissueRefused,
    RulingIsFinal,
    VoidRefused,
    refuse_if_void,
    ruling_is_final,
    ruling_of,
)
from adjudicator.judging.rulebooks import NONE, Rulebook
from adjudicator.record.journal import journal


def refuse_unless_offered(book: Rulebook, replaced: int) -> None:
    """ReissueRefused, citing the rulebook's clause, where the rulebook has no reissues."""
    if not book.reissues:
        raise ReissueRefused(
            f"Challenge #{replaced} cannot be reissued under the {book.name} rulebook "
            f"({book.reissue_clause}): the challenge stands as judged. Call the director."
        )


def check_reissue(
    cur: Any, replaced: int, tournament: str, station: str, details: dict, book: Rulebook = NONE
) -> journal.Entry:
    """A reissued challenge may replace only a live challenge of the same tournament made at
    the same station, for the same game where that game was given, and only the latest one
    made there for that table and round: WESPA 3.10.12 reissues the slip of "the most recent
    turn", not any earlier challenge (inside the transaction). Returns the challenge replaced."""
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
    _refuse_if_decided(cur, replaced, book)
    latest = _latest_challenge(cur, station, entry.table, entry.round)
    if latest != replaced:
        raise ReissueRefused(
            f"Challenge #{replaced} is not the latest one made here (#{latest} came after it): "
            "only the most recent challenge can be reissued. Ask the director to void it instead."
        )
    _refuse_if_moved_on(cur, entry, book)
    return entry


def _refuse_if_decided(cur: Any, replaced: int, book: Rulebook) -> None:
    """A ruling is final, and a second opinion is the word judges': neither may be undone by
    a reissue from the table."""
    ruling = ruling_of(cur, replaced)
    if ruling is not None:
        raise RulingIsFinal(
            f"Challenge #{replaced} has the director's final ruling (journal row #{ruling}): "
            f"{ruling_is_final(book.ruling_final_clause)} and cannot be reissued. Call the "
            "director."
        )
    row = cur.execute(
        "SELECT MIN(id) AS id FROM adjudications WHERE refers_to = ? AND kind = 'second-opinion'",
        (replaced,),
    ).one()
    if row and row["id"] is not None:
        raise ReissueRefused(
            f"Challenge #{replaced} has a second opinion (journal row #{row['id']}): it can no "
            "longer be reissued. Call the director."
        )


def _first_later(cur: Any, where: str, params: tuple, after: int) -> Any:
    """The first challenge after row `after` that matches `where` (MIN(id), NULL if none)."""
    return cur.execute(
        f"SELECT MIN(id) AS id FROM adjudications WHERE {where} AND kind = 'challenge' AND id > ?",
        (*params, after),
    ).one()


def _refuse_if_moved_on(cur: Any, entry: journal.Entry, book: Rulebook) -> None:
    """WESPA 3.10.12 reissues the slip of "the most recent turn" (MSA 13: the words "made on
    the board that turn"): not once a later challenge was made at that table, or the kiosk has
    gone on to a later round (inside the transaction).
    """
    later = []
    if entry.table:
        later.append(
            _first_later(
                cur, "tournament = ? AND table_no = ?", (entry.tournament, entry.table), entry.id
            )
        )
    if entry.round:
        later.append(
            _first_later(
                cur,
                "kiosk = ? AND round_no IS NOT NULL AND round_no <> ?",
                (entry.kiosk, entry.round),
                entry.id,
            )
        )
    found = [row["id"] for row in later if row and row["id"] is not None]
    if found:
        raise ReissueRefused(
            f"The game has moved on since challenge #{entry.id} (#{min(found)} came after it): "
            f"only the most recent turn's slip can be reissued{book.cite(book.reissue_clause)}. "
            "Call the director."
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
