"""The players' figures cannot drift from the game: for any sequence of challenges and corrections
(Hypothesis draws them), after every step, each player's figures in each tournament and over the
season are what a plain recount of `journal export --format json`'s effective outcomes gives
(support.export_recount, written apart from the program's counting).

The steps are the director's and the judges' own calls, as a hall makes them: challenges (some
the final play, some naming no player, names typed in another case), reissues, free challenges
granted (for one game or any), voids on every ground (late included) and their revocation,
second and third opinions, rulings with and without the director's points, waivers, and the
director's placement and exchange decisions with points; under six rulebooks and rules (WESPA
dingle, NSA double, NASPA 5 a word, school escalating with rule 12's free final play, MSA 10 a
turn, none with 5-then-10). A step a rulebook refuses (an error a user could cause) is skipped,
as the hall would refuse it. Tiny lists: the point is the counting, not the words.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import tournaments
from adjudicator.hall.director import director_decisions
from adjudicator.hall.hall import Hall
from adjudicator.judging import (
    free_challenges,
    grant_candidates,
    grant_uses,
    outcomes,
    player_figures,
)
from adjudicator.judging.corrections import second_opinion, voids, waivers
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.judging.rulebooks import rulebook_of
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal, player_tallies
from adjudicator.record.journal.player_tallies import FIGURES

from support import export_recount
from support.fuzz import fuzz_settings
from support.hall import build_store

EVENTS = (
    ("wespa", "dingle"),
    ("nsa-1998", "double"),
    ("naspa", "5-per-word"),
    ("school-2011", "escalating"),
    ("msa", "10-per-turn"),
    (None, "5-then-10"),
)
# Each game: round, table, the two players; names as typed differ in case and spacing.
GAMES = (("1", "1", "Ann", "Bob"), ("2", "1", "Ann", "Cy"), ("2", "2", "Bob", "Cy"))
TYPED = {"Ann": ("Ann", "ANN", " ann "), "Bob": ("Bob", "bob"), "Cy": ("Cy", "CY")}
WORDS = (("CAT", "DOG"), ("CAT", "DOGX"), ("QI",), ("ZAX",), ("QI", "ZA", "JO"))
GROUNDS = ("mistake", "late", "withdrawn", "rescinded")
TD = "td"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build_store(tmp_path_factory.mktemp("consistency") / "lexicons")


@contextmanager
def new_hall(store, events) -> Iterator[tuple[Hall, list[str]]]:
    """A hall with a fresh journal (on memory-backed /dev/shm where there is one) and a
    tournament for each of `events`; its slugs."""
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(dir=shm if shm.is_dir() else None))
    db = SqliteDatabase(str(folder / "journal.sqlite3"))
    try:
        hall = Hall(store, db, rate_limit=None, key_path=folder / "key.pem")
        hall.upgrade()
        slugs = []
        for n, (book, rule) in enumerate(events):
            slug = f"event-{n}"
            tournaments.create(db, store, slug, "TINY-NWL", rule, rulebook=book,
                               off_rulebook="the tiny list of the tests" if book else None,
                               event_date=f"2025-0{n + 1}-01")  # fmt: skip
            slugs.append(slug)
        yield hall, slugs
    finally:
        db.close()
        shutil.rmtree(folder, ignore_errors=True)


JUDGE = st.tuples(st.just("judge"), st.integers(0, 1), st.integers(0, 2), st.integers(0, 1),
                 st.integers(0, len(WORDS) - 1), st.booleans(), st.integers(0, 2),
                 st.integers(0, 9))  # fmt: skip
GRANT = st.tuples(st.just("grant"), st.integers(0, 1), st.integers(0, 2), st.booleans(),
                 st.integers(0, 1))  # fmt: skip
# A grant, then the grantee's challenges in that game (so that grants are used, and passed on
# by the corrections drawn after them).
GRANTED = st.tuples(st.just("granted"), st.integers(0, 1), st.integers(0, 2), st.booleans(),
                    st.integers(0, 1), st.lists(st.integers(0, len(WORDS) - 1), min_size=1,
                                                max_size=3))  # fmt: skip
STEPS = st.one_of(
    JUDGE,
    JUDGE,
    JUDGE,
    GRANT,
    GRANTED,
    GRANTED,
    st.tuples(st.just("reissue"), st.integers(0, 99), st.integers(0, len(WORDS) - 1)),
    st.tuples(st.just("void"), st.integers(0, 99), st.sampled_from(GROUNDS), st.booleans()),
    st.tuples(st.just("revoke"), st.integers(0, 99)),
    st.tuples(st.just("opinion"), st.integers(0, 99), st.integers(0, len(WORDS) - 1),
              st.integers(0, 3)),
    st.tuples(st.just("ruling"), st.integers(0, 99), st.booleans(),
              st.sampled_from((None, None, 7, -12))),
    st.tuples(st.just("waiver"), st.integers(0, 99)),
    st.tuples(st.just("decision"), st.integers(0, 1), st.integers(0, 2),
              st.sampled_from(("placement", "exchange")), st.booleans(),
              st.sampled_from((None, -30, 15))),
)  # fmt: skip


def step(hall: Hall, slugs: list[str], made: list, action: tuple) -> None:
    """One call as the hall makes it; `made`: the challenges recorded so far (id, slug, game)."""
    db, name = hall.db, action[0]
    if name == "granted":
        _, t, g, in_game, side, words = action
        step(hall, slugs, made, ("grant", t, g, in_game, side))
        for said in words:
            try:
                step(hall, slugs, made, ("judge", t, g, side, said, False, 0, 1))
            except AdjudicatorError:
                pass
        return
    if name == "judge":
        _, t, g, side, words, final, typed, unnamed = action
        round_no, table, *players = GAMES[g]
        challenger, player = players[side], players[1 - side]
        entry = hall.record_challenge(
            slugs[t], "cli", WORDS[words], round=round_no, table=table,
            challenger=TYPED[challenger][typed % len(TYPED[challenger])],
            player=None if unnamed == 0 else player, final_play=final or None,
        )  # fmt: skip
        made.append((entry.id, slugs[t], entry))
        return
    if name in ("grant", "decision"):
        t, g = action[1], action[2]
        round_no, table, first, second = GAMES[g]
        if name == "grant":
            in_game = {"round_no": round_no, "table": table} if action[3] else {}
            to = (first, second)[action[4]]
            director_decisions.grant_free_challenge(db, slugs[t], to, "score written first",
                                                    actor=TD, station=TD, **in_game)  # fmt: skip
        else:
            _, _, _, kind, upheld, points = action
            director_decisions.decide_challenge(
                db, slugs[t], kind, "upheld" if upheld else "dismissed", "looked at the board",
                actor=TD, station=TD, points=points, round=round_no, table=table,
                challenger=second, player=first,
            )  # fmt: skip
        return
    if not made:
        return
    row_id, slug, entry = made[action[1] % len(made)]
    confirm = rulebook_of(db, slug).confirms_corrections  # WESPA 3.10.13's step, where it is
    if name == "reissue":
        found = hall.record_challenge(
            slug, "cli", WORDS[action[2]], replaces=row_id, round=entry.round,
            table=entry.table, challenger=entry.challenger, player=entry.player,
        )  # fmt: skip
        made.append((found.id, slug, found))
    elif name == "void":
        voids.void(db, row_id, "the director looked again", actor=TD, station=TD,
                   ground=action[2], over_ruling=action[3])  # fmt: skip
    elif name == "revoke":
        voids.revoke(db, row_id, "the void was meant for another row", actor=TD, station=TD)
    elif name == "opinion":
        judge = f"judge-{action[3]}"
        second_opinion.give(db, hall.store, row_id, WORDS[action[2]], actor=judge,
                            station=f"judge:{judge}", confirm_correction=confirm)  # fmt: skip
    elif name == "ruling":
        record_ruling(db, row_id, "acceptable" if action[2] else "unacceptable",
                      "the director looked again", actor=TD, station=TD,
                      confirm_correction=confirm, points=action[3])  # fmt: skip
    elif name == "waiver":
        waivers.waive(db, row_id, "score written first", actor=TD, station=TD)


def holders_as_defined(hall: Hall, slugs: list[str]) -> None:
    """What the grants pay for (grant_uses.holders, which reads only what may matter) is what
    the definition gives: every challenge of the tournament read whole, each eligible one in id
    order taking the earliest grant left that covers it (grant_uses.allocate); and so is every
    challenge's penalty as the grants pay it (grant_uses.effective)."""
    with hall.db.transaction() as cur:
        for slug in slugs:
            free = rulebook_of(hall.db, slug).final_play_free
            grants = free_challenges.grants_of(cur, slug)
            held, uses = grant_uses.holders(cur, slug, grants, free)
            rows = cur.execute(
                f"{journal.SELECT} WHERE tournament = ? AND kind = 'challenge' "
                "AND challenger IS NOT NULL ORDER BY id",
                (slug,),
            ).tuples()
            every = grant_candidates.Reader(cur, grants, free, None).uses(
                [journal.from_values(row) for row in rows]
            )
            defined = grant_uses.allocate(grants, every)
            assert {c: g.id for c, g in held.items()} == {c: g.id for c, g in defined.items()}
            for use in every:
                before = outcomes.outcome_of(use.entry, use.follow_ups)
                expected = grant_uses.effective(use, defined.get(use.entry.id), before)
                found = outcomes.paid((held, uses), use.entry, before)
                assert (found.penalty, found.consequence) == (
                    expected.penalty,
                    expected.consequence,
                ), use.entry.id


