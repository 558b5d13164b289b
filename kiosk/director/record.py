"""The players' record on the director's pages: an event's challenge report
(/director/report/SLUG, with its CSV and JSON), a season's (/director/season, sortable, with its
CSV), and closing or reopening an event from the Tournaments page (a confirmation first).

The pages show the library's own report (hall/director/report_page.py, season_page.py) inside the
staff's pages, its stylesheet linked (the pages' Content-Security-Policy allows no inline style).
`?words=1` names each challenge's words not in the lexicon only once the event is closed; before,
it is refused (409) citing the tournament's rulebook, and nothing word by word is shown.
"""

from __future__ import annotations

from datetime import date

from flask import Response, flash, render_template, request, url_for
from flask_babel import get_translations
from flask_babel import gettext as _

from adjudicator.hall import event_close, tournaments
from adjudicator.hall.director import report as event_report
from adjudicator.hall.director import report_files, report_page, season_page
from adjudicator.hall.director import season as seasons
from adjudicator.hall.director.study_list import WordsRefused
from kiosk.director.blueprint import bp, director_only
from kiosk.director.form_action import act_and_return
from kiosk.errors import error_response
from kiosk.hall import get_hall
from kiosk.i18n import number
from kiosk.staff_web import current_staff


def remembered(say):
    """`say` (a number as the page's language writes it) asked once per value: a season's
    table repeats the same few small numbers thousands of times, and Babel's is not cheap."""
    said: dict = {}

    def number(value):
        found = said.get(value)
        if found is None:
            found = said[value] = say(value)
        return found

    return number


def _words() -> bool:
    return request.args.get("words", "") not in ("", "0")


def _build(slug: str):
    """The report asked for, or the 409 answer refusing its words before the close."""
    try:
        return event_report.build(get_hall(), slug, words=_words()), None
    except WordsRefused as exc:
        return None, error_response(
            409,
            str(exc),
            link=(url_for("director.report_view", slug=slug), "The report without the words"),
        )


@bp.get("/report/<slug>")
@director_only
def report_view(slug: str):
    found, refused = _build(slug)
    if refused is not None:
        return refused
    said = get_translations()
    return render_template(
        "director/record.html",
        heading=report_page.title(found, said.gettext),
        body=report_page.body(found, said.gettext, remembered(number)),
        report=found,
        words=found.words,
        json_url=url_for(
            "director.report_json",
            slug=found.tournament.slug,
            **({"words": 1} if found.words else {}),
        ),
    )


@bp.get("/report/<slug>.csv")
@director_only
def report_csv(slug: str):
    found = event_report.build(get_hall(), slug)
    return _download(report_files.report_csv(found), "text/csv", f"{slug}-challenges.csv")


@bp.get("/report/<slug>.json")
@director_only
def report_json(slug: str):
    found, refused = _build(slug)
    if refused is not None:
        return refused
    return Response(
        report_files.report_json(found),
        mimetype="application/json",
        headers={"Cache-Control": "no-store"},
    )


@bp.get("/report.css")
@director_only
def report_style():
    """The report's stylesheet (the one `adjudicator report` puts in its file)."""
    return Response(report_page.STYLE, mimetype="text/css")


def _season_days(args) -> tuple[str, str]:
    """The season asked for, else from the first tournament's first day to the last's."""
    days = sorted(seasons.day_of(t) for t in tournaments.list_all(get_hall().db))
    today = date.today().isoformat()
    start = args.get("from", "").strip() or (days[0] if days else today)
    end = args.get("to", "").strip() or (days[-1] if days else today)
    return start, end


@bp.get("/season")
@director_only
def season_view():
    start, end = _season_days(request.args)
    sort = request.args.get("sort", "name")
    descending = request.args.get("order", "") == "desc"
    try:
        found = seasons.build(get_hall(), start, end, sort, descending)
    except seasons.SeasonError as exc:
        flash(str(exc), "error")
        found = seasons.build(get_hall(), *_season_days({}), "name", False)
    said = get_translations()

    def sort_link(column: str, down: bool) -> str:
        return url_for(
            "director.season_view",
            **{"from": found.start, "to": found.end, "sort": column},
            **({"order": "desc"} if down else {}),
        )

    return render_template(
        "director/season.html",
        heading=season_page.title(found, said.gettext),
        body=season_page.body(found, said.gettext, remembered(number), sort_link),
        season=found,
        csv_url=url_for(
            "director.season_csv",
            **{"from": found.start, "to": found.end, "sort": found.sort},
            **({"order": "desc"} if found.descending else {}),
        ),
    )


@bp.get("/season.csv")
@director_only
def season_csv():
    start, end = _season_days(request.args)
    found = seasons.build(
        get_hall(), start, end, request.args.get("sort", "name"),
        request.args.get("order", "") == "desc",
    )  # fmt: skip
    return _download(
        report_files.season_csv(found), "text/csv", f"season-{found.start}-to-{found.end}.csv"
    )


def _download(text: str, mimetype: str, name: str) -> Response:
    return Response(
        text,
        mimetype=mimetype,
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store",
        },
    )


@bp.get("/tournaments/<slug>/close")
@director_only
def close_confirm(slug: str):
    """The confirmation before an event closes: what closing does, and a reason box."""
    found = tournaments.get(get_hall().db, slug)
    return render_template(
        "director/tournament_close.html",
        tournament=found,
        closing=event_close.closing(get_hall(), found.slug),
    )


@bp.post("/tournaments/<slug>/close")
@director_only
def close_tournament(slug: str):
    hall = get_hall()
    actor = current_staff().name
    return act_and_return(
        lambda: event_close.close(hall, slug, actor, request.form.get("reason", "")),
        lambda made: _(
            "Tournament %(slug)s is closed: no challenge is judged for it from now on. Its "
            "report may now be published.",
            slug=made.tournament,
        ),
        url_for("director.tournament_list"),
    )


@bp.post("/tournaments/<slug>/reopen")
@director_only
def reopen_tournament(slug: str):
    hall = get_hall()
    actor = current_staff().name
    return act_and_return(
        lambda: event_close.reopen(hall, slug, actor, request.form.get("reason", "")),
        lambda made: _(
            "Tournament %(slug)s is open again: challenges are judged for it.",
            slug=made.tournament,
        ),
        url_for("director.tournament_list"),
    )
