"""The challenges of players who hold a free challenge, read as their games now stand: what
decides each, whether it is unsuccessful now and what it would cost with no grant (grant_uses.py
pays the grants from these).

"Would cost something" is the challenge's cost with no grant: its rule's penalty for the deciding
row's words, the count of the game's earlier unsuccessful challenges for the rules that count
them (each game read once, from its start), free for a final play under school rule 12; a
challenge whose penalty the director waived (waivers.py) costs nothing, and the director's points
are no part of it. The tournament's challenges since the first grant are looked at in batches
of a few small columns (`next_batch`), growing from a few rows, so that the reading can stop once
every grant is taken. A challenge of a grant's player is read whole (a `Use`) only where its row
cannot say (`read_whole`: a row refers to it, it recorded using a grant, or its rule counts the
game's earlier challenges); any other is unsuccessful at a cost or not by its own row
(`eligible_as_recorded`), and is read whole only if a grant pays for it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from adjudicator.judging import free_challenges
from adjudicator.judging.deciding import Outcome, decided
from adjudicator.judging.free_challenges import Grant
from adjudicator.judging.game import forms_of
from adjudicator.judging.rules import (
    Consequence,
    UnknownRule,
    consequence,
    costs_something,
    get_rule,
)
from adjudicator.judging.verdict import Verdict
from adjudicator.record.journal import journal

ACCEPTABLE = Verdict.ACCEPTABLE.value


@dataclass(frozen=True)
class Use:
    """A challenge of a player who holds a grant, as its game now stands."""

    entry: journal.Entry
    outcome: Outcome  # what decides it, before waivers, grants and recounts
    base: Consequence | None  # what it costs with no grant (None: not unsuccessful now)
    waived: bool  # the director waived its penalty (waivers.py)
    recorded: int | None  # the grant its deciding row recorded using, if any
    follow_ups: tuple[journal.Entry, ...] = ()

    @property
    def eligible(self) -> bool:
        """Unsuccessful now, costing something, not waived: a grant pays for it."""
        return self.base is not None and not self.waived and costs_something(self.base)


# The tournament's challenges since the first grant are looked at (a few small columns each)
# BATCH rows at first, twice as many each batch after, up to MOST: a grant used by the next
# challenge costs a few rows.
BATCH, MOST = 16, 4096
# A challenge as `next_batch` looks at it: id, challenger, round_no, table_no, verdict, rule,
# word_count, details.
LIGHT = "id, challenger, round_no, table_no, verdict, rule, word_count, details"


def next_batch(
    cur: Any,
    tournament: str,
    index: free_challenges.GrantIndex,
    forms: frozenset[str],
    after: int,
    leave_out: int | None,
    limit: int,
) -> tuple[int, list[tuple]] | None:
    """The next `limit` challenges of the tournament after row `after`: the last one's id, and
    those the grants' players made in the games they cover (`index`: the grants by player), as
    LIGHT tuples; None past the last."""
    rows = cur.execute(
        f"SELECT {LIGHT} FROM adjudications WHERE tournament = ? "
        f"AND kind = 'challenge' AND challenger IS NOT NULL AND id > ? ORDER BY id "
        f"LIMIT {int(limit)}",
        (tournament, after),
    ).tuples()
    if not rows:
        return None
    found = [
        row
        for row in rows
        if row[0] != leave_out
        and forms & forms_of(row[1])
        and index.covering(row[1], row[2], row[3])
    ]
    return rows[-1][0], found


def referred(cur: Any, ids: Sequence[int]) -> set[int]:
    """Those of `ids` a row refers to (the follow-ups' index: one query)."""
    if not ids:
        return set()
    marks = ", ".join("?" for _ in ids)
    rows = cur.execute(
        f"SELECT DISTINCT refers_to FROM adjudications WHERE refers_to IN ({marks})", tuple(ids)
    ).tuples()
    return {row[0] for row in rows}


def read_whole(row: tuple, referred_to: set[int], override: tuple[int, Any] | None) -> bool:
    """True when a challenge (a LIGHT tuple) must be read whole to know whether it is
    unsuccessful at a cost now (a `Use`): a row refers to it (`referred_to`), one being recorded
    decides it (`override`), it recorded using a grant, or its rule counts the game's earlier
    challenges. Any other stands as recorded (`eligible_as_recorded`)."""
    row_id, _, _, _, _, rule, _, details = row
    if row_id in referred_to or (override is not None and override[0] == row_id):
        return True
    if details and f'"{free_challenges.USED}"' in details:  # recorded using a grant
        return True
    return _counts(rule)


def eligible_as_recorded(row: tuple, final_play_free: bool) -> bool:
    """For a challenge (a LIGHT tuple) nothing refers to, that used no grant, under a rule that
    counts nothing: what `Use.eligible` says of it, from its own row (unsuccessful, and costing
    something with no grant)."""
    _, _, _, _, verdict, rule, word_count, details = row
    if verdict != ACCEPTABLE:
        return False
    final = bool(details and json.loads(details).get("final_play"))
    base = cost_with_no_grant(rule, word_count, 0, final, final_play_free)
    return base is not None and costs_something(base)


def recorded_users(cur: Any, tournament: str, forms: frozenset[str], after: int) -> list[int]:
    """The grants' players' challenges after row `after` whose row (or whose ruling or opinion)
    recorded using a grant: the grant-uses partial index, a few rows."""
    rows = cur.execute(
        "SELECT id, kind, refers_to, challenger FROM adjudications WHERE tournament = ? "
        f"""AND details LIKE '%"{free_challenges.USED}"%' AND id > ? ORDER BY id""",
        (tournament, after),
    ).tuples()
    found = {
        row_id if kind == "challenge" else refers_to
        for row_id, kind, refers_to, challenger in rows
        if forms & forms_of(challenger or "")
    }
    return sorted(i for i in found if i is not None and i > after)


class Reader:
    """Reads challenges as `Use`s: their follow-ups, what decides them, their cost with no
    grant (a game's earlier unsuccessful challenges counted, each game read once)."""

    def __init__(
        self,
        cur: Any,
        grants: Sequence[Grant],
        final_play_free: bool,
        override: tuple[int, Consequence] | None,
    ):
        self.cur, self.grants, self.free, self.override = cur, grants, final_play_free, override
        self.counts: dict[tuple, dict[int, int]] = {}  # by game: {challenge id: earlier}

    def uses(self, entries: Sequence[journal.Entry]) -> list[Use]:
        follow_ups = journal.follow_ups_of(self.cur, [e.id for e in entries])
        found = []
        for e in entries:
            outcome = decided(e, follow_ups[e.id])
            waived = any(row.kind == "waiver" for row in follow_ups[e.id])
            if self.override is not None and self.override[0] == e.id:
                given = self.override[1]
                base = given if given.play_stands else None
            else:
                base = _base(e, outcome, self._earlier(e), self.free)
            deciding = next((r for r in follow_ups[e.id] if r.id == outcome.decided_by), e)
            used = deciding.detail(free_challenges.USED)
            recorded = used if isinstance(used, int) else None
            found.append(Use(e, outcome, base, waived, recorded, tuple(follow_ups[e.id])))
        return found

    def _earlier(self, entry: journal.Entry) -> int:
        """Under a rule that counts a game's earlier unsuccessful challenges: how many the
        challenger made before `entry` in its game, as it now stands (the game's index)."""
        if not (entry.round and entry.table and _counts(entry.rule)):
            return 0
        key = (entry.tournament, entry.round, entry.table, entry.challenger)
        if key not in self.counts:
            self.counts[key] = self._count(key)
        return self.counts[key].get(entry.id, 0)

    def _count(self, key: tuple) -> dict[int, int]:
        game = [
            journal.from_row(row)
            for row in self.cur.execute(
                "SELECT * FROM adjudications WHERE tournament = ? AND round_no = ? "
                "AND table_no = ? AND challenger = ? AND kind = 'challenge' ORDER BY id",
                key,
            ).all()
        ]
        follow_ups = journal.follow_ups_of(self.cur, [e.id for e in game])
        found, count = {}, 0
        for e in game:
            found[e.id] = count
            count += _verdict(e, follow_ups[e.id], self.override) == ACCEPTABLE
        return found


def _verdict(
    entry: journal.Entry, follow_ups: list[journal.Entry], override: tuple[int, Any] | None
) -> str:
    if override is not None and override[0] == entry.id:
        return ACCEPTABLE if override[1].play_stands else "UNACCEPTABLE"
    return decided(entry, follow_ups).verdict


def _base(
    entry: journal.Entry, outcome: Outcome, earlier: int, final_play_free: bool
) -> Consequence | None:
    """What an unsuccessful challenge costs now with no grant (None: it is not unsuccessful)."""
    if outcome.verdict != ACCEPTABLE:
        return None
    final = bool(entry.detail("final_play"))
    return cost_with_no_grant(entry.rule, outcome.word_count, earlier, final, final_play_free)


@lru_cache(maxsize=4096)
def cost_with_no_grant(
    rule_name: str, word_count: int, earlier: int, final: bool, final_play_free: bool
) -> Consequence | None:
    """What an unsuccessful challenge under rule `rule_name` costs with no grant, after
    `earlier` unsuccessful ones in its game (a final play's free under school rule 12); None
    for a rule no longer known. (A Consequence is frozen: each is worked out once.)"""
    try:
        rule = get_rule(rule_name)
    except UnknownRule:
        return None
    return consequence(
        rule,
        Verdict.ACCEPTABLE,
        word_count,
        earlier,
        final_play=final,
        final_play_free=final and final_play_free,
    )


def _counts(rule_name: str) -> bool:
    try:
        return get_rule(rule_name).counts_earlier_challenges
    except UnknownRule:
        return False


def rows(cur: Any, ids: Sequence[int]) -> list[journal.Entry]:
    """The rows `ids`, whole, in id order (one query)."""
    if not ids:
        return []
    marks = ", ".join("?" for _ in ids)
    rows = cur.execute(f"{journal.SELECT} WHERE id IN ({marks}) ORDER BY id", tuple(ids)).tuples()
    return [journal.from_values(row) for row in rows]
