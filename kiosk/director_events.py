"""The director's page for a tournament's rulebook and date (issue 20).

The rulebook decides which rulebook-only procedures the event has (adjudicator/judging/
rulebooks.py); the date is the event's first day. A catalogue edition not in force on that date
is accepted with a warning naming the editions in force then (a club may choose an old list on
purpose), and a rule WESPA may treat as non-ratable (3.10.15(d)) is said so.
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, request, url_for

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import tournaments
from adjudicator.judging.rules import get_rule
from kiosk.hall import get_hall
from kiosk.staff_web import staff_required

bp = Blueprint("events", __name__, url_prefix="/director")
director_only = staff_required("director")


@bp.post("/tournaments/<slug>/rulebook")
@director_only
def set_rulebook(slug: str):
    """Set a tournament's rulebook (or none) and date; back to the Tournaments page."""
    hall = get_hall()
    form = request.form
    try:
        changed = tournaments.update(
            hall.db,
            hall.store,
            slug,
            rulebook=form.get("rulebook", "none") or "none",
            event_date=form.get("date", ""),
        )
    except AdjudicatorError as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.tournament_list"))
    flash(
        f"Tournament {changed.slug}: rulebook {changed.rulebook or 'none'}, "
        f"first day {changed.event_date}.",
        "ok",
    )
    warning = tournaments.edition_warning(changed)
    if warning:
        flash(f"Warning: {warning}", "error")
    if get_rule(changed.rule).non_standard:
        flash("WESPA may treat an event under this rule as non-ratable (3.10.15(d)).", "error")
    return redirect(url_for("director.tournament_list"))
