"""`adjudicator kiosk ...`: enrol, pair, list, move and revoke kiosks."""

from __future__ import annotations

import json

import click

from adjudicator.cli.common import json_option, open_hall, public_url
from adjudicator.hall import kiosks, tournaments


@click.group()
def kiosk() -> None:
    """Kiosks: the challenge computers and tablets of a tournament."""


@kiosk.command("add")
@click.argument("name")
@click.option("--tournament", "-t", required=True, help="Tournament slug the kiosk judges for.")
def add(name: str, tournament: str):
    """Enrol kiosk NAME; prints a one-time pairing link, and its token on the last line."""
    hall = open_hall()
    enrolment = kiosks.add(hall.db, name, tournament)
    click.echo(f"Kiosk {name!r} enrolled for {tournament}.")
    click.echo(pairing_text(enrolment, hall))
    click.echo("API token (shown once; send it as 'Authorization: Bearer <token>'):")
    click.echo(enrolment.token)


@kiosk.command("pair")
@click.argument("name")
def pair(name: str):
    """A new one-time pairing link for kiosk NAME (unpairs the browser paired before)."""
    hall = open_hall()
    click.echo(pairing_text(kiosks.new_pairing(hall.db, name), hall))


@kiosk.command("list")
@json_option
def list_(as_json: bool):
    """List kiosks with their tournament and state."""
    found = kiosks.list_all(open_hall().db)
    rows = [
        {
            "name": k.name,
            "tournament": k.tournament,
            "active": k.active,
            "revoked_at": k.revoked_at,
            "last_seen_at": k.last_seen_at,
            "paired": bool(k.session_nonce),
        }
        for k in found
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        state = "revoked" if not row["active"] else ("paired" if row["paired"] else "not paired")
        click.echo(
            f"{row['name']:<20} {row['tournament']:<24} {state:<10} "
            f"last seen {row['last_seen_at'] or '-'}"
        )


@kiosk.command("revoke")
@click.argument("name")
def revoke(name: str):
    """Lock kiosk NAME out at once: its token and paired browsers stop working."""
    kiosks.revoke(open_hall().db, name)
    click.echo(f"Kiosk {name!r} revoked.")


@kiosk.command("move")
@click.argument("name")
@click.option("--tournament", "-t", required=True)
def move(name: str, tournament: str):
    """Assign kiosk NAME to another tournament."""
    kiosks.move(open_hall().db, name, tournament)
    click.echo(f"Kiosk {name!r} now judges for {tournament}.")


def pairing_text(enrolment: kiosks.Enrolment, hall) -> str:
    code = enrolment.pairing_code
    language = tournaments.get(hall.db, enrolment.kiosk.tournament).language
    return (
        f"Pairing link (one use, until {enrolment.pairing_expires_at[:16]} UTC): "
        f"{kiosks.pairing_link(public_url(), code, language)}\n"
        f"Or open {public_url()}/pair on the kiosk and type the code {code}"
    )
