"""The printable pairing sheet: per table its name, the QR code (inline SVG) of its link, its
code and when the code expires; on every page, the hall CA's fingerprint.

One HTML page printing on A4 and on Letter, four tables a page. `adjudicator kiosk sheet`
writes it self-contained (its stylesheet inline, nothing it loads); the director's Kiosks page
answers it with its stylesheet linked (`stylesheet`, served from STYLE), as the page's own
Content-Security-Policy allows no inline style. The sheet comes from the director's own
printer: its fingerprint is the one a tablet installing the hall's certificate is checked
against.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from adjudicator.hall.kiosks import local_time
from adjudicator.hall.network import hall_tls
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
_TRUST = N_(
    "Tablets first trust the hall at {address}. On that first visit the browser warns about "
    "the hall's certificate, as it should until the hall is trusted: go on to the page, then "
    "compare the fingerprint printed here."
)
_TRUST_PLAIN = N_(
    "Tablets first trust the hall at {address}: plain HTTP, so the browser shows no "
    "certificate warning there (over HTTPS it would, until the hall is trusted). Then compare "
    "the fingerprint printed here."
)
_FINGERPRINT = N_(
    "The hall's certificate (SHA-256 fingerprint): {fingerprint}. A tablet installing it must "
    "show the same."
)
_NO_FINGERPRINT = N_(
    "No hall certificate yet, so no fingerprint to compare: start {command} and print the "
    "sheet again."
)
_QR_TITLE = N_("Pairing link for table {n}")
_TABLE = N_("Table {n}")
_SCAN = N_("Scan with this table's tablet, then press {button}.")
_BUTTON = N_("Pair this screen")
_OR_OPEN = N_("Or open {address} and type")
_EXPIRES = N_("Valid until {time} (the hall's clock); then ask the director for a new card.")
_ONCE = N_("This code works once: once used it cannot pair another screen.")


def _english(text: str) -> str:
    return text


def _english_plural(one: str, many: str, n: int) -> str:
    return one if n == 1 else many


PER_PAGE = 4

# Two rows of two cards, with the fingerprint above them, fit an A4 page and a Letter page
# inside 10 mm margins (Letter is the shorter: 259 mm inside them).
STYLE = """@page { margin: 10mm; }
* { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 0; color: #000; background: #fff; }
.sheet-page { padding: 0 2mm; }
.sheet-page + .sheet-page { break-before: page; page-break-before: always; }
.cards { display: grid; grid-template-columns: 1fr 1fr; gap: 5mm; }
.fingerprint { font-size: 8pt; margin: 0 0 2mm; overflow-wrap: anywhere; }
.fingerprint code { font: bold 8pt ui-monospace, monospace; overflow-wrap: normal; }
.fingerprint-line { display: inline-block; }
.fingerprint-group { white-space: nowrap; }
.table-card { border: 0.4mm dashed #555; padding: 4mm; height: 104mm; break-inside: avoid;
  page-break-inside: avoid; display: flex; flex-direction: column; align-items: center;
  text-align: center; overflow: hidden; }
.table-card h2 { font-size: 17pt; margin: 0 0 1mm; }
.table-card .tournament { font-size: 10pt; margin: 0 0 1mm; }
.table-card svg.qr { width: 42mm; height: 42mm; flex: none; }
.table-card .code { font: bold 14pt ui-monospace, monospace; letter-spacing: 0.08em; }
.table-card p { font-size: 8.5pt; margin: 0.8mm 0; overflow-wrap: anywhere; }
.table-card .expires, .table-card .once { font-weight: bold; }
.intro { font-size: 9.5pt; padding: 0 2mm; margin: 0 0 1.5mm; }
h1.intro { font-size: 11pt; }
@media screen { body { max-width: 200mm; margin: 0 auto; } }
"""


def render(
    tournament_title: str,
    slug: str,
    sheet: list[SheetTable],
    base_url: str,
    *,
    fingerprint: str | None,
    trust_url: str | None = None,
    stylesheet: str | None = None,
    gettext: Callable[[str], str] = _english,
    ngettext: Callable[[str, str, int], str] = _english_plural,
    language: str = "en",
) -> str:
    """The sheet as an HTML page, in the language of `gettext` and `ngettext` (`language` is
    its code, for `<html lang>`): `fingerprint` is the hall CA's (None: there is none yet);
    `trust_url` where tablets trust the hall (hall_url.trust_address; default: over HTTPS at
    `base_url`); `stylesheet` the URL of STYLE, or None to put STYLE in the page."""
    _ = gettext
    pages = [sheet[i : i + PER_PAGE] for i in range(0, len(sheet), PER_PAGE)]
    title = escape(_(_TITLE).format(title=tournament_title))
    heading = escape(
        ngettext(*_HEADING, len(sheet)).format(title=tournament_title, slug=slug, n=len(sheet))
    )
    identity = _identity(fingerprint, _)
    body = "\n".join(
        f'<section class="sheet-page">\n{identity}\n<div class="cards">\n'
        + "\n".join(_card(tournament_title, t, base_url, _) for t in page)
        + "\n</div>\n</section>"
        for page in pages
    )
    trust_url = trust_url or f"{base_url.rstrip('/')}/hall/trust"
    said = _TRUST_PLAIN if trust_url.startswith("http://") else _TRUST
    trust = escape(_(said)).format(address=f"<strong>{escape(trust_url)}</strong>")
    style = (
        f'<link rel="stylesheet" href="{escape(stylesheet)}">'
        if stylesheet
        else f"<style>{STYLE}</style>"
    )
    return f"""<!doctype html>
<html lang="{escape(language)}">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
{style}
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


def fingerprint_html(fingerprint: str) -> str:
    """The fingerprint's two lines (hall_tls.fingerprint_lines) as HTML, for the sheet, the
    trust page and the overview alike: each line kept whole where it fits, and a narrow screen
    breaks only between groups, never inside one (the `fingerprint-line` and
    `fingerprint-group` classes of STYLE and the pages' stylesheets)."""
    return " ".join(
        '<span class="fingerprint-line">'
        + " ".join(
            f'<span class="fingerprint-group">{escape(group)}</span>' for group in line.split(" ")
        )
        + "</span>"
        for line in hall_tls.fingerprint_lines(fingerprint)
    )


def _identity(fingerprint: str | None, _=_english) -> str:
    """The line every page of the sheet begins with: the hall CA's fingerprint."""
    if fingerprint:
        shown = f"<code>{fingerprint_html(fingerprint)}</code>"
        said = escape(_(_FINGERPRINT)).format(fingerprint=shown)
    else:
        said = escape(_(_NO_FINGERPRINT)).format(command="<code>adjudicator hall</code>")
    return f'<p class="fingerprint">{said}</p>'


def _card(tournament_title: str, table: SheetTable, base_url: str, _=_english) -> str:
    import segno

    qr = segno.make(table.link, error="m").svg_inline(
        omitsize=True, title=_(_QR_TITLE).format(n=table.number), svgclass="qr"
    )
    base = escape(base_url.rstrip("/"))
    scan = escape(_(_SCAN)).format(button=f"<em>{escape(_(_BUTTON))}</em>")
    open_it = escape(_(_OR_OPEN)).format(address=f"<strong>{base}/pair</strong>")
    expires = escape(_(_EXPIRES).format(time=local_time(table.expires_at)))
    return f"""<article class="table-card" id="table-{table.number}">
<h2>{escape(_(_TABLE).format(n=table.number))}</h2>
<p class="tournament">{escape(tournament_title)}</p>
{qr}
<p>{scan}</p>
<p>{open_it}</p>
<p class="code">{escape(table.pairing_code)}</p>
<p class="expires">{expires}</p>
<p class="once">{escape(_(_ONCE))}</p>
</article>"""
