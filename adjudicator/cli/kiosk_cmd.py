"""`adjudicator kiosk ...`: enrol, pair, list, move and revoke kiosks; print a pairing sheet."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from adjudicator.cli.common import json_option, open_hall, public_url
from adjudicator.hall import kiosks, tournaments


@click.group()
def kiosk() -> None:
    """Kiosks: the challenge computers and tablets of a tournament."""


@kiosk.command("add")
@click.argument("name")
@click.option("--tournament", "-t", required=True, help="Tournament slug the kiosk judges for.")
@click.option(
    "--table",
    default=None,
    help="The table it sits at: every challenge made there that names no table is that table's.",
)
def add(name: str, tournament: str, table: str | None):
    """Enrol kiosk NAME; prints a one-time pairing link, and its token on the last line."""
    hall = open_hall()
    enrolment = kiosks.add(hall.db, name, tournament, table=table)
    seat = f" at table {enrolment.kiosk.table}" if enrolment.kiosk.table else ""
    click.echo(f"Kiosk {name!r} enrolled for {tournament}{seat}.")
    click.echo(hall.rate_limits.describe(seated=enrolment.kiosk.table is not None))
    click.echo(pairing_text(enrolment, hall=hall))
    click.echo("API token (shown once; send it as 'Authorization: Bearer <token>'):")
    click.echo(enrolment.token)


@kiosk.command("pair")
@click.argument("name")
def pair(name: str):
    """A new one-time pairing link for kiosk NAME (unpairs the browser paired before)."""
    hall = open_hall()
    click.echo(pairing_text(kiosks.new_pairing(hall.db, name), hall=hall))


@kiosk.command("list")
@json_option
def list_(as_json: bool):
    """List kiosks with their tournament and state."""
    found = kiosks.list_all(open_hall().db)
    rows = [
        {
            "name": k.name,
            "tournament": k.tournament,
            "table": k.table_no,
            "active": k.active,
            "revoked_at": k.revoked_at,
            "last_seen_at": k.last_seen_at,
            "paired": bool(k.session_nonce),
            "speaks": k.speaks,
            "large": k.large,
        }
        for k in found
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        state = "revoked" if not row["active"] else ("paired" if row["paired"] else "not paired")
        table = f"table {row['table']}" if row["table"] else "no table"
        click.echo(
            f"{row['name']:<20} {row['tournament']:<24} {table:<10} {state:<10} "
            f"last seen {row['last_seen_at'] or '-'}"
        )


@kiosk.command("revoke")
@click.argument("name")
def revoke(name: str):
    """Lock kiosk NAME out at once: its token, pairing code and paired browsers stop working."""
    kiosks.revoke(open_hall().db, name)
    click.echo(
        f"Kiosk {name!r} revoked: its token, pairing code and paired screens no longer work."
    )


@kiosk.command("move")
@click.argument("name")
@click.option("--tournament", "-t", required=True, help="Tournament slug it judges for now.")
def move(name: str, tournament: str):
    """Assign kiosk NAME to another tournament: its pairing code and paired browsers stop
    working (its token goes on)."""
    kiosks.move(open_hall().db, name, tournament)
    click.echo(
        f"Kiosk {name!r} now judges for {tournament}. Its pairing code and paired screens no "
        f"longer work: pair it again (`adjudicator kiosk pair {name!r}`, or print a sheet)."
    )


@kiosk.command("table")
@click.argument("name")
@click.argument("table")
def table_(name: str, table: str):
    """Seat kiosk NAME at table TABLE (a number; `none` for a kiosk of several tables)."""
    hall = open_hall()
    moved = kiosks.set_table(hall.db, name, None if table.lower() == "none" else table)
    where = f"at table {moved.table}" if moved.table else "at no table of its own"
    click.echo(f"Kiosk {name!r} now sits {where}.")
    click.echo(hall.rate_limits.describe(seated=moved.table is not None))


@kiosk.command("access")
@click.argument("name")
@click.option(
    "--speak/--no-speak",
    default=None,
    help="Say each verdict aloud (its word and consequence, never a word of the challenge), "
    "in the tournament's language, with the browser's speech.",
)
@click.option("--large/--no-large", default=None, help="A large, high-contrast screen.")
def access(name: str, speak: bool | None, large: bool | None):
    """Show kiosk NAME's verdict to a player who cannot see the screen well: spoken aloud and
    large (NASPA's special needs practice); without options, say how it is set. Its paired
    screen follows within seconds."""
    hall = open_hall()
    if speak is None and large is None:
        found = kiosks.get(hall.db, name)
    else:
        found = kiosks.set_access(hall.db, name, speak=speak, large=large)
    said = "says each verdict aloud" if found.speaks else "does not speak"
    shown = "a large, high-contrast screen" if found.large else "the usual screen"
    click.echo(f"Kiosk {name!r} {said}, on {shown}.")


@kiosk.command("sheet")
@click.option("--tournament", "-t", required=True, help="Tournament slug the kiosks judge for.")
@click.option("--tables", required=True, help="Table numbers, such as 1-20 or 1-6,8,10-12.")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="The HTML file to write (default pairing-sheet-SLUG.html here).",
)
@click.option(
    "--valid-hours",
    default="72",
    show_default=True,
    metavar="N",
    help="The codes expire N hours after printing (1 to 720); each card prints when.",
)
def sheet(tournament: str, tables: str, output: str | None, valid_hours: str):
    """Print a pairing sheet: a kiosk per table, each with a QR code that pairs it once."""
    from adjudicator.hall import pairing_sheet, sheet_page, tournaments
    from adjudicator.hall.network import hall_tls, hall_url

    hours = pairing_sheet.valid_hours(valid_hours)
    numbers = pairing_sheet.tables(tables)
    hall = open_hall()
    found = tournaments.get(hall.db, tournament)
    base = public_url()
    entries = pairing_sheet.enrol_tables(hall.db, tournament, numbers, base, hours)
    path = Path(output or f"pairing-sheet-{tournament}.html")
    fingerprint = hall_tls.read_ca_fingerprint()
    trust = hall_url.trust_address(base)
    page = sheet_page.render(
        found.title, tournament, entries, base, fingerprint=fingerprint, trust_url=trust
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # it holds pairing codes
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(page)
    new = sum(1 for e in entries if e.new)
    click.echo(
        f"Wrote {path}: {len(entries)} table(s) of {tournament} ({new} kiosk(s) enrolled, "
        f"{len(entries) - new} given a new code), pairing at {base}."
    )
    expires = kiosks.local_time(entries[0].expires_at)
    click.echo(
        "Open it in a browser and print it (A4 or Letter). Each code pairs once, until "
        f"{expires} (this computer's clock)."
    )
    click.echo(f"Tablets first trust the hall at {trust} (the sheet says so).")
    if fingerprint:
        heading = "The sheet shows the hall's certificate fingerprint (SHA-256):"
        click.echo(hall_tls.fingerprint_block(fingerprint, heading))
    else:
        click.echo("No hall certificate yet: the sheet has no fingerprint to compare.")
    if not base.startswith("https://"):
        click.echo(
            "Note: these links are not HTTPS; on the hall's Wi-Fi start `adjudicator hall` "
            "first, then print the sheet again."
        )


def pairing_text(enrolment: kiosks.Enrolment, recorded: bool = True, hall=None) -> str:
    """The pairing link and code, as printed (`recorded=False`: the address `serve` binds,
    not the hall's recorded URL); with `hall`, the link speaks the tournament's language."""
    code = enrolment.pairing_code
    language = "en"
    if hall is not None:
        language = tournaments.get(hall.db, enrolment.kiosk.tournament).language
    base = public_url(recorded=recorded)
    lasts = f"one use, until {enrolment.pairing_expires_at[:16].replace('T', ' ')} UTC"
    return (
        f"Pairing link ({lasts}): "
        f"{kiosks.pairing_link(base, code, language)}\n"
        f"Or open {base}/pair on the kiosk and type the code {code}"
    )
