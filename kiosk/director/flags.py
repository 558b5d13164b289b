"""The director's flags page: open and closed second-opinion cases and flagged lookups, and
the final ruling on a flagged adjudication (recorded by kiosk.director.review)."""

from __future__ import annotations

from flask import render_template

from adjudicator.judging import lookups, outcomes, second_opinion
from kiosk.director import review
from kiosk.director.blueprint import bp, director_only
from kiosk.hall import get_hall


@bp.get("/flags")
@director_only
def flags():
    db = get_hall().db
    return render_template(
        "director/flags.html",
        open_cases=second_opinion.cases(db, open_only=True),
        closed_cases=second_opinion.cases(db, closed_only=True, limit=50),
        lookups=list(outcomes.with_outcomes(db, lookups.flagged(db))),
    )


@bp.post("/flags/<int:adjudication_id>/ruling")
@director_only
def ruling(adjudication_id: int):
    return review.record_ruling_from_form(adjudication_id)
