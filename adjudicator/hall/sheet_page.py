"""The printable pairing sheet: per table its name and the QR code (inline SVG) of its link.

One self-contained HTML page (no file or script it loads), printing on A4 and on Letter, four
tables a page. Written by `adjudicator kiosk sheet` and by the director's Kiosks page.
"""

from __future__ import annotations

from html import escape

from adjudicator.hall.pairing_sheet import SheetTable

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


def render(tournament_title: str, slug: str, sheet: list[SheetTable], base_url: str) -> str:
    """The sheet as an HTML page."""
    pages = [sheet[i : i + PER_PAGE] for i in range(0, len(sheet), PER_PAGE)]
    title = escape(f"Pairing sheet: {tournament_title}")
    body = "\n".join(
        '<section class="sheet-page">\n'
        + "\n".join(_card(tournament_title, t, base_url) for t in page)
        + "\n</section>"
        for page in pages
    )
    base = escape(base_url.rstrip("/"))
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<style>{_STYLE}</style>
</head>
<body>
<main>
<h1 class="intro">{title} ({escape(slug)}), {len(sheet)} table(s)</h1>
<p class="intro" id="sheet-intro">Cut along the dashed lines and put each card at its table.
Each code pairs one screen, once; printing a new
sheet replaces every code on this one. Keep the sheet from players until the tablets are paired.
Tablets first trust the hall at <strong>{base}/hall/trust</strong>.</p>
{body}
</main>
</body>
</html>
"""


def _card(tournament_title: str, table: SheetTable, base_url: str) -> str:
    import segno

    qr = segno.make(table.link, error="m").svg_inline(
        omitsize=True, title=f"Pairing link for table {table.number}", svgclass="qr"
    )
    base = escape(base_url.rstrip("/"))
    return f"""<article class="table-card" id="table-{table.number}">
<h2>Table {table.number}</h2>
<p class="tournament">{escape(tournament_title)}</p>
{qr}
<p>Scan with this table's tablet, then press <em>Pair this screen</em>.</p>
<p>Or open <strong>{base}/pair</strong> and type</p>
<p class="code">{escape(table.pairing_code)}</p>
<p class="once">This code works once: once used it cannot pair another screen.
It lasts until used, or until the director revokes it.</p>
</article>"""
