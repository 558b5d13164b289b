"""The director's flags page: open and closed second-opinion cases, penalties changed since the
players were told, open flagged look-ups (not ruled on, void or dismissed), and the final ruling
on a flagged adjudication (recorded by kiosk.director.review, which also dismisses flags)."""

from __future__ import annotations

from flask import render_template

from adjudicator.hall import tournaments
from adjudicator.judging import director_flags, outcomes
from adjudicator.judging.corrections import second_opinion
from adjudicator.judging.rulebooks import get_rulebook, rulebook_of
from kiosk.director import review
from kiosk.director.blueprint import bp, director_only
from kiosk.hall import get_hall


@bp.get("/flags")
@director_only
def flags():
    db = get_hall().db
    open_cases = second_opinion.cases(db, open_only=True)
    lookups = list(outcomes.with_outcomes(db, director_flags.separate_lookups(db)))
    shown = {case.original.tournament for case in open_cases} | {e.tournament for e, _ in lookups}
    return render_template(
        "director/flags.html",
        open_cases=open_cases,
        closed_cases=second_opinion.cases(db, closed_only=True, limit=50),
        lookups=lookups,
        changes=director_flags.penalty_changes(db),
        books={slug: rulebook_of(db, slug) for slug in shown},  # each case cites its own
        # a ruling form per tournament: each offers and cites its own rulebook's procedures
        ruling_forms=[(t, get_rulebook(t.rulebook)) for t in tournaments.list_all(db)],
    )


@bp.post("/flags/<int:adjudication_id>/ruling")
@director_only
def ruling(adjudication_id: int):
    return review.record_ruling_from_form(adjudication_id)
