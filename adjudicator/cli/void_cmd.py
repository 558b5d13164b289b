"""`adjudicator void ID --reason TEXT`: a challenge withdrawn, rescinded or entered by mistake."""

from __future__ import annotations

import click

from adjudicator.cli.common import cli_actor, open_hall


@click.command("void")
@click.argument("adjudication_id", type=int)
@click.option("--reason", required=True, help="Why it is void (recorded in the journal).")
@click.option(
    "--over-ruling",
    is_flag=True,
    help="Void it although you gave it a final ruling (the journal keeps both rows).",
)
@click.option(
    "--ground",
    type=click.Choice(["withdrawn", "rescinded", "late", "mistake"]),
    default="mistake",
    show_default=True,
    help="withdrawn: over a blank (NASPA 4.10, NSA IV.I.2; the play stands); rescinded: a "
    "challenge of the final play, rescinded when tiles the player going out should have drawn "
    "are found (NASPA 5.4); late: made after the time to challenge (school rule 11, NSA X.A, "
    "MSA 12(i), WESPA 3.10.1(c), NASPA 4.6 and 7.3, or the hall's practice; the play stands); "
    "mistake: entered by mistake. Each only where the tournament's rulebook has it.",
)
@click.option(
    "--revoke",
    is_flag=True,
    help="Revoke the void in effect on ADJUDICATION_ID (given on the wrong row); recorded.",
)
def void_cmd(adjudication_id: int, reason: str, over_ruling: bool, ground: str, revoke: bool):
    """Mark challenge ADJUDICATION_ID void: it then counts for nothing (no penalty to anyone).

    For a challenge withdrawn (NSA IV.I.2, NASPA 4.10), rescinded (NASPA 5.4), made late (after
    the time to challenge, as the tournament's rulebook bounds it) or entered by mistake.
    Appends a `void` row linked to it; the original row is kept. Voiding it again is refused
    (exit 2), and so is voiding a challenge with a ruling (a ruling is final, as the
    tournament's rulebook says) unless --over-ruling. A void given on the wrong row is revoked with
    --revoke (a `revocation` row; both stay in the journal).
    """
    from adjudicator.judging.corrections import voids

    hall = open_hall()
    actor = cli_actor()
    if revoke:
        row = voids.revoke(hall.db, adjudication_id, reason, actor=actor, station=actor)
        click.echo(
            f"The void on adjudication #{adjudication_id} is revoked (journal row #{row.id}, "
            f"by {actor}): it counts again as it stood before."
        )
        click.echo(f"Reason: {row.note}")
        return
    entry = voids.void(
        hall.db,
        adjudication_id,
        reason,
        actor=actor,
        station=actor,
        over_ruling=over_ruling,
        ground=ground,
    )
    click.echo(f"Adjudication #{entry.refers_to} is void (journal row #{entry.id}, by {actor}).")
    click.echo(f"Consequence: {entry.consequence}")
    click.echo(f"Reason: {entry.note}")
    click.echo(f"Ground: {voids.ground_title(hall.db, entry.tournament, ground)}")
