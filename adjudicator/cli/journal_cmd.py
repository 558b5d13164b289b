"""`adjudicator journal ...` and `adjudicator db upgrade`: the audit trail and its schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from adjudicator.cli import log_lines
from adjudicator.cli.common import CliError, json_option, open_hall
from adjudicator.cli.journal_verify import key_option, public_key, verify
from adjudicator.hall import tournaments
from adjudicator.hall.director import export as export_rows
from adjudicator.record.backends import connect
from adjudicator.record.database import migrations
from adjudicator.record.journal import receipt_key
from adjudicator.record.proofs import audit as audit_receipts
from adjudicator.record.proofs import checkpoints


@click.group("journal")
def journal_group() -> None:
    """The journal of every adjudication: export, verify, key, checkpoint, audit."""


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


journal_group.add_command(verify)


@journal_group.command("key")
def key():
    """Print the hall's receipt-signing public key (Ed25519, PEM)."""
    signing = receipt_key.load_or_create()
    click.echo(signing.public_pem().rstrip("\n"))


@journal_group.command("checkpoint")
@json_option
def checkpoint(as_json: bool):
    """Sign the journal's newest row (after verifying the chain): print it or note it down."""
    hall = open_hall()
    made = checkpoints.make(hall.db, receipt_key.load_or_create())
    click.echo(json.dumps(made, sort_keys=True) if as_json else checkpoints.text(made), nl=as_json)


@journal_group.command("audit")
@click.argument("receipts_file", metavar="FILE", type=click.File("r"))
@key_option
def audit(receipts_file, key_file):
    """Check receipts (JSON, one a line) against the journal; exit 1 naming each bad one."""
    db = open_hall().db
    result = audit_receipts.audit(db, receipts_file, public_key(key_file))
    for held in result.held:
        click.echo(f"OK {held}")
    for which, problem in result.failures:
        click.echo(f"BAD {which}: {problem}")
    chain = result.chain
    if chain is not None and not chain.ok:
        click.echo(f"BAD journal: its chain is broken at row {chain.first_bad_id}: {chain.problem}")
    held = result.checked - len(result.failures)
    click.echo(
        f"{result.checked:,} receipt(s) checked: {held:,} held unchanged by the journal, "
        f"{len(result.failures):,} not."
    )
    if not result.checked:
        click.echo("No receipt found in the file: nothing was audited.", err=True)
    sys.exit(0 if result.ok else 1)


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


@journal_group.command("status")
@json_option
def status(as_json: bool):
    """Whether the journal records verdicts, on how many copies; exit 1 unless all is well."""
    from adjudicator.record import journal_status

    report = journal_status.read()
    kit = _kit_status()
    if as_json:
        found = report.to_json()
        if kit is not None:
            found["kit"] = {"state": kit.state, "folder": kit.folder, "text": kit.text()}
        click.echo(json.dumps(found, indent=2))
    else:
        click.echo(report.text())
        if kit is not None:
            click.echo(f"Takeover kit: {kit.text()}")
    log_lines.said_already()  # the report says the journal's state: its log lines are not said
    sys.exit(0 if report.state == "ok" else 1)


def _kit_status():
    """Whether the stick holds a current takeover kit (None with no stick to speak of)."""
    from adjudicator.hall.kit import refresh
    from adjudicator.words.store import LexiconStore

    db = connect()
    try:
        return refresh.to_show(db, LexiconStore())
    finally:
        db.close()


@journal_group.command("resync")
@click.option(
    "--keep",
    type=click.Choice(["primary", "mirror"]),
    default=None,
    help="The copy to keep when the two disagree; the other is set aside, never overwritten.",
)
def resync(keep: str | None):
    """Rebuild the lost or stale copy from the one whose chain verifies (safe while serving)."""
    from adjudicator.record.copies import resync
    from adjudicator.record.copies.mirror import MirroredDatabase

    db = connect()
    if not isinstance(db, MirroredDatabase):
        raise CliError(
            "No mirror is set: set ADJUDICATOR_JOURNAL_MIRROR to the second journal's path "
            "(on another disk) to keep and resync one."
        )
    for note in resync.resync(db, keep):
        click.echo(note)
    log_lines.said_already()


@journal_group.command("backup")
@click.argument("dest", metavar="DEST", type=click.Path(dir_okay=False, path_type=Path))
def backup(dest: Path):
    """Copy the journal to DEST (a new file) while the hall serves; the copy verifies alone."""
    from adjudicator.record.copies import backup as journal_backup

    made = journal_backup.make(connect(), dest)
    click.echo(
        f"Backup written to {made.path}: {made.rows:,} rows, hash chain verified.\n"
        f"Last row: {made.rows} {made.last_hash}\n"
        f"To check it: ADJUDICATOR_JOURNAL_MIRROR= ADJUDICATOR_DATABASE_URL={made.path} "
        "adjudicator journal verify"
    )


@journal_group.command("accept-loss")
@click.option("--reason", required=True, help="Why the missing rows cannot be brought back.")
def accept_loss(reason: str):
    """Record that rows a receipt proves recorded are gone for good; judging then resumes."""
    from adjudicator.cli.common import cli_actor
    from adjudicator.record.copies import lost_rows

    hall = open_hall()
    key_path = hall.key_path or receipt_key.key_path()
    first, last = lost_rows.accept(hall.db, reason, cli_actor(), hall.signing_key(), key_path)
    hall.adopt_journal(f"loss of rows {first} to {last} accepted: {reason.strip()}")
    log_lines.said_already()  # "judging resumes": said below
    if first > last:  # the journal holds every number proven: none to fill
        click.echo(f"No number past row {first - 1} was missing: none filled. Judging resumes.")
        return
    click.echo(
        f"Rows {first} to {last} recorded as lost (void rows with your reason): their numbers "
        "are never issued again, and their receipts will fail `journal audit`. Judging resumes."
    )


@journal_group.command("begin")
@click.option("--reason", required=True, help="What the new journal is for (the event).")
def begin(reason: str):
    """Begin this new, empty journal under the hall's key, for a next event (a signed step)."""
    made = open_hall().begin_journal(reason)
    after = made.get("after")
    click.echo(
        f"Journal {made['journal'][:8]} begun under key {made['key']}"
        + (
            f", after journal {after['journal'][:8]} (its newest signed row: {after['id']})."
            if after
            else "."
        )
        + " Judging starts afresh at row 1."
    )


@journal_group.command("confirm-alone")
@click.option(
    "--reason",
    required=True,
    help="Where the USB stick is (lost, broken), or that the other laptop has stopped, and who "
    "checked.",
)
def confirm_alone(reason: str):
    """Judge on this laptop alone: the director confirms no other laptop serves the hall (the
    journal's stick is lost for good, or the other laptop heard has stopped). Recorded."""
    from adjudicator.cli.common import cli_actor
    from adjudicator.record.copies import one_hall

    hall = open_hall()
    one_hall.confirm_alone(hall.db, reason, cli_actor())
    log_lines.said_already()  # "judging resumes": said below
    click.echo(
        "Recorded: this laptop judges alone. Judging resumes (a running hall at its next "
        "verdict). Without the journal's stick, set ADJUDICATOR_JOURNAL_MIRROR to a new USB "
        "stick and restart the hall to keep a second copy again."
    )
