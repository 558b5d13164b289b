"""A season's record as HTML: every player over the season's tournaments, sortable by any
column (a link per column heading where the page is served; `adjudicator report --season
--format html` writes it sorted as asked), and the tournaments it covers."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from adjudicator.hall.director.report_page import LABELS, Text, _english
from adjudicator.hall.director.season import COLUMNS, Season, day_of
from adjudicator.wording import N_

_TITLE = N_("Season {start} to {end}")
_TOURNAMENTS = N_("Tournaments: {listed}.")
_NO_TOURNAMENTS = N_("No tournament's first day falls in this season.")
_CLOSED = N_("closed")
_OPEN = N_("not closed")
_PLAYERS = N_("Every player over the season")
_SORTED = N_("Sorted by {column}, {order}.")
_ASCENDING = N_("ascending")
_DESCENDING = N_("descending")
_NO_PLAYERS = N_("No challenge named a player in these tournaments.")


def title(season: Season, gettext: Text = _english) -> str:
    return gettext(_TITLE).format(start=season.start, end=season.end)


def body(
    season: Season,
    gettext: Text = _english,
    number: Callable = str,
    sort_link: Callable[[str, bool], str] | None = None,
) -> str:
    """The season's content; `sort_link(column, descending)` gives each heading's link (None:
    headings without links, as a file has them)."""
    _ = gettext
    listed = ", ".join(
        f"{t.title} ({t.slug}, {day_of(t)}, {_(_CLOSED) if t.slug in season.closed else _(_OPEN)})"
        for t in season.tournaments
    )
    intro = _(_TOURNAMENTS).format(listed=listed) if season.tournaments else _(_NO_TOURNAMENTS)
    order = _(_DESCENDING) if season.descending else _(_ASCENDING)
    sorted_by = _(_SORTED).format(column=_(LABELS[season.sort]), order=order)
    parts = [
        f'<h1 id="season-title">{escape(title(season, _))}</h1>',
        f'<p id="season-tournaments">{escape(intro)}</p>',
        f"<h2>{escape(_(_PLAYERS))}</h2>",
        f'<p id="season-sort">{escape(sorted_by)}</p>',
    ]
    if season.players:
        parts.append(_table(season, _, number, sort_link))
    else:
        parts.append(f"<p>{escape(_(_NO_PLAYERS))}</p>")
    return '<section class="record" id="season">\n' + "\n".join(parts) + "\n</section>"


def _table(season: Season, _: Text, number: Callable, sort_link) -> str:
    heads = []
    for column in COLUMNS:
        label = escape(_(LABELS[column]))
        numeric = ' class="num"' if column != "name" else ""
        sorted_here = column == season.sort
        aria = (
            f' aria-sort="{"descending" if season.descending else "ascending"}"'
            if sorted_here
            else ""
        )
        if sort_link is not None:
            descending = not season.descending if sorted_here else column != "name"
            label = f'<a class="sort" href="{escape(sort_link(column, descending))}">{label}</a>'
        heads.append(f'<th scope="col"{numeric}{aria} id="col-{column}">{label}</th>')
    rows = []
    for row in season.rows():
        cells = f'<th scope="row">{escape(row["name"])}</th>' + "".join(
            f'<td class="num">{escape(number(row[c]))}</td>' for c in COLUMNS[1:]
        )
        rows.append(f"<tr>{cells}</tr>")
    return (
        '<div class="scroll" tabindex="0" role="region" aria-labelledby="season-title">'
        f'<table id="season-players"><thead><tr>{"".join(heads)}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
