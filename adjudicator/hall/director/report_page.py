"""The event's challenge report as HTML: one page, printable on A4, in the director's language.

`body` is the report's content; `page` puts it in a page of its own (its stylesheet inline, or
linked), as `adjudicator report --format html` writes it and TSH's folder publishes it. The
director's page (/director/report/SLUG) shows the same `body` inside the staff's pages, with
STYLE linked. Each challenge shows one verdict, that of the whole play; a column of the words not
in the lexicon appears only in a closed event's report asked for them (study_list.py).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from adjudicator.hall.director.report import TOTALS, ChallengeLine, Report
from adjudicator.wording import N_, utc_time

Text = Callable[[str], str]

LABELS = {
    "challenges_made": N_("Challenges made"),
    "challenges_won": N_("Won: the play came off"),
    "challenges_lost": N_("Lost: the play stood"),
    "challenges_undecided": N_("Awaiting the word judge"),
    "penalty_points": N_("Penalty points"),
    "penalty_turns": N_("Turns lost"),
    "penalty_seconds": N_("Seconds lost"),
    "plays_challenged": N_("Plays challenged"),
    "plays_came_off": N_("Came off"),
    "plays_stood": N_("Stood"),
    "plays_undecided": N_("Plays awaiting the word judge"),
    "free_challenges_granted": N_("Free challenges granted"),
    "free_challenges_used": N_("Free challenges used"),
    "opinions_changed": N_("Verdicts a second opinion changed"),
    "rulings_changed": N_("Verdicts a ruling changed"),
    "voided": N_("Their challenges void"),
    "plays_voided": N_("Challenges of their plays void"),
    "director_points": N_("The director's points"),
    "unnamed": N_("Naming no challenger"),
    "name": N_("Player"),
    "tournaments": N_("Tournaments"),
}
# The players' two tables: the challenges they made, and their plays others challenged. A column
# every player has at zero is left out of the page (never out of the CSV or the JSON), unless
# it is one of the first three of its table.
MADE = (
    "challenges_made",
    "challenges_won",
    "challenges_lost",
    "challenges_undecided",
    "penalty_points",
    "penalty_turns",
    "penalty_seconds",
    "free_challenges_granted",
    "free_challenges_used",
    "voided",
)
PLAYED = (
    "plays_challenged",
    "plays_came_off",
    "plays_stood",
    "plays_undecided",
    "plays_voided",
    "opinions_changed",
    "rulings_changed",
    "director_points",
)

_TITLE = N_("Challenge report: {title}")
_CLOSED = N_("Closed {time} UTC by {by}.")
_OPEN = N_(
    "This event is not closed: this report is the director's alone until it is, and it names "
    "no word not in the lexicon."
)
_EVENT = N_("Lexicon {lexicon}, rule {rule}, rulebook {rulebook}, first day {date}.")
_NONE = N_("none")
_TOTALS = N_("The event's totals")
_EVENT_COLUMN = N_("The event")
_MADE_HEADING = N_("The challenges each player made")
_PLAYED_HEADING = N_("Each player's plays that were challenged")
_DIVISION = N_("Division")
_ROUND = N_("Round {round}")
_NO_ROUND = N_("No round given")
_VOID_HEADING = N_("Void challenges (counted only as void)")
_NO_CHALLENGES = N_("No challenge was recorded for this event.")
_NO_VOID = N_("None.")
_COLUMNS = {
    "id": N_("No."),
    "table": N_("Table"),
    "players": N_("Players"),
    "challenger": N_("Challenger"),
    "words": N_("Words"),
    "verdict": N_("Verdict of the play"),
    "consequence": N_("Consequence"),
    "corrections": N_("Corrections"),
    "not_in_lexicon": N_("Not in the lexicon"),
}
_FIGURE = N_("Figure")

STYLE = """.record { font-size: 0.95rem; }
.record table { border-collapse: collapse; width: 100%; margin: 0.4rem 0 1rem; table-layout: auto;
  background: #fff; }
.record th, .record td { border: 1px solid #8c959f; padding: 0.2rem 0.35rem; text-align: left;
  vertical-align: top; }
.record td { overflow-wrap: anywhere; }
.record thead th { hyphens: auto; }
.record #totals { width: auto; min-width: 50%; }
.record th { background: #eaeef2; }
.record td.num, .record th.num { text-align: right; font-variant-numeric: tabular-nums; }
.record caption { text-align: left; font-weight: 600; padding: 0.2rem 0; }
.record .words { font-family: ui-monospace, Menlo, Consolas, monospace; }
.record .came-off { color: #a40e26; font-weight: 600; }
.record .void { color: #5a6470; }
.record ul.corrections { margin: 0; padding-left: 1rem; }
.record .scroll { overflow-x: auto; }
.record .state { font-weight: 600; }
.record a.sort { color: inherit; }
@page { size: A4; margin: 12mm; }
@media print {
  .staff-bar, .no-print, .flash { display: none !important; }
  body, body.staff { background: #fff; font-size: 9pt; }
  .staff-main { max-width: none; padding: 0; }
  .record { font-size: 8pt; }
  .record .scroll { overflow: visible; }
  .record table { page-break-inside: auto; }
  .record tr { break-inside: avoid; page-break-inside: avoid; }
  .record thead { display: table-header-group; }
  .record h2 { break-after: avoid; page-break-after: avoid; }
}
"""
PAGE_STYLE = (
    "body { font-family: system-ui, sans-serif; margin: 1rem; color: #1b1f23; }\n"
    "@media screen { body { max-width: 1100px; margin: 1rem auto; padding: 0 1rem; } }\n"
)


def _english(text: str) -> str:
    return text


def page(
    body_html: str,
    title: str,
    *,
    stylesheet: str | None = None,
    language: str = "en",
) -> str:
    """A whole HTML page around `body_html` (its STYLE inline, or linked at `stylesheet`)."""
    style = (
        f'<link rel="stylesheet" href="{escape(stylesheet)}">'
        if stylesheet
        else f"<style>{PAGE_STYLE}{STYLE}</style>"
    )
    return f"""<!doctype html>
<html lang="{escape(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{escape(title)}</title>
{style}
</head>
<body>
<main>
{body_html}
</main>
</body>
</html>
"""


def title(report: Report, gettext: Text = _english) -> str:
    return gettext(_TITLE).format(title=report.tournament.title)


def body(report: Report, gettext: Text = _english, number: Callable = str) -> str:
    """The report's content: its state, totals, players' figures, rounds and void challenges."""
    _ = gettext
    t = report.tournament
    if report.closing is not None:
        state = _(_CLOSED).format(time=utc_time(report.closing.at, False), by=report.closing.by)
    else:
        state = _(_OPEN)
    event = _(_EVENT).format(
        lexicon=t.lexicon, rule=t.rule, rulebook=t.rulebook or _(_NONE), date=t.event_date or ""
    )
    parts = [
        f'<h1 id="report-title">{escape(title(report, _))}</h1>',
        f'<p class="state" id="report-state">{escape(state)}</p>',
        f"<p>{escape(event)}</p>",
        f"<h2>{escape(_(_TOTALS))}</h2>",
        _totals(report, _, number),
        f"<h2>{escape(_(_MADE_HEADING))}</h2>",
        players_table(report, MADE, "players-made", _, number),
        f"<h2>{escape(_(_PLAYED_HEADING))}</h2>",
        players_table(report, PLAYED, "players-played", _, number),
    ]
    if not report.rounds:
        parts.append(f"<p>{escape(_(_NO_CHALLENGES))}</p>")
    for name, lines in report.rounds:
        heading = _(_ROUND).format(round=name) if name is not None else _(_NO_ROUND)
        anchor = f"round-{escape(name or 'none')}"
        parts.append(f'<h2 id="{anchor}">{escape(heading)}</h2>')
        parts.append(_round_table(report, lines, _))
    parts.append(f'<h2 id="void">{escape(_(_VOID_HEADING))}</h2>')
    parts.append(_void_list(report, _))
    return '<section class="record" id="report">\n' + "\n".join(parts) + "\n</section>"


def _totals(report: Report, _: Text, number: Callable) -> str:
    divisions = list(report.divisions)
    head = "".join(f'<th scope="col" class="num">{escape(d)}</th>' for d in divisions)
    rows = []
    for name in TOTALS:
        cells = "".join(
            f'<td class="num">{escape(number(report.divisions[d][name]))}</td>' for d in divisions
        )
        rows.append(
            f'<tr id="total-{name}"><th scope="row">{escape(_(LABELS[name]))}</th>'
            f'<td class="num">{escape(number(report.totals[name]))}</td>{cells}</tr>'
        )
    return (
        '<table id="totals"><thead><tr>'
        f'<th scope="col">{escape(_(_FIGURE))}</th>'
        f'<th scope="col" class="num">{escape(_(_EVENT_COLUMN))}</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def shown_columns(rows: list[dict[str, int]], columns: tuple[str, ...]) -> list[str]:
    """The columns of `columns` worth a place on the page: the first three, and any other that
    is not zero for every row."""
    return [c for i, c in enumerate(columns) if i < 3 or any(row[c] for row in rows)]


def players_table(
    report: Report, columns: tuple[str, ...], table_id: str, _: Text, number: Callable
) -> str:
    figures = [p.figures for p in report.players]
    shown = shown_columns(figures, columns)
    divided = any(p.division for p in report.players)
    head = f'<th scope="col">{escape(_(LABELS["name"]))}</th>'
    if divided:
        head += f'<th scope="col">{escape(_(_DIVISION))}</th>'
    head += "".join(f'<th scope="col" class="num">{escape(_(LABELS[c]))}</th>' for c in shown)
    rows = []
    for p in report.players:
        cells = f'<th scope="row">{escape(p.name)}</th>'
        if divided:
            cells += f"<td>{escape(p.division)}</td>"
        cells += "".join(f'<td class="num">{escape(number(p.figures[c]))}</td>' for c in shown)
        rows.append(f"<tr>{cells}</tr>")
    return (
        f'<div class="scroll"><table id="{table_id}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _round_table(report: Report, lines: list[ChallengeLine], _: Text) -> str:
    columns = list(_COLUMNS)
    if not report.words:
        columns.remove("not_in_lexicon")
    head = "".join(f'<th scope="col">{escape(_(_COLUMNS[c]))}</th>' for c in columns)
    rows = "".join(_line(line, columns, _) for line in lines)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _line(line: ChallengeLine, columns: list[str], _: Text) -> str:
    result = line.result
    kind = {"came off": "came-off", "void": "void"}.get(result, "")
    corrections = "".join(
        f"<li>{escape(said.render(_, _plural))}</li>" for said in line.corrections
    )
    cells = {
        "id": f'<th scope="row">{line.id}</th>',
        "table": f"<td>{escape(line.table or '')}</td>",
        "players": f"<td>{escape(' / '.join(line.players))}</td>",
        "challenger": f"<td>{escape(line.challenger or '')}</td>",
        "words": f'<td class="words">{escape(" ".join(line.words))}</td>',
        "verdict": f'<td class="{kind}">{escape(_(result))}</td>',
        "consequence": f"<td>{escape(line.consequence)}</td>",
        "corrections": f'<td><ul class="corrections">{corrections}</ul></td>'
        if corrections
        else "<td></td>",
        "not_in_lexicon": f'<td class="words">{escape(" ".join(line.not_in_lexicon or []))}</td>',
    }
    return f'<tr id="challenge-{line.id}">' + "".join(cells[c] for c in columns) + "</tr>"


def _void_list(report: Report, _: Text) -> str:
    voided = report.voided
    if not voided:
        return f"<p>{escape(_(_NO_VOID))}</p>"
    items = []
    for line in voided:
        how = "; ".join(said.render(_, _plural) for said in line.corrections)
        who = " / ".join(line.players)
        items.append(f'<li id="void-{line.id}">#{line.id} ({escape(who)}): {escape(how)}</li>')
    return f'<ul id="void-list">{"".join(items)}</ul>'


def _plural(one: str, many: str, n: int) -> str:
    return one if n == 1 else many
