"""Figures kept beside the journal, written in the same transaction as each append.

The director's overview and flags pages read these few rows instead of counting or scanning
the journal, so they cost the same at a thousand rows or a million:
- `journal_tallies`: rows per UTC hour, tournament and kind, with the first and last id of
  each (the journal's clock never runs backwards, so these turn a time into an id range);
- `journal_cases`: one row per adjudication that has a second opinion or a ruling, saying
  whether it is flagged for the director (until a third opinion decides it, two of three: NSA
  X.G), whether the director has ruled, and whether it is void (a `void` row, or a challenge
  that reissues it: voids.py); open = flagged, neither.
They are derived data: migration 3 builds them from the journal, and every append keeps them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from adjudicator.record.journal import player_tallies

FLAGGED = "flagged for the director"  # in a second opinion's note: the director must rule

_TALLY = (
    "INSERT INTO journal_tallies (hour, tournament, kind, row_count, first_id, last_id) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (hour, tournament, kind) "
    "DO UPDATE SET row_count = journal_tallies.row_count + excluded.row_count, "
    "last_id = excluded.last_id"  # ids only grow: the first id stays, the last is the new one
)


def hour_of(recorded_at: str) -> str:
    """The tally bucket of an ISO UTC time: '2024-05-01T14'."""
    return recorded_at[:13]


def record(cur: Any, entries: Iterable[Any]) -> None:
    """Count `entries` (journal.Entry rows just inserted) in the tallies, the cases and the
    players' figures (player_tallies.py)."""
    entries = list(entries)
    counts: dict[tuple[str, str, str], list[int]] = {}
    follow_ups, voids = [], []
    for entry in entries:
        key = (hour_of(entry.recorded_at), entry.tournament, entry.kind)
        found = counts.get(key)
        if found is None:
            counts[key] = [1, entry.id, entry.id]
        else:
            found[0] += 1
            found[2] = entry.id
        if entry.refers_to is not None and entry.kind in ("second-opinion", "ruling"):
            follow_ups.append(entry)
        elif entry.refers_to is not None and entry.kind in ("void", "challenge", "revocation"):
            voids.append(entry)
    player_tallies.record(cur, entries)  # each player's figures as judged
    tallied = [(*key, *figures) for key, figures in counts.items()]
    if len(tallied) == 1:
        cur.execute(_TALLY, tallied[0])
    elif tallied:
        cur.executemany(_TALLY, tallied)
    for entry in follow_ups:
        _record_case(cur, entry)
    for entry in voids:  # a void or reissue closes the case, if there is one; a revocation
        if entry.kind == "revocation":  # of a void opens it again if it still waits
            cur.execute(
                "UPDATE journal_cases SET void_id = NULL, open = CASE WHEN flagged = 1 AND "
                "ruling_id IS NULL THEN 1 ELSE 0 END WHERE original_id = ?",
                (entry.refers_to,),
            )
            continue
        cur.execute(
            "UPDATE journal_cases SET void_id = ?, open = 0 "
            "WHERE original_id = ? AND void_id IS NULL",
            (entry.id, entry.refers_to),
        )


def is_flagged(entry: Any) -> bool:
    """A second opinion that the director must rule on: its `flag_reasons` field says so (a
    row recorded before schema 7 has none, and said so in its note)."""
    return entry.kind == "second-opinion" and bool(flag_reasons_of(entry))


def flag_reasons_of(entry: Any) -> tuple[str, ...]:
    """Why a second opinion was flagged for the director, from its row (() if it was not)."""
    if entry.flag_reasons is not None:
        return tuple(json.loads(entry.flag_reasons))
    if FLAGGED not in (entry.note or ""):  # a row from before schema 7
        return ()
    _, _, reasons = entry.note.partition(f"{FLAGGED}: ")
    return tuple(reason for reason in reasons.split("; ") if reason)


def _record_case(cur: Any, entry: Any) -> None:
    row = cur.execute(
        "SELECT flagged, ruling_id, void_id FROM journal_cases WHERE original_id = ?",
        (entry.refers_to,),
    ).one()
    flagged = int(bool(row and row["flagged"]) or is_flagged(entry))
    if entry.kind == "second-opinion" and _decides(entry):  # NSA X.G: two of three decided it
        flagged = 0
    ruling_id = row["ruling_id"] if row else None
    if ruling_id is None and entry.kind == "ruling":
        ruling_id = entry.id
    void_id = row["void_id"] if row else _first_void(cur, entry.refers_to)
    is_open = int(bool(flagged) and ruling_id is None and void_id is None)
    if row is None:
        cur.execute(
            "INSERT INTO journal_cases (original_id, flagged, ruling_id, void_id, open, latest_id) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (entry.refers_to, flagged, ruling_id, void_id, is_open, entry.id),
        )
    else:
        cur.execute(
            "UPDATE journal_cases SET flagged = ?, ruling_id = ?, open = ?, latest_id = ? "
            "WHERE original_id = ?",
            (flagged, ruling_id, is_open, entry.id, entry.refers_to),
        )


def _decides(entry: Any) -> bool:
    """A third opinion that decided its challenge, two of three (second_opinion.py)."""
    return bool(entry.details) and json.loads(entry.details).get("decides") == "two of three"


def _first_void(cur: Any, original_id: int) -> int | None:
    """The row that makes `original_id` void (a reissue, or a void not revoked), if any."""
    rows = cur.execute(
        "SELECT id, kind FROM adjudications "
        "WHERE refers_to = ? AND kind IN ('void', 'challenge', 'revocation') ORDER BY id",
        (original_id,),
    ).all()
    return live_void(rows)


def live_void(rows: Any) -> int | None:
    """Of the void, reissue and revocation rows referring to one challenge (id order), the one
    that makes it void now: the first reissue, else a void no revocation came after."""
    current = None
    for row in rows:
        if row["kind"] == "challenge":
            return row["id"]
        current = row["id"] if row["kind"] == "void" else None
    return current
