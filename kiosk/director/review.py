"""The director's decisions on the journal: voids, their revocation, final rulings on any
adjudication, and dismissed flags.

A void (on a ground the tournament's rulebook has: withdrawn, rescinded, entered by mistake;
over a ruling only when the box says so) is a button on the journal page, and so is the
revocation of a void given on the wrong row; a final ruling may be given on any challenge
(NSA X.G, WESPA 3.10.13), from the flags page, with the words ruled on and, for one play looked
up in parts, NASPA 6.2's 10-point penalty, confirmed after later turns where the rulebook asks
it (WESPA 3.10.13). The penalty may be waived (a free challenge: waivers.py), with a ruling or
without one, leaving the verdict open. A look-up or changed-penalty flag is dismissed with a
reason.
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, request, url_for
from flask_babel import gettext as _

from adjudicator.judging import director_flags
from adjudicator.judging.corrections import final_ruling, voids, waivers
from adjudicator.judging.director_points import PointsRefused
from adjudicator.record.journal import journal
from adjudicator.record.proofs import receipts
from kiosk.director.blueprint import director_only
from kiosk.director.form_action import act_and_return
from kiosk.hall import get_hall
from kiosk.staff_web import current_staff

bp = Blueprint("review", __name__, url_prefix="/director")  # its endpoints: review.void, ...


@bp.post("/journal/<int:adjudication_id>/void")
@director_only
def void(adjudication_id: int):
    """Mark a challenge void with the director's reason and ground; back to the journal page."""
    member = current_staff()
    return act_and_return(
        lambda: voids.void(
            get_hall().db,
            adjudication_id,
            request.form.get("reason", ""),
            actor=member.name,
            station="director",
            over_ruling=bool(request.form.get("over_ruling")),
            ground=request.form.get("ground") or "mistake",
        ),
        lambda entry: _(
            "Adjudication #%(id)s is void (row #%(row)s): %(note)s. %(consequence)s",
            id=adjudication_id,
            row=entry.id,
            note=entry.note,
            consequence=entry.consequence,
        ),
        url_for("director.journal_page", **_journal_filters()),
    )


@bp.post("/journal/<int:adjudication_id>/revoke-void")
@director_only
def revoke_void(adjudication_id: int):
    """Revoke the void in effect on a challenge (given on the wrong row), with a reason."""
    member = current_staff()
    return act_and_return(
        lambda: voids.revoke(
            get_hall().db,
            adjudication_id,
            request.form.get("reason", ""),
            actor=member.name,
            station="director",
        ),
        lambda entry: _(
            "The void on #%(id)s is revoked (row #%(row)s).", id=adjudication_id, row=entry.id
        ),
        url_for("director.journal_page", **_journal_filters()),
    )


@bp.post("/ruling")
@director_only
def ruling_on_any():
    """The final ruling on the adjudication numbered in the form (flagged or not)."""
    adjudication_id = journal.parse_id(request.form.get("id"))  # ASCII digits within range
    if adjudication_id is None:
        flash(_("Type the number of the adjudication to rule on."), "error")
        return redirect(url_for("director.flags"))
    tournament = request.form.get("tournament")  # the form's own: its rulebook's procedures
    entry = journal.get(get_hall().db, adjudication_id) if tournament else None
    if entry is not None and entry.tournament != tournament:
        flash(
            _(
                "Adjudication #%(id)s is not a challenge of this tournament: rule on it in the "
                "form of its own tournament (%(tournament)s).",
                id=adjudication_id,
                tournament=entry.tournament,
            ),
            "error",
        )
        return redirect(url_for("director.flags"))
    return record_ruling_from_form(adjudication_id)


def record_ruling_from_form(adjudication_id: int):
    """Record the ruling the form describes, and the waiver of the penalty if its box is ticked
    (with no verdict chosen: the waiver alone); flash the outcome, back to the flags page."""
    member = current_staff()
    form = request.form
    hall = get_hall()
    waive = bool(form.get("waive_penalty"))

    def record():
        recorded = []
        if form.get("points", "").strip() and not form.get("verdict"):
            raise PointsRefused("The director's points go with a ruling on the verdict: choose it.")
        if form.get("verdict") or not waive:
            recorded.append(
                final_ruling.record_ruling(
                    hall.db,
                    adjudication_id,
                    form.get("verdict", ""),
                    form.get("reason", ""),
                    actor=member.name,
                    station="director",
                    words=form.get("words") or None,
                    improper_lookup=bool(form.get("improper_lookup")),
                    store=hall.store,
                    confirm_correction=bool(form.get("confirm_correction")),
                    points=form.get("points") or None,
                )
            )
        if waive:
            recorded.append(
                waivers.waive(
                    hall.db,
                    adjudication_id,
                    form.get("reason", ""),
                    actor=member.name,
                    station="director",
                )
            )
        return recorded

    def done(entries) -> str:
        said = []
        for entry in entries:
            code = receipts.code(hall.receipt(entry))  # signed like every verdict
            if entry.kind == "waiver":
                said.append(
                    _(
                        "Penalty waived on #%(id)s: %(consequence)s Receipt %(code)s.",
                        id=adjudication_id,
                        consequence=entry.consequence,
                        code=code,
                    )
                )
            else:
                said.append(
                    _(
                        "Final ruling on #%(id)s: %(verdict)s. %(consequence)s Receipt %(code)s.",
                        id=adjudication_id,
                        verdict=entry.verdict,
                        consequence=entry.consequence,
                        code=code,
                    )
                )
        return " ".join(said)

    return act_and_return(record, done, url_for("director.flags"))


@bp.post("/flags/<int:adjudication_id>/dismiss")
@director_only
def dismiss(adjudication_id: int):
    """Dismiss a look-up or changed-penalty flag with the director's reason."""
    member = current_staff()
    return act_and_return(
        lambda: director_flags.dismiss(
            get_hall().db, adjudication_id, request.form.get("reason", ""), actor=member.name
        ),
        lambda which: _(
            "Dismissed the %(which)s flag on #%(id)s.", which=which, id=adjudication_id
        ),
        url_for("director.flags"),
    )


def _journal_filters() -> dict[str, str]:
    """The journal page's filters the void form carried, to return to the same view."""
    names = ("tournament", "kiosk", "kind", "since", "until", "player", "round", "table")
    return {name: request.form[name] for name in names if request.form.get(name)}
