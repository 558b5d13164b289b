"""`adjudicator journal verify`: every copy of the journal held against the hall's key.

The chain, the stored values and the keyed rows (fork_check.py), the signed statements (the
marks, receipts and checkpoints, the begun statement) and the director's own checkpoints; exit 1
naming the first bad row, or a fork (journal_proof.verify does the work; this says it)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from adjudicator.cli.common import CliError, open_hall
from adjudicator.record.journal import receipt_key
from adjudicator.record.proofs import checkpoints

key_option = click.option(
    "--key",
    "key_file",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="The hall's public key (PEM, as `journal key` prints it); default: this hall's key.",
)


@click.command("verify")
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
    from adjudicator.record.journal import row_keys
    from adjudicator.record.proofs import fork_check, journal_proof

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
    from adjudicator.record.journal import rollbacks

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


def _keys(key_file: str | None, required: bool):
    """The public key to check signatures with (--key, else this hall's; None when there is
    none and none is `required`) and this hall's private key, when it is here and is the one
    checked (keyed rows need it)."""
    private = receipt_key.existing(receipt_key.key_path())
    if key_file is None and private is None and not required:
        return None, None
    public = public_key(key_file)
    if private is not None and key_file is not None and private.id != receipt_key.key_id(public):
        private = None  # another hall's journal: its keyed rows are not ours to check
    return public, private


def public_key(key_file: str | None):
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