def agree(hall: Hall, slugs: list[str]) -> None:
    """The figures are the export's effective outcomes counted afresh, per tournament and over
    the season."""
    counted = export_recount.recount(export_recount.exported(hall.db))
    expected = {key: {f: slot[f] for f in FIGURES} for key, slot in counted.items()}
    shown = {
        (p.tournament, p.division, p.key): p.figures
        for p in player_figures.of_tournaments(hall.db, slugs)
    }
    assert shown == expected
    season = {p.key: p.figures for p in player_figures.of_season(hall.db, slugs)}
    summed = export_recount.by_season(counted)
    assert season == {key: found for key, found in summed.items() if any(found.values())}


@fuzz_settings(100)
@given(
    events=st.lists(st.sampled_from(EVENTS), min_size=2, max_size=2, unique=True),
    opening=st.lists(JUDGE, min_size=2, max_size=8),
    steps=st.lists(STEPS, min_size=4, max_size=30),
)
def test_every_players_figures_are_the_exports_effective_outcomes_counted_again(
    store, events, opening, steps
):
    with new_hall(store, events) as (hall, slugs):
        made: list = []
        for action in opening + steps:
            try:
                step(hall, slugs, made, action)
            except AdjudicatorError:
                event(f"refused: {action[0]}")
                continue  # refused, as the hall refuses it: nothing recorded
            event(f"taken: {action[0]}")
            agree(hall, slugs)
            holders_as_defined(hall, slugs)
        with hall.db.transaction() as cur:
            kept = player_tallies.read(cur, slugs)
        with hall.db.transaction(chain_lock=True) as cur:
            player_tallies.rebuild(cur)  # what each append added is the journal counted afresh
            assert player_tallies.read(cur, slugs) == kept


