"""The director's decisions that no kiosk judges: free challenges granted to a player (NSA VI.C)
and the challenges the director decides (placement, exchange: WESPA 3.10.16-17 and their like),
with the grants not yet used and the decisions recorded lately. Each form goes through
hall/director/director_decisions.py, as the CLI's `free-challenge` and `director-challenge` do."""

from __future__ import annotations

from flask import render_template, request, url_for
from flask_babel import gettext as _

from adjudicator.hall import tournaments
from adjudicator.hall.director import director_decisions
from adjudicator.hall.tsh import games as tsh_games
from adjudicator.judging import director_challenges, free_challenges, grant_uses
from adjudicator.record.journal import journal
from adjudicator.record.proofs import receipts
from kiosk.director.blueprint import bp, director_only
from kiosk.director.form_action import act_and_return
from kiosk.hall import get_hall
from kiosk.staff_web import current_staff

RECENT = 50
DECISION_KINDS = (free_challenges.KIND, *director_challenges.KINDS)


@bp.get("/decisions")
@director_only
def decisions():
    db = get_hall().db
    found = tournaments.list_all(db)
    marks = ", ".join("?" for _ in DECISION_KINDS)
    recent = journal.select(  # the (kind, id) index of the rows that are not challenges
        db,
        f"kind IN ({marks}) AND kind <> 'challenge'",
        DECISION_KINDS,
        f"ORDER BY id DESC LIMIT {RECENT}",
    )
    return render_template(
        "director/decisions.html",
        tournaments=found,
        grants={t.slug: grant_uses.open_grants(db, t.slug) for t in found},
        recent=recent,
        player_names=tsh_games.player_names(db),
        args=request.args,
    )


def _decided(decide, said):
    """Record one of the director's decisions from the posted form, signed by the director at
    the director's station, and come back to the decisions page saying what was recorded:
    `decide(db, form, **signed)` records it, `said(entry, receipt_code)` words it."""
    hall, form, member = get_hall(), request.form, current_staff()
    return act_and_return(
        lambda: decide(hall.db, form, actor=member.name, station="director"),
        lambda entry: said(entry, receipts.code(hall.receipt(entry))),
        url_for("director.decisions"),
    )


@bp.post("/decisions/free-challenge")
@director_only
def grant_free_challenge():
    """Grant a player one free challenge, with the director's reason."""

    def grant(db, form, **signed):
        return director_decisions.grant_free_challenge(
            db,
            form.get("tournament", ""),
            form.get("to", ""),
            form.get("reason", ""),
            round_no=form.get("round") or None,
            table=form.get("table") or None,
            **signed,
        )

    def said(entry, code: str) -> str:
        return _(
            "Free challenge #%(id)s granted: %(consequence)s Receipt %(code)s.",
            id=entry.id,
            consequence=entry.consequence,
            code=code,
        )

    return _decided(grant, said)


@bp.post("/decisions/director-challenge")
@director_only
def decide_challenge():
    """Record the director's decision on a placement or exchange challenge."""

    def decide(db, form, **signed):
        return director_decisions.decide_challenge(
            db,
            form.get("tournament", ""),
            form.get("kind", ""),
            form.get("outcome", ""),
            form.get("reason", ""),
            table=form.get("table") or None,
            round=form.get("round") or None,
            challenger=form.get("challenger") or None,
            player=form.get("player") or None,
            points=form.get("points") or None,
            **signed,
        )

    def said(entry, code: str) -> str:
        text = _(
            "Recorded #%(id)s: %(consequence)s Receipt %(code)s.",
            id=entry.id,
            consequence=entry.consequence,
            code=code,
        )
        offender = entry.detail("offender")
        if offender:
            text += " " + _("For the scorecard: %(text)s", text=offender)
        return text

    return _decided(decide, said)
