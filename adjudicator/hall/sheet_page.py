"""The printable pairing sheet: per table its name and the QR code (inline SVG) of its link.

One self-contained HTML page (no file or script it loads), printing on A4 and on Letter, four
tables a page. Written by `adjudicator kiosk sheet` and by the director's Kiosks page.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from adjudicator.hall.pairing_sheet import SheetTable
from adjudicator.wording import N_, NP_

# The sheet's words, for the kiosk's catalogues (babel.cfg): the director's Kiosks page prints
# the sheet in the tournament's language; `adjudicator kiosk sheet` prints it in English.
_TITLE = N_("Pairing sheet: {title}")
_HEADING = NP_("{title} ({slug}), {n} table", "{title} ({slug}), {n} tables")
_INTRO = N_(
    "Cut along the dashed lines and put each card at its table. Each code pairs one screen, "
    "once; printing a new sheet replaces every code on this one. Keep the sheet from players "
    "until the tablets are paired."
)
_TRUST = N_("Tablets first trust the hall at {address}.")
_QR_TITLE = N_("Pairing link for table {n}")
_TABLE = N_("Table {n}")
_SCAN = N_("Scan with this table's tablet, then press {button}.")
_BUTTON = N_("Pair this screen")
_OR_OPEN = N_("Or open {address} and type")
_ONCE = N_(
    "This code works once: once used it cannot pair another screen. It lasts until used, "
    "or until the director revokes it."
)


def _english(text: str) -> str:
    return text


def _english_plural(one: str, many: str, n: int) -> str:
    return one if n == 1 else many


PER_PAGE = 4

_STYLE = """
@page { margin: 10mm; }
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 0; color: #000; }
.sheet-page { display: grid; grid-template-columns: 1fr 1fr; gap: 6mm; padding: 2mm; }
.sheet-page + .sheet-page { break-before: page; page-break-before: always; }
.table-card { border: 0.4mm dashed #555; padding: 5mm; height: 108mm; break-inside: avoid;
  page-break-inside: avoid; display: flex; flex-direction: column; align-items: center;
  text-align: center; }
.table-card h2 { font-size: 18pt; margin: 0 0 1mm; }
.table-card .tournament { font-size: 10pt; margin: 0 0 2mm; }
.table-card svg { width: 46mm; height: 46mm; }
.table-card .code { font: bold 14pt ui-monospace, monospace; letter-spacing: 0.08em; }
.table-card p { font-size: 8.5pt; margin: 1mm 0; overflow-wrap: anywhere; }
.table-card .once { font-weight: bold; }
.intro { font-size: 10pt; padding: 0 2mm; margin: 1mm 0; }
h1.intro { font-size: 11pt; }
@media screen { body { max-width: 200mm; margin: 0 auto; } }
"""


def render(
    tournament_title: str,
    slug: str,
    sheet: list[SheetTable],
    base_url: str,
    *,
    gettext: Callable[[str], str] = _english,
    ngettext: Callable[[str, str, int], str] = _english_plural,
    language: str = "en",
) -> str:
    """The sheet as an HTML page, in the language of `gettext` and `ngettext` (`language` is
    its code, for `<html lang>`)."""
    _ = gettext
    pages = [sheet[i : i + PER_PAGE] for i in range(0, len(sheet), PER_PAGE)]
    title = escape(_(_TITLE).format(title=tournament_title))
    heading = escape(
        ngettext(*_HEADING, len(sheet)).format(title=tournament_title, slug=slug, n=len(sheet))
    )
    body = "\n".join(
        '<section class="sheet-page">\n'
        + "\n".join(_card(tournament_title, t, base_url, _) for t in page)
        + "\n</section>"
        for page in pages
    )
    base = escape(base_url.rstrip("/"))
    trust = escape(_(_TRUST)).format(address=f"<strong>{base}/hall/trust</strong>")
    return f"""<!doctype html>
<html lang="{escape(language)}">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<style>{_STYLE}</style>
</head>
<body>
<main>
<h1 class="intro">{heading}</h1>
<p class="intro" id="sheet-intro">{escape(_(_INTRO))}
{trust}</p>
{body}
</main>
</body>
</html>
"""


def _card(tournament_title: str, table: SheetTable, base_url: str, _=_english) -> str:
    import segno

    qr = segno.make(table.link, error="m").svg_inline(
        omitsize=True, title=_(_QR_TITLE).format(n=table.number), svgclass="qr"
    )
    base = escape(base_url.rstrip("/"))
    scan = escape(_(_SCAN)).format(button=f"<em>{escape(_(_BUTTON))}</em>")
    open_it = escape(_(_OR_OPEN)).format(address=f"<strong>{base}/pair</strong>")
    return f"""<article class="table-card" id="table-{table.number}">
<h2>{escape(_(_TABLE).format(n=table.number))}</h2>
<p class="tournament">{escape(tournament_title)}</p>
{qr}
<p>{scan}</p>
<p>{open_it}</p>
<p class="code">{escape(table.pairing_code)}</p>
<p class="once">{escape(_(_ONCE))}</p>
</article>"""
