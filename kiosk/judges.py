"""The word judges' pages under /judge: a second opinion on an adjudication, by its id.

The judge (or the director) re-enters the words from the challenge slip; the verdict comes
from the same function as every other, against the original's lexicon edition and rule.
A kiosk's token cannot reach these pages, and a second opinion typed on the screen of the
kiosk that gave the original verdict is refused.
"""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _

from adjudicator.errors import AdjudicatorError, LexiconError
from adjudicator.hall import tournament_pins
from adjudicator.judging.corrections import second_opinion
from adjudicator.judging.rulebooks import NONE, rulebook_of
from adjudicator.judging.verdict import Verdict, closed_referral
from adjudicator.record.journal import journal
from adjudicator.record.proofs import receipts
from kiosk.auth import current_kiosk
from kiosk.hall import get_hall
from kiosk.i18n import say_verdict
from kiosk.staff_web import current_staff, login_page, sign_out, staff_required

bp = Blueprint("judges", __name__, url_prefix="/judge")
judge_or_director = staff_required("judge", "director")


@bp.route("/login", methods=["GET", "POST"])
def login():
    return login_page(_("Word judge: sign in"))


@bp.post("/logout")
def logout():
    return sign_out("judges.login")


@bp.get("/")
@judge_or_director
def index():
    return render_template("director/judge_index.html", error=None)


@bp.get("/case")
@judge_or_director
def case():
    """The original adjudication (never its words: the judge types them from the slip)."""
    entry_id = journal.parse_id(request.args.get("id"))
    if entry_id is None:
        return render_template(
            "director/judge_index.html", error=_("Type the adjudication's number.")
        ), 400
    try:
        original = second_opinion.original_of(get_hall().db, entry_id)
    except AdjudicatorError as exc:
        return render_template("director/judge_index.html", error=str(exc)), 404
    return _case_page(original, error=None)


def _case_page(original, error: str | None, status: int = 200):
    hall = get_hall()
    existing = second_opinion.case_of(hall.db, original)
    try:
        manifest = hall.store.manifest(original.lexicon_name)
        limit, refer_all = manifest.refer_longer_than, manifest.refer_even_if_listed
    except LexiconError:
        limit, refer_all = 0, False
    page = render_template(
        "director/judge_case.html",
        original=original,
        case=existing,
        error=error,
        referred=original.verdict == "REFER",
        refer_limit=limit,
        refer_all=refer_all,
        no_lookup_needed=_no_lookup_needed(hall, original, limit),
        book=rulebook_of(hall.db, original.tournament),
    )
    return page, status


def _no_lookup_needed(hall, original, limit: int) -> bool:
    """For the judge only: a referred challenge that a shorter word already decides
    (UNACCEPTABLE whatever the dictionary says), so no dictionary look-up is needed. The
    players were told REFER either way (NSA X.E); this page names no word."""
    if original.verdict != Verdict.REFER.value or not limit:
        return False
    try:
        pin = tournament_pins.pin_for(hall.db, original.id)
        lexicon = second_opinion.lexicon_of(hall.store, original, pin)
    except AdjudicatorError:
        return False
    keys = lexicon.alphabet.keys_of(original.words)
    closed = closed_referral(lexicon.trie, keys, limit, Verdict.ACCEPTABLE)
    return closed is Verdict.UNACCEPTABLE


@bp.post("/second-opinion")
@judge_or_director
def give():
    member = current_staff()
    hall = get_hall()
    entry_id = journal.parse_id(request.form.get("id"))
    if entry_id is None:
        return redirect(url_for("judges.index"))
    kiosk = current_kiosk()
    station = kiosk.name if kiosk is not None else f"judge:{member.name}"
    dictionary = request.form.get("dictionary") or None
    try:
        original = second_opinion.original_of(hall.db, entry_id)
    except AdjudicatorError as exc:
        return render_template("director/judge_index.html", error=str(exc)), 404
    exception = request.form.get("exception", "").strip() or None
    if exception is not None and not member.is_director:
        return _case_page(
            original, error=_("The exception (NSA X.G) is the director's to make."), status=403
        )
    try:
        opinion = second_opinion.give(
            hall.db,
            hall.store,
            original.id,
            request.form.get("words", ""),
            actor=member.name,
            station=station,
            dictionary=dictionary,
            confirm_correction=bool(request.form.get("confirm_correction")),
            pin=tournament_pins.pin_for(hall.db, original.id),
            exception=exception,
        )
    except AdjudicatorError as exc:
        return _case_page(original, error=str(exc), status=400)
    receipt = hall.receipt(opinion.entry)
    return render_template(
        "director/judge_result.html",
        opinion=opinion,
        receipt_code=receipts.code(receipt),
        shown=say_verdict(opinion.entry),
        book=opinion.book or NONE,
    ), 201
