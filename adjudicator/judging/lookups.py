"""Improper separate look-ups (NASPA 6.2): one play judged in parts, flagged to the director.

NASPA 6.2: "If you are challenging more than one word and you enter them separately ... If it
was solely your error and the word is invalid, you lose 10 points." The program cannot know
whether two challenges are one play, but it can see the pattern: two challenges from one
kiosk within a short time (`ADJUDICATOR_SEPARATE_LOOKUP_SECONDS`) for the same tournament,
table and round. The later one is recorded with a flag and a note for the director, who decides
and may record the 10-point penalty as a ruling, or dismisses the flag (director_flags.py). The
player's screen shows nothing of it. Only where NASPA 6.2 applies (a tournament under the
`naspa` rulebook) and the table is known: a challenge without a table is never flagged, and
two tournaments' challenges are never linked.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from adjudicator import settings
from adjudicator.judging.game import same_player
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal

FLAG = "separate-lookup"
RECENT = 50


def lookup_window_seconds() -> int:
    """The setting: seconds within which two challenges may be one play looked up in parts."""
    return settings.get_int("separate_lookup_seconds", 0)


def separate_lookup(
    cur: Any,
    kiosk: str,
    table: str | None,
    round_no: str | None,
    seconds: int,
    tournament: str | None = None,
    challenger: str | None = None,
) -> dict[str, str] | None:
    """The flag and note for a challenge that may be part of the previous one at the same
    table, round and tournament (inside the append transaction), else None. No table: None.
    NASPA 6.2's improper look-up is one player's ("you enter them separately"): a previous
    challenge there by another player (`challenger`, as typed or as TSH names them, compared as
    free_challenges.same_player does) was another play, so it is no separate look-up. Where
    either challenge names nobody, the pattern is still flagged: the director decides."""
    if seconds <= 0 or not table:
        return None
    now = datetime.now(UTC)
    since = (now - timedelta(seconds=seconds)).isoformat(timespec="microseconds")
    # The kiosk's newest challenges by its (kiosk, id) index: the journal's clock never runs
    # backwards, so they are also its latest, and the read stops after RECENT rows however
    # long the kiosk's history (a time condition in SQL would walk all of it).
    cur.execute(
        "SELECT id, recorded_at, table_no, round_no, tournament, challenger FROM adjudications "
        f"WHERE kiosk = ? AND kind = 'challenge' ORDER BY id DESC LIMIT {RECENT}",
        (kiosk,),
    )
    for _ in range(RECENT):  # row by row: most often the first is already too old
        row = cur.one()
        if row is None or row["recorded_at"] < since:
            break
        same_event = tournament is None or row["tournament"] == tournament
        if same_event and row["table_no"] == table and row["round_no"] == round_no:
            if challenger and row["challenger"] and not same_player(row["challenger"], challenger):
                return None  # another player's challenge: a play of theirs came between
            gap = (now - datetime.fromisoformat(row["recorded_at"])).total_seconds()
            where = _where(table, round_no)
            return {
                "flag": FLAG,
                "note": (
                    f"possible improper separate look-up (NASPA 6.2): #{row['id']} came from "
                    f"this kiosk {gap:.0f} s earlier ({where})"
                ),
            }
    return None


def _where(table: str | None, round_no: str | None) -> str:
    given = []
    if table:
        given.append(f"table {table}")
    if round_no:
        given.append(f"round {round_no}")
    return ", ".join(given) or "no table or round given"


def flagged(db: Database, limit: int = RECENT) -> list[journal.Entry]:
    """The newest challenges flagged as possible separate look-ups (one indexed query)."""
    with db.transaction() as cur:
        rows = cur.execute(
            f"SELECT * FROM adjudications WHERE flag = ? ORDER BY id DESC LIMIT {int(limit)}",
            (FLAG,),
        ).all()
    return [journal.from_row(row) for row in rows]