def test_a_grant_passed_on_to_a_challenge_no_row_refers_to_is_counted(store):
    """The case the draw must be able to find, written out: Ann's grant pays for her #1; #1
    ruled successful, it passes to her #2, recorded before and referred to by no row."""
    with new_hall(store, [("nsa-1998", "double"), (None, "5-per-word")]) as (hall, slugs):
        made: list = []
        for action in (
            ("grant", 0, 0, True, 0),
            ("judge", 0, 0, 0, 0, False, 0, 1),  # Ann: CAT DOG stands, the grant pays
            ("judge", 0, 0, 0, 0, False, 1, 1),  # Ann again ("ANN"): loses her turn
            ("ruling", 0, False, None),  # #1 ruled successful: the grant passes to #2
        ):
            step(hall, slugs, made, action)
            agree(hall, slugs)
            holders_as_defined(hall, slugs)
        ann = {p.key: p.figures for p in player_figures.of_tournaments(hall.db, slugs)}["ann"]
        assert (ann["free_challenges_used"], ann["penalty_turns"]) == (1, 0)


def test_a_ruling_earlier_in_a_dingle_game_makes_a_later_challenge_take_the_grant(store):
    """Under dingle Ann's second challenge was her first unsuccessful one (free: no grant taken);
    a ruling on her first makes it her second, which would cost the turn: her grant pays for
    it now, though no row refers to it."""
    with new_hall(store, [("wespa", "dingle"), (None, "5-per-word")]) as (hall, slugs):
        made: list = []
        for action in (
            ("grant", 0, 0, True, 0),
            ("judge", 0, 0, 0, 1, False, 0, 1),  # CAT DOGX: came off
            ("judge", 0, 0, 0, 0, False, 0, 1),  # CAT DOG: stood, her first unsuccessful: free
            ("ruling", 0, True, None),  # the first ruled acceptable: the second is her second
        ):
            step(hall, slugs, made, action)
            agree(hall, slugs)
            holders_as_defined(hall, slugs)
        ann = {p.key: p.figures for p in player_figures.of_tournaments(hall.db, slugs)}["ann"]
        assert (ann["challenges_lost"], ann["penalty_turns"], ann["free_challenges_used"]) == (
            2,
            0,
            1,
        )
