"""Which challenge each free challenge pays for, as the games now stand (free_challenges.py).

A grant pays for its player's first challenge after it (in the game it names, where it names
one) that is unsuccessful now and would cost something: each such challenge, in journal order,
takes the earliest grant granted before it that covers it and that no earlier challenge took
(`allocate`). So a grant given back (its challenge void, reissued, or ruled successful) passes
to that player's next such challenge, even one already recorded: its penalty changes, and the
director's flags say so (Eve's grant, given back by a ruling on #3, pays for her #4). A
challenge recorded now takes a grant only if no earlier challenge of the player holds it
(`claim`, in the append transaction, for a challenge and for the ruling or opinion that makes
one unsuccessful). The rows keep what the players were shown (`details.free_challenge`); the
effective outcome (outcomes.py) follows the holders (`holders`).

"Would cost something" is the challenge's cost with no grant as its game now stands: its rule's
penalty for the deciding row's words, the count of the game's earlier unsuccessful challenges
for the rules that count them, free for a final play under school rule 12; a challenge whose
penalty the director waived (waivers.py) costs nothing, and the director's points are no part of
it. Only the challenges of players who hold a grant are read: for everyone else, one seek in the
grants' partial index finds none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from adjudicator.judging import director_points, free_challenges
from adjudicator.judging.deciding import Outcome, decided
from adjudicator.judging.free_challenges import Grant
from adjudicator.judging.game import forms_of
from adjudicator.judging.rules import (
    Consequence,
    Rule,
    UnknownRule,
    consequence,
    costs_something,
    get_rule,
    granted_consequence,
)
from adjudicator.judging.verdict import Verdict
from adjudicator.record.database.db import Database
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


def allocate(grants: Sequence[Grant], uses: Sequence[Use]) -> dict[int, Grant]:
    """{challenge id: the grant that pays for it}: each eligible challenge, in id order, takes
    the earliest grant granted before it that covers it and no earlier challenge took."""
    found: dict[int, Grant] = {}
    for use in sorted(uses, key=lambda u: u.entry.id):
        _offer(grants, found, use)
    return found


def _offer(grants: Sequence[Grant], found: dict[int, Grant], use: Use) -> None:
    """`use` takes the earliest grant left that pays for it, if it is eligible (`allocate`'s
    one step)."""
    if not use.eligible:
        return
    e, taken = use.entry, {g.id for g in found.values()}
    grant = next(
        (
            g
            for g in grants
            if g.id < e.id and g.id not in taken and g.covers(e.challenger, e.round, e.table)
        ),
        None,
    )
    if grant is not None:
        found[e.id] = grant


def holders(
    cur: Any,
    tournament: str,
    grants: Sequence[Grant],
    final_play_free: bool,
    *,
    leave_out: int | None = None,
    override: tuple[int, Consequence] | None = None,
    recorded_too: bool = True,
) -> tuple[dict[int, Grant], dict[int, Use]]:
    """The challenges the grants pay for now, and the challenges of their players read to
    know it (inside a transaction): in id order from the first grant, a batch at a time, until
    every grant is taken (a grant used at once costs one batch), and, `recorded_too`, every
    later challenge that recorded using a grant (to see that it holds it no more: the effective
    view needs them, a claim does not). `leave_out`: a challenge being reissued (it counts for
    nothing); `override`: a challenge and the consequence a row being recorded gives it (a
    ruling, an opinion)."""
    if not grants:
        return {}, {}
    grants = sorted(grants, key=lambda g: g.id)
    reader = _Reader(cur, grants, final_play_free, override)
    held: dict[int, Grant] = {}
    uses: dict[int, Use] = {}
    forms = frozenset().union(*(forms_of(g.to) for g in grants))
    after, size = grants[0].id, 1
    while len(held) < len(grants):
        batch = _next_batch(cur, tournament, grants, forms, after, leave_out, BATCH * size)
        if batch is None:
            break
        after, ids = batch
        start = 0
        while start < len(ids):  # read whole 1, 2, 4, ... at a time: stop once all are taken
            chunk, start, size = ids[start : start + size], start + size, min(size * 2, MOST)
            for use in reader.uses(_rows(cur, chunk)):
                uses[use.entry.id] = use
                _offer(grants, held, use)
            if len(held) == len(grants):
                after = chunk[-1]
                break
    if not recorded_too:
        return held, uses
    recorded = _recorded_users(cur, tournament, forms, after)
    recorded = [i for i in recorded if i not in uses and i != leave_out]
    for use in reader.uses(_rows(cur, recorded)):  # past every grant taken: none left for them
        uses[use.entry.id] = use
    return held, uses


# The tournament's challenges since the first grant are looked at (four small columns each)
# BATCH times the chunk size at a time, and the grants' players' among them read whole 1, 2,
# 4, ... up to MOST at a time: a grant used by the next challenge costs a few rows.
BATCH, MOST = 16, 16


def _next_batch(
    cur: Any,
    tournament: str,
    grants: Sequence[Grant],
    forms: frozenset[str],
    after: int,
    leave_out: int | None,
    limit: int,
) -> tuple[int, list[int]] | None:
    """The next `limit` challenges of the tournament after row `after`: the last one's id, and
    the ids of those the grants' players made in the games they cover; None past the last."""
    rows = cur.execute(
        "SELECT id, challenger, round_no, table_no FROM adjudications WHERE tournament = ? "
        f"AND kind = 'challenge' AND challenger IS NOT NULL AND id > ? ORDER BY id "
        f"LIMIT {int(limit)}",
        (tournament, after),
    ).tuples()
    if not rows:
        return None
    ids = [
        row_id
        for row_id, challenger, round_no, table in rows
        if row_id != leave_out
        and forms & forms_of(challenger)
        and any(g.covers(challenger, round_no, table) for g in grants)
    ]
    return rows[-1][0], ids


