"""`adjudicator journal ...` and `adjudicator db upgrade`: the audit trail and its schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from adjudicator.cli.common import CliError, json_option, open_hall
from adjudicator.hall import export as export_rows
from adjudicator.hall import tournaments
from adjudicator.record import audit as audit_receipts
from adjudicator.record import checkpoints, migrations, receipt_key
from adjudicator.record.backends import connect

key_option = click.option(
    "--key",
    "key_file",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="The hall's public key (PEM, as `journal key` prints it); default: this hall's key.",
)


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


@journal_group.command("verify")
@click.option(
    "--checkpoint",
    "checkpoint_files",
    multiple=True,
    type=click.File("r"),
    help="A checkpoint (`journal checkpoint --json` output, or 'row ID HASH' as noted down) "
    "whose row must still be in the journal unchanged. Repeatable.",
)
@key_option
def verify(checkpoint_files, key_file):
    """Check the hash chain, stored values, keyed rows and the key's signed statements (and
    checkpoints); exit 1 naming the first bad row, or a fork."""
    from adjudicator.record import fork_check, journal_proof, row_keys

    db = open_hall().db
    public, private = _keys(key_file, required=bool(checkpoint_files))
    witnessed = []
    if checkpoint_files:
        journal_id = checkpoints.journal_id(db)
        for handle in checkpoint_files:
            try:
                witnessed.append(checkpoints.read(handle.read(), handle.name, public, journal_id))
            except checkpoints.CheckpointError as exc:
                click.echo(f"Journal NOT verified: {exc}", err=True)
                sys.exit(1)
    proofs = [fork_check.Proof(w.id, w.row_hash.lower(), f"the {_witness(w)}") for w in witnessed]
    secret = row_keys.secret(private) if private is not None else None
    key_path = receipt_key.key_path()
    found = journal_proof.verify(db, public, secret, key_path, proofs)
    required = {proof.source for proof in proofs}
    failed = [_failure(name, judged, required) for name, judged in found.copies]
    failed = [failure for failure in failed if failure]
    refusal = found.refusal
    if refusal is not None and not refusal.earlier:
        failed.append(f"Journal NOT verified as this hall's: {_refused(refusal)}")
    if failed:
        for failure in failed:
            click.echo(failure, err=True)
        sys.exit(1)
    _verified(found, witnessed, public is not None)


def _witness(seen: checkpoints.Witnessed) -> str:
    how = "signed checkpoint" if seen.signed else "noted checkpoint"
    return f"{how} in {seen.source}"


def _failure(name: str, judged, required: set[str]) -> str:
    """Why one copy fails `journal verify` ('' when it does not)."""
    where = "Journal" if name == "the journal" else f"Journal ({name})"
    if judged.fork is not None:
        fork = judged.fork
        return (
            f"{where} BROKEN at row {fork.row}: it is a FORK: {fork.against} (rows before "
            f"{fork.first} agree with every signed statement; the first row that differs is "
            f"{fork.where()}). It is not the record the hall kept: restore a backup or the other "
            "copy, never `journal accept-loss`."
        )
    if judged.broken:
        return (
            f"{where} BROKEN at row {judged.broken_at}: {judged.broken} "
            f"({judged.verified_to:,} rows before it verified)."
        )
    cut = [proof for proof in judged.missing if proof.source in required]
    if cut:
        row = min(proof.row for proof in cut)
        return (
            f"{where} BROKEN at row {row}: row {row}, witnessed by a checkpoint, is missing: the "
            f"journal ends at row {judged.rows} (rows were cut off the end)."
        )
    return ""


def _refused(refusal) -> str:
    from adjudicator.record import rollbacks

    return rollbacks.Rollback(*refusal.rollback(), found_at="").what()


def _verified(found, witnessed, signed: bool) -> None:
    """Print what `journal verify` found when every copy verifies."""
    name, judged = found.copies[0] if found.copies else ("the journal", None)
    rows = judged.rows if judged is not None else 0
    click.echo(f"Journal intact: {rows:,} rows, hash chain verified.")
    if judged is not None and judged.last_hash:
        # Rows cut off the end leave an intact chain: note this line to compare later.
        click.echo(f"Last row: {judged.verified_to} {judged.last_hash}")
    for seen in witnessed:
        click.echo(f"Row {seen.id} matches the {_witness(seen)}.")
    statements = found.statements
    if not signed:
        click.echo(
            "The hall's signed statements (marks, receipts, keyed rows) were not checked: no "
            "key here. Give the hall's public key with --key to check them."
        )
    elif statements is not None and statements.keyed_from is not None and judged is not None:
        if not judged.keyed_checked:
            click.echo(
                f"Keyed rows ({statements.keyed_from:,} on) were NOT checked: the hall's private "
                "key is not here (the chain and the signatures were)."
            )
        elif rows >= statements.keyed_from:
            click.echo(f"Keyed rows {statements.keyed_from:,} to {rows:,} verified.")
    for name, each in found.copies:
        if each.missing:
            last = max(each.missing, key=lambda proof: proof.row)
            click.echo(
                f"Note: {last.source} proves that row {last.row} was recorded, and {name} ends "
                f"at row {each.rows}: a copy taken earlier (a backup), or rows missing "
                "(`adjudicator journal status` says which)."
            )


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
    result = audit_receipts.audit(db, receipts_file, _public_key(key_file))
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


def _keys(key_file: str | None, required: bool):
    """The public key to check signatures with (--key, else this hall's; None when there is
    none and none is `required`) and this hall's private key, when it is here and is the one
    checked (keyed rows need it)."""
    private = receipt_key.existing(receipt_key.key_path())
    if key_file is None and private is None and not required:
        return None, None
    public = _public_key(key_file)
    if private is not None and key_file is not None and private.id != receipt_key.key_id(public):
        private = None  # another hall's journal: its keyed rows are not ours to check
    return public, private


def _public_key(key_file: str | None):
    """The public key given with --key, else this hall's (never made here: it must exist)."""
    if key_file:
        try:
            return receipt_key.load_public_pem(Path(key_file).read_bytes())
        except ValueError as exc:
            raise CliError(f"{key_file} is not an Ed25519 public key in PEM: {exc}") from None
    path = receipt_key.key_path()
    if not path.exists():
        raise CliError(
            f"No receipt key at {path}: give the hall's public key with --key, or set "
            "ADJUDICATOR_RECEIPT_KEY_FILE to the hall's key file."
        )
    return receipt_key.load(path).public


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
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        click.echo(report.text())
    sys.exit(0 if report.state == "ok" else 1)


