"""`adjudicator quickstart`: the embedded defaults, ready to judge in a browser in one command."""

from __future__ import annotations

import os

import click

from adjudicator.cli.common import open_hall, public_url
from adjudicator.cli.judging import format_ruling, judge_text
from adjudicator.cli.kiosk_cmd import pairing_text
from adjudicator.cli.serve_cmd import serve
from adjudicator.errors import AdjudicatorError
from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.people import staff
from adjudicator.words.defaults import install_defaults

SAMPLES = (("TWL06", "double", ("QI", "ZA", "OK")), ("CSW19", "5-per-word", ("QI", "ZE", "OK")))
DEMO_TOURNAMENT = "demo"
DEMO_KIOSK = "hall-1"


@click.command()
@click.option("--bind", "-b", default=None, help="HOST:PORT to serve on.")
@click.option("--no-serve", is_flag=True, help="Set everything up, print the link, do not serve.")
@click.pass_context
def quickstart(ctx: click.Context, bind: str | None, no_serve: bool):
    """Install the default lexicons, a demo tournament and a kiosk, then serve."""
    hall = open_hall()
    install_defaults(hall.store, report=click.echo)
    for lexicon, rule, words in SAMPLES:
        click.echo(f"\n$ adjudicator judge --lexicon {lexicon} --rule {rule} {' '.join(words)}")
        ruling = judge_text(lexicon, rule, words, store=hall.store)
        click.echo(format_ruling(ruling))
    click.echo()
    try:
        tournament = tournaments.get(hall.db, DEMO_TOURNAMENT)
    except AdjudicatorError:
        tournament = tournaments.create(
            hall.db,
            hall.store,
            DEMO_TOURNAMENT,
            "TWL06",
            "double",
            "Demo tournament (TWL06, double challenge)",
        )
    click.echo(f"Tournament {tournament.slug}: {tournament.title}")
    try:
        enrolment = kiosks.new_pairing(hall.db, DEMO_KIOSK)
    except AdjudicatorError:
        enrolment = kiosks.add(hall.db, DEMO_KIOSK, DEMO_TOURNAMENT)
    if bind:
        os.environ["ADJUDICATOR_BIND"] = bind
    click.echo(f"Kiosk {DEMO_KIOSK}: open this in a browser to pair it and judge a challenge:")
    click.echo(pairing_text(enrolment, recorded=False))
    click.echo()
    click.echo(director_text(hall.db))
    if not no_serve:
        ctx.invoke(serve, bind=bind)


def director_text(db) -> str:
    """How to reach the director's pages from here: the password first, then the sign-in."""
    login = f"{public_url(recorded=False)}/director/login"
    if staff.get(db, "director") is None:
        return (
            "The director's pages (tournaments, lexicons, kiosks, the journal): first set the "
            "director's password, in another terminal:\n"
            "  adjudicator director set-password     (from a checkout: "
            ".venv/bin/adjudicator ...)\n"
            f"then open {login} and sign in as director."
        )
    return f"The director's pages: open {login} and sign in as director."
