"""What waits on the director's flags besides second opinions: penalties that changed after the
players were told, and possible improper separate look-ups (NASPA 6.2); and their dismissals.

- A **changed penalty**: under a rule that counts the game's earlier challenges, a later ruling
  or void changed a challenge's effective penalty (recount.py), a final play's included; or a
  free challenge given back passed to a challenge already recorded (grant_uses.py); the
  players were shown the old one, so the director tells the table. Once the game is over (its
  final play was challenged), whether its signed result may still change is the director's
  call, and the flag cites the rulebook on it (WESPA 5.4.1, NASPA 7.8, school rule 13, ...).
  Found from the games that have a correction (the rows referring to a challenge: a few), never
  by scanning the journal.
- A **separate look-up** (lookups.py): a challenge flagged when it was recorded. It leaves the
  list once ruled on, void, or dismissed.
The director may dismiss either with a reason (`flags --dismiss ID --reason TEXT`); the
dismissal is kept beside the journal (a flag is no verdict), and the challenge stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.judging import lookups, outcomes, recount
from adjudicator.judging.outcomes import Outcome
from adjudicator.judging.reasons import check_reason
from adjudicator.judging.rulebooks import rulebook_of
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal

PENALTY_CHANGED = "penalty-changed"
SEPARATE_LOOKUP = lookups.FLAG
KINDS = (PENALTY_CHANGED, SEPARATE_LOOKUP)
# Changed penalties are looked for in the games of the challenges most recently corrected (the
# games being played): the flags and the overview cost the same in a season's millionth row.
RECENT_CORRECTIONS = 1000


class DismissRefused(AdjudicatorError):
    """A flag cannot be dismissed as asked; the message says why."""


@dataclass(frozen=True)
class PenaltyChange:
    """A challenge whose penalty, as the players were shown it, has changed since."""

    challenge: journal.Entry
    outcome: Outcome
    # The game is over: the rulebook's clause on whether a signed result may still change
    # ("" when no rulebook is named); None while the game goes on.
    result_clause: str | None = None

    @property
    def result_note(self) -> str | None:
        """Whether the game's signed result may still change: the director's call."""
        if self.result_clause is None:
            return None
        cited = f" ({self.result_clause})" if self.result_clause else ""
        return (
            "The game is over (its final play was challenged): whether its signed result may "
            f"still change is your call{cited}."
        )

    @property
    def old(self) -> dict[str, Any] | None:
        return self.outcome.shown_penalty

    @property
    def new(self) -> dict[str, Any] | None:
        return self.outcome.penalty

    def to_api(self) -> dict[str, Any]:
        c = self.challenge
        return {
            "flag": PENALTY_CHANGED,
            "id": c.id,
            "tournament": c.tournament,
            "kiosk": c.kiosk,
            "table": c.table,
            "round": c.round,
            "challenger": c.challenger,
            "recorded_at": c.recorded_at,
            "old_penalty": self.old,
            "new_penalty": self.new,
            "consequence": self.outcome.consequence,
            "flag_reasons": ["the penalty the players were shown has changed"],
            "game_over": self.result_note is not None,
            "result_note": self.result_note,
        }


def penalty_changes(db: Database) -> list[PenaltyChange]:
    """Every challenge, not void, whose effective penalty differs from the one recorded (and
    shown) for it, newest first; dismissed ones left out."""
    with db.transaction() as cur:  # the newest corrections, by the follow-ups' index: bounded
        games = cur.execute(
            "SELECT tournament, round_no, table_no, challenger, rule FROM adjudications "
            f"WHERE refers_to IS NOT NULL ORDER BY refers_to DESC LIMIT {RECENT_CORRECTIONS}"
        ).tuples()
    keys = {tuple(g[:4]) for g in games if all(g[1:4]) and recount.counting_rule(g[4]) is not None}
    book = outcomes.Games(db)
    changed = [
        (challenge_id, outcome)
        for key in keys
        for challenge_id, outcome in book.recounted(key).items()
        if outcome.penalty_changed and outcome.verdict != outcomes.VOID
    ]
    # a free challenge given back passes to its player's next challenge (grant_uses.py)
    for tournament in sorted({g[0] for g in games}):
        changed.extend(book.grant_changes(tournament))
    by_id = dict(changed)
    gone = dismissed(db, PENALTY_CHANGED)
    wanted = sorted((i for i in by_id if i not in gone), reverse=True)
    if not wanted:
        return []
    marks = ", ".join("?" for _ in wanted)
    rows = {e.id: e for e in journal.select(db, f"id IN ({marks})", tuple(wanted))}
    return [
        PenaltyChange(rows[i], by_id[i], result_clause(db, rows[i])) for i in wanted if i in rows
    ]


def result_clause(db: Database, challenge: journal.Entry) -> str | None:
    """For a challenge of a game that is over (its final play was challenged), the rulebook's
    clause on whether a signed result may still change ("" for none); None otherwise."""
    if not (challenge.detail("final_play") or _game_over(db, challenge)):
        return None
    return rulebook_of(db, challenge.tournament).result_clause


def _game_over(db: Database, challenge: journal.Entry) -> bool:
    """True when a challenge of the final play was recorded at the challenge's table and round
    (by the game's index)."""
    with db.transaction() as cur:
        row = cur.execute(
            "SELECT id FROM adjudications WHERE tournament = ? AND round_no = ? AND table_no = ? "
            "AND challenger IS NOT NULL AND kind = 'challenge' "
            """AND details LIKE '%"final_play": true%' LIMIT 1""",
            (challenge.tournament, challenge.round, challenge.table),
        ).one()
    return row is not None


def separate_lookups(db: Database) -> list[journal.Entry]:
    """Challenges flagged as possible separate look-ups that still wait: not ruled on, not
    void or reissued, not dismissed (newest first)."""
    gone = dismissed(db, SEPARATE_LOOKUP)
    return [
        entry
        for entry, outcome in outcomes.with_outcomes(db, lookups.flagged(db))
        if outcome is not None and outcome.decided_by == entry.id and entry.id not in gone
    ]


def dismissed(db: Database, flag: str) -> set[int]:
    """The ids whose `flag` the director dismissed."""
    with db.transaction() as cur:
        rows = cur.execute("SELECT entry_id FROM flag_dismissals WHERE flag = ?", (flag,)).tuples()
    return {entry_id for (entry_id,) in rows}


def dismiss(db: Database, entry_id: int, reason: str, *, actor: str) -> str:
    """Dismiss the open flag on challenge `entry_id` with a reason; returns which flag."""
    reason = check_reason(reason, "dismissal")
    open_flags = []
    if any(e.id == entry_id for e in separate_lookups(db)):
        open_flags.append(SEPARATE_LOOKUP)
    if any(c.challenge.id == entry_id for c in penalty_changes(db)):
        open_flags.append(PENALTY_CHANGED)
    if not open_flags:
        raise DismissRefused(
            f"Challenge #{entry_id} has no open flag to dismiss (a second opinion's flag is "
            "closed by your ruling: `adjudicator ruling ID`)."
        )
    now = datetime.now(UTC).isoformat(timespec="seconds")
    with db.transaction() as cur:
        for flag in open_flags:
            cur.execute(
                "INSERT INTO flag_dismissals (entry_id, flag, reason, actor, dismissed_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (entry_id, flag, reason, actor, now),
            )
    return ", ".join(open_flags)


def open_count(db: Database) -> int:
    """Flags waiting for the director besides second opinions (for the overview)."""
    return len(separate_lookups(db)) + len(penalty_changes(db))