@journal_group.command("resync")
@click.option(
    "--keep",
    type=click.Choice(["primary", "mirror"]),
    default=None,
    help="The copy to keep when the two disagree; the other is set aside, never overwritten.",
)
def resync(keep: str | None):
    """Rebuild the lost or stale copy from the one whose chain verifies (safe while serving)."""
    from adjudicator.record import journal_copies
    from adjudicator.record.db_mirror import MirroredDatabase

    db = connect()
    if not isinstance(db, MirroredDatabase):
        raise CliError(
            "No mirror is set: set ADJUDICATOR_JOURNAL_MIRROR to the second journal's path "
            "(on another disk) to keep and resync one."
        )
    for note in journal_copies.resync(db, keep):
        click.echo(note)


@journal_group.command("backup")
@click.argument("dest", metavar="DEST", type=click.Path(dir_okay=False, path_type=Path))
def backup(dest: Path):
    """Copy the journal to DEST (a new file) while the hall serves; the copy verifies alone."""
    from adjudicator.record import backup as journal_backup

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
    from adjudicator.record import lost_rows

    hall = open_hall()
    key_path = hall.key_path or receipt_key.key_path()
    first, last = lost_rows.accept(hall.db, reason, cli_actor(), hall.signing_key(), key_path)
    hall.adopt_journal(f"loss of rows {first} to {last} accepted: {reason.strip()}")
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