def _recorded_users(cur: Any, tournament: str, forms: frozenset[str], after: int) -> list[int]:
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


def claim(
    cur: Any,
    rule: Rule,
    result: Consequence,
    tournament: str,
    game: dict[str, Any],
    final_play_free: bool,
    *,
    challenge_id: int | None = None,
    leave_out: int | None = None,
) -> tuple[Consequence, int | None]:
    """`result`, an unsuccessful challenge's consequence, made free by the grant that pays for
    it (and that grant's id), where it would cost something; else `result` unchanged.
    `challenge_id`: the challenge a ruling or opinion decides (None: a new challenge, the
    newest); `leave_out`: the challenge a new one reissues."""
    challenger = game.get("challenger")
    if not result.play_stands or not costs_something(result) or not challenger:
        return result, None
    grants = free_challenges.grants_to(cur, tournament, challenger)  # one seek, mostly empty
    round_no, table = game.get("round"), game.get("table")
    covering = [
        g
        for g in grants
        if (challenge_id is None or g.id < challenge_id) and g.covers(challenger, round_no, table)
    ]
    if not covering:
        return result, None
    override = (challenge_id, result) if challenge_id is not None else None
    held, _ = holders(
        cur,
        tournament,
        grants,
        final_play_free,
        leave_out=leave_out,
        override=override,
        recorded_too=False,
    )
    if challenge_id is not None:
        found = held.get(challenge_id)
    else:
        taken = {g.id for g in held.values()}
        found = next((g for g in covering if g.id not in taken), None)
    if found is None:
        return result, None
    return granted_consequence(rule, found.id, found.how), found.id


def effective(use: Use, holder: Grant | None, outcome: Outcome) -> Outcome:
    """`outcome` of `use`'s challenge as the grants now pay (`holder`: the grant that pays for
    it, if any): free where a grant passed to it, charged again where its grant was given back
    or passed to an earlier challenge; `shown_penalty` is set when the penalty the players were
    shown changed. The director's points stay."""
    if holder is not None and use.recorded != holder.id:
        try:
            rule = get_rule(use.entry.rule)
        except UnknownRule:
            return outcome
        now = granted_consequence(rule, holder.id, holder.how)
        how = f"{outcome.how}; free challenge #{holder.id} pays for it"
    elif holder is None and use.recorded is not None and use.eligible and use.base is not None:
        now = use.base
        how = f"{outcome.how}; free challenge #{use.recorded} went to another challenge"
    else:
        return outcome
    text, penalty = director_points.kept(
        now.text, now.penalty(), outcome.points, director_points.sentence_in(outcome.consequence)
    )
    changed = penalty != outcome.penalty
    return replace(
        outcome,
        consequence=text,
        penalty=penalty,
        how=how,
        shown_penalty=outcome.penalty if changed else outcome.shown_penalty,
    )


def open_grants(db: Database, tournament: str) -> list[Grant]:
    """The tournament's grants no challenge pays with now, oldest first."""
    free = _final_play_free(db, tournament)
    with db.transaction() as cur:
        grants = free_challenges.grants_of(cur, tournament)
        held, _ = holders(cur, tournament, grants, free)
    taken = {g.id for g in held.values()}
    return [g for g in grants if g.id not in taken]


def _final_play_free(db: Database, tournament: str) -> bool:
    from adjudicator.judging.rulebooks import rulebook_of

    return rulebook_of(db, tournament).final_play_free


class _Reader:
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
        follow_ups = _follow_ups(self.cur, [e.id for e in entries])
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
        follow_ups = _follow_ups(self.cur, [e.id for e in game])
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
    try:
        rule = get_rule(entry.rule)
    except UnknownRule:
        return None
    final = bool(entry.detail("final_play"))
    return consequence(
        rule,
        Verdict.ACCEPTABLE,
        outcome.word_count,
        earlier,
        final_play=final,
        final_play_free=final and final_play_free,
    )


def _counts(rule_name: str) -> bool:
    try:
        return get_rule(rule_name).counts_earlier_challenges
    except UnknownRule:
        return False


def _rows(cur: Any, ids: Sequence[int]) -> list[journal.Entry]:
    """The rows `ids`, whole, in id order (one query)."""
    if not ids:
        return []
    marks = ", ".join("?" for _ in ids)
    rows = cur.execute(
        f"SELECT * FROM adjudications WHERE id IN ({marks}) ORDER BY id", tuple(ids)
    ).all()
    return [journal.from_row(row) for row in rows]


def _follow_ups(cur: Any, ids: Sequence[int]) -> dict[int, list[journal.Entry]]:
    """Every row referring to one of `ids`, by the id it refers to (one indexed query)."""
    found: dict[int, list[journal.Entry]] = {entry_id: [] for entry_id in ids}
    if not ids:
        return found
    marks = ", ".join("?" for _ in ids)
    rows = cur.execute(
        f"SELECT * FROM adjudications WHERE refers_to IN ({marks}) ORDER BY id", tuple(ids)
    ).all()
    for row in rows:
        entry = journal.from_row(row)
        found[entry.refers_to].append(entry)
    return found
