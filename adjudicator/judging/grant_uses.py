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

What a challenge would cost with no grant, and which challenges are read to know it:
grant_candidates.py. Only the challenges of players who hold a grant are read: for everyone
else, one seek in the grants' partial index finds none.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from adjudicator.judging import director_points, free_challenges, grant_candidates
from adjudicator.judging.deciding import Outcome
from adjudicator.judging.free_challenges import Grant
from adjudicator.judging.game import forms_of
from adjudicator.judging.grant_candidates import Use
from adjudicator.judging.rules import (
    Consequence,
    Rule,
    UnknownRule,
    costs_something,
    get_rule,
    granted_consequence,
)
from adjudicator.record.database.db import Database


def allocate(grants: Sequence[Grant], uses: Sequence[Use]) -> dict[int, Grant]:
    """{challenge id: the grant that pays for it}: each eligible challenge, in id order, takes
    the earliest grant granted before it that covers it and no earlier challenge took."""
    found: dict[int, Grant] = {}
    index, taken = free_challenges.GrantIndex(grants), set()
    for use in sorted(uses, key=lambda u: u.entry.id):
        _offer(index, found, taken, use)
    return found


def _offer(
    index: free_challenges.GrantIndex, found: dict[int, Grant], taken: set[int], use: Use
) -> None:
    """`use` takes the earliest grant left that pays for it, if it is eligible (`allocate`'s
    one step): among its challenger's grants (`index`), the first
    granted before it that covers it and is not `taken` (the ids of the grants in `found`)."""
    if use.eligible:
        e = use.entry
        _pay(index, found, taken, e.id, e.challenger, e.round, e.table)


def _pay(
    index: free_challenges.GrantIndex,
    found: dict[int, Grant],
    taken: set[int],
    challenge_id: int,
    challenger: str | None,
    round_no: Any,
    table: Any,
) -> bool:
    """An eligible challenge takes the earliest grant granted before it that covers it and is
    not `taken`: True if one was left."""
    grant = next(
        (
            g
            for g in index.covering(challenger, round_no, table)
            if g.id < challenge_id and g.id not in taken
        ),
        None,
    )
    if grant is None:
        return False
    found[challenge_id] = grant
    taken.add(grant.id)
    return True


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
    """The challenges the grants pay for now, and the challenges of their players read whole to
    know it (inside a transaction): in id order from the first grant, a batch at a time, until
    every grant is taken (a grant used at once costs one batch), and, `recorded_too`, every
    challenge that recorded using a grant and holds none now (the effective view needs them, a
    claim does not). A challenge whose own row says whether it is unsuccessful at a cost is read
    whole only if a grant pays for it (grant_candidates.read_whole), and while every grant
    granted so far is taken, the challenges up to the next grant are not looked at (none can
    take one): any other stands as recorded. `leave_out`: a challenge being reissued (it counts
    for nothing); `override`: a challenge and the consequence a row being recorded gives it (a
    ruling, an opinion)."""
    if not grants:
        return {}, {}
    grants = sorted(grants, key=lambda g: g.id)
    granted = [g.id for g in grants]
    reader = grant_candidates.Reader(cur, grants, final_play_free, override)
    index, taken = free_challenges.GrantIndex(grants), set()
    held: dict[int, Grant] = {}
    uses: dict[int, Use] = {}
    forms = frozenset().union(*(forms_of(g.to) for g in grants))
    after, size = granted[0], grant_candidates.BATCH
    free_from = granted[0]  # no challenge before this row may find a grant free
    while len(held) < len(grants):
        batch = grant_candidates.next_batch(cur, tournament, index, forms, after, leave_out, size)
        if batch is None:
            break
        after, rows = batch
        size = min(size * 2, grant_candidates.MOST)
        # what the rows cannot say is read whole first; then each pays in id order, and a
        # challenge judged by its own row is read whole only if a grant pays for it
        referred = grant_candidates.referred(cur, [row[0] for row in rows])
        whole = [row[0] for row in rows if grant_candidates.read_whole(row, referred, override)]
        read = {use.entry.id: use for use in reader.uses(grant_candidates.rows(cur, whole))}
        paid: list[int] = []
        for row in rows:
            if row[0] < free_from:
                continue
            use = read.get(row[0])
            if use is not None:
                uses[row[0]] = use
                _offer(index, held, taken, use)
            elif grant_candidates.eligible_as_recorded(row, final_play_free):
                if _pay(index, held, taken, *row[:4]):
                    paid.append(row[0])
            if len(held) == len(grants):
                after = row[0]
                break
            if len(taken) == bisect_left(granted, row[0]):  # every grant before it is taken
                free_from = granted[bisect_right(granted, row[0])]
        if free_from > after:  # nothing to look at before the next grant: from there
            after, size = free_from, grant_candidates.BATCH
        for use in reader.uses(grant_candidates.rows(cur, paid)):
            uses[use.entry.id] = use
    if not recorded_too:
        return held, uses
    recorded = grant_candidates.recorded_users(cur, tournament, forms, granted[0])
    recorded = [i for i in recorded if i not in uses and i != leave_out]
    for use in reader.uses(grant_candidates.rows(cur, recorded)):  # they hold no grant now
        uses[use.entry.id] = use
    return held, uses


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
