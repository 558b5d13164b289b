"""`adjudicator journal ...` and `adjudicator db upgrade`: the audit trail and its schema."""

from __future__ import annotations

import sys

import click

from adjudicator import export as export_rows
from adjudicator import journal, migrations, tournaments
from adjudicator.backends import connect
from adjudicator.cli.common import open_hall


@click.group("journal")
def journal_group() -> None:
    """The journal of every adjudication: export, verify."""


@journal_group.command("export")
@click.option("--tournament", "-t", default=None, help="Only this tournament's adjudications.")
@click.option(
    "--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True
)
def export(tournament: str | None, fmt: str):
    """Print the journal as CSV or as a JSON array (streamed: any size in constant memory)."""
    db = open_hall().db
    if tournament:
        tournaments.get(db, tournament)  # a mistyped slug is an error, not an empty export
    export_rows.write(db, sys.stdout, fmt, tournament)


@journal_group.command("verify")
def verify():
    """Check the hash chain; exit 1 naming the first bad row."""
    result = journal.verify(open_hall().db)
    if result.ok:
        click.echo(f"Journal intact: {result.rows:,} rows, hash chain verified.")
        if result.last_hash:
            # Rows cut off the end leave an intact chain: note this line to compare later.
            click.echo(f"Last row: {result.rows} {result.last_hash}")
        return
    click.echo(
        f"Journal BROKEN at row {result.first_bad_id}: {result.problem} "
        f"({result.rows:,} rows before it verified).",
        err=True,
    )
    sys.exit(1)


@click.group("db")
def db_group() -> None:
    """The journal database."""


@db_group.command("upgrade")
def upgrade():
    """Apply the journal's schema migrations (idempotent)."""
    database = connect()
    applied = migrations.upgrade(database)
    now = migrations.current_version(database)
    click.echo(
        f"Applied migrations {applied}; schema at version {now}."
        if applied
        else f"Schema already at version {now}."
    )
