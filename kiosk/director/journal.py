"""The director's journal page: one filtered page of the journal, newest first, with its
outcomes and bursts, and the same filtered journal as a CSV download."""

from __future__ import annotations

import itertools

from flask import Response, flash, redirect, render_template, request, url_for

from adjudicator import settings
from adjudicator.errors import AdjudicatorError
from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.director import bursts, export, export_apart, journal_review
from adjudicator.hall.tsh import games as tsh_games
from adjudicator.judging import game_totals, outcomes
from adjudicator.judging.corrections import voids
from adjudicator.judging.rulebooks import rulebook_name
from adjudicator.record.journal import journal
from adjudicator.wording import N_
from kiosk.director.blueprint import bp, director_only
from kiosk.errors import error_response
from kiosk.hall import get_hall


def _journal_filters() -> journal_review.Filters:
    args = request.args
    return journal_review.Filters(
        tournament=args.get("tournament", "").strip() or None,
        kiosk=args.get("kiosk", "").strip() or None,
        kind=args.get("kind", "").strip() or None,
        since=journal_review.parse_time(args.get("since")),
        until=journal_review.parse_time(args.get("until"), end=True),
        player=" ".join(args.get("player", "").split())[:100] or None,
        round=args.get("round", "").strip()[:20] or None,
        table=args.get("table", "").strip()[:40] or None,
    )


def _row_id(name: str) -> int | None:
    value = request.args.get(name, "").strip()
    return int(value) if value.isdigit() else None


@bp.get("/journal")
@director_only
def journal_page():
    """One page of the journal, newest first; only the rows shown (and the challenges around
    them, for bursts) are read, so the page costs the same at any journal size."""
    hall = get_hall()
    try:
        filters = _journal_filters()
    except AdjudicatorError as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.journal_page"))
    found = journal_review.page(hall.db, filters, before=_row_id("before"), after=_row_id("after"))
    filter_args = {k: v for k, v in request.args.items() if k not in ("before", "after") and v}
    return render_template(
        "director/journal.html",
        page=found,
        rows=found.rows,
        outcomes={e.id: outcome for e, outcome in outcomes.with_outcomes(hall.db, found.rows)},
        void_grounds=_void_grounds(hall.db),
        journal_rows=journal.newest_id(hall.db),
        filtered=bool(filter_args),
        filter_args=filter_args,
        bursts=found.bursts,
        in_burst={entry_id for burst in found.bursts for entry_id in burst.ids},
        burst_challenges=settings.get_int("burst_challenges", 1),
        burst_minutes=settings.get_int("burst_minutes", 1),
        max_burst_rows=bursts.MAX_BURST_ROWS,
        args=request.args,
        tournaments=tournaments.list_all(hall.db),
        kiosk_names=[k.name for k in kiosks.list_all(hall.db)],  # as people count
        kinds=journal.KINDS,
        player_names=tsh_games.player_names(hall.db),
        game_totals=_game_totals(hall.db, filters),
    )


def _game_totals(db, filters: journal_review.Filters):
    """The game's totals when the filters name one game (tournament, round and table)."""
    if not (filters.tournament and filters.round and filters.table):
        return None
    return game_totals.totals(db, filters.tournament, filters.round, filters.table)


@bp.get("/journal.csv")
@director_only
def journal_csv():
    """The filtered journal as CSV, streamed in chunks: any size in constant memory."""
    try:
        filters = _journal_filters()
    except AdjudicatorError as exc:
        return error_response(400, str(exc), link=(url_for("director.journal_page"), N_("Back")))
    # Written by a child process (export_apart.py): a season's export never holds this
    # worker's verdicts. Its first block is read here, as the first query is below: a database
    # error is a 503, not a cut download. Where no child can say: the rows exported here.
    hall = get_hall()
    chunks = export_apart.csv_apart(hall.db, filters, hall.db_from_settings)
    if chunks is None:
        db = hall.db  # the rows and their outcomes read the database only: no context
        rows = export.csv_chunks(export.csv_records(db, journal_review.select_batches(db, filters)))
        chunks = itertools.chain([next(rows)], rows)
    return Response(
        chunks,
        mimetype="text/csv",
        headers={"Content-Disposition": 'attachment; filename="journal.csv"'},
    )


def _void_grounds(db):
    """For the void form: the grounds each tournament's rulebook offers (read once a page)."""
    books: dict[str, tuple] = {}

    def grounds(tournament: str) -> tuple:
        if tournament not in books:
            books[tournament] = voids.grounds_for(rulebook_name(db, tournament))
        return books[tournament]

    return grounds
