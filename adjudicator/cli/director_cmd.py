"""The director's decisions that no kiosk judges: `free-challenge` (NSA VI.C) and
`director-challenge` (placement and exchange: WESPA 3.10.16-17 and their like)."""

from __future__ import annotations

import json

import click

from adjudicator.cli.common import cli_actor, json_option, open_hall
from adjudicator.hall.director import director_decisions
from adjudicator.judging import director_challenges
from adjudicator.record.journal.journal import Entry
from adjudicator.record.proofs import receipts


@click.command("free-challenge")
@click.option("--tournament", "slug", required=True, help="The tournament (its slug).")
@click.option(
    "--to",
    "to",
    required=True,
    metavar="NAME",
    help="The player who gets it, as challenges "
    "name the challenger (in a tournament linked to TSH, as TSH names them).",
)
@click.option("--round", "round_no", default=None, help="Only in this round's game (with --table).")
@click.option("--table", default=None, help="Only in the game at this table.")
@click.option("--reason", required=True, help="Why (recorded in the journal).")
@json_option
def free_challenge(
    slug: str, to: str, round_no: str | None, table: str | None, reason: str, as_json: bool
):
    """Grant player NAME one free challenge: their next unsuccessful challenge (in that game,
    where one is named) costs nothing, and its row cites the grant.

    NSA VI.C names it ("give the opponent a free challenge", for a player who records the
    score before making the play); under another rulebook it is the director's discretion,
    cited from that rulebook. Other players' challenges are not affected; a grant not yet used
    shows with the tournament (`tournament show`, the Tournaments page).
    """
    hall = open_hall()
    actor = cli_actor()
    entry = director_decisions.grant_free_challenge(
        hall.db, slug, to, reason, actor=actor, station=actor, round_no=round_no, table=table
    )
    _print(hall, entry, as_json, f"Free challenge #{entry.id} granted to {entry.challenger}.")


@click.command("director-challenge")
@click.option("--tournament", "slug", required=True, help="The tournament (its slug).")
@click.option(
    "--kind",
    type=click.Choice(director_challenges.KINDS),
    required=True,
    help="placement: the play's placement (centre square, one word, diagonal, beyond the grid, "
    "misoriented); exchange: an exchange with fewer than seven tiles in the bag.",
)
@click.option(
    "--outcome",
    type=click.Choice(list(director_challenges.OUTCOMES)),
    required=True,
    help="upheld: the challenge succeeds; dismissed: it fails (no penalty to the challenger).",
)
@click.option("--table", default=None, help="The game's table.")
@click.option("--round", "round_no", default=None, help="The game's round.")
@click.option("--challenger", default=None, help="Who challenged.")
@click.option("--player", default=None, help="Whose play or exchange was challenged.")
@click.option("--reason", required=True, help="What the director found (recorded).")
@click.option(
    "--points",
    metavar="N",
    default=None,
    help="Points to the player whose play or exchange was challenged, negative for a deduction "
    "(NASPA 4.11(a): -30; school rule 8's penalty), recorded as penalty.points_to_player.",
)
@json_option
def director_challenge(
    slug: str,
    kind: str,
    outcome: str,
    table: str | None,
    round_no: str | None,
    challenger: str | None,
    player: str | None,
    reason: str,
    points: str | None,
    as_json: bool,
):
    """Record the director's decision on a challenge no word list decides: a play's placement
    or an exchange's legality.

    It cites WESPA 3.10.16 or 3.10.17, NASPA 4.7-4.8 or 4.11(a), NSA IV.B/IV.D/IV.F.1 or
    IV.H.3, MSA 10.1 and 20, school rules 1, 3 and 8: the tournament's own (none with no
    rulebook named). It is a journal row of its own kind: no words, no lexicon, no penalty to
    the challenger, never counted among unsuccessful challenges. Where the rulebook penalises
    the offender, it says what, for the scorecard; the points the director gives are --points,
    counted in the game's totals and the export.
    """
    hall = open_hall()
    actor = cli_actor()
    entry = director_decisions.decide_challenge(
        hall.db,
        slug,
        kind,
        outcome,
        reason,
        actor=actor,
        station=actor,
        table=table,
        round=round_no,
        challenger=challenger,
        player=player,
        points=points,
    )
    _print(hall, entry, as_json, f"{entry.verdict}: {kind} challenge #{entry.id}.")


def _print(hall, entry: Entry, as_json: bool, headline: str) -> None:
    """The row as recorded (JSON: the export's fields), signed like every verdict."""
    receipt = hall.receipt(entry)
    if as_json:
        from adjudicator.hall.director.export import export_json

        click.echo(json.dumps({**export_json(entry), "receipt": receipt}))
        return
    click.echo(headline)
    click.echo(entry.consequence)
    offender = entry.detail("offender")
    if offender:
        click.echo(f"For the scorecard: {offender}")
    click.echo(f"Reason: {entry.note}")
    click.echo(f"Receipt: {receipts.code(receipt)}")
