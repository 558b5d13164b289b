"""`adjudicator kit seal DIR` and `adjudicator kit open DIR`: the hall's takeover kit on the
USB stick, and a second laptop taking the hall over from it (the logic: adjudicator/hall/kit/)."""

from __future__ import annotations

from pathlib import Path

import click

from adjudicator import settings
from adjudicator.cli.common import open_hall, read_secret

passphrase_stdin = click.option(
    "--passphrase-stdin",
    is_flag=True,
    help="Read the passphrase from the first line of stdin (for scripts).",
)
directory_argument = click.argument(
    "directory", metavar="DIR", type=click.Path(file_okay=False, path_type=Path)
)


@click.group("kit")
def kit() -> None:
    """The hall's takeover kit on the USB stick: seal it, or open it on a second laptop."""


@kit.command("seal")
@directory_argument
@passphrase_stdin
def seal(directory: Path, passphrase_stdin: bool):
    """Seal the hall's keys, CA, certificates, secret and lexicons into DIR (on the USB stick,
    beside the mirror) under a passphrase of 16 characters or more."""
    from adjudicator.hall.kit import seal as kit_seal
    from adjudicator.hall.network import hall_tls

    hall = open_hall()
    kit_seal.refuse_if_not_judging(hall.db, directory)  # before the passphrase is asked for
    prompt = f"Passphrase for the kit ({kit_seal.MIN_PASSPHRASE} characters or more)"
    passphrase = kit_seal.check_passphrase(read_secret(passphrase_stdin, prompt))
    mirror = settings.get("journal_mirror").strip() or None
    sealed = kit_seal.seal_kit(
        directory, passphrase, hall.db, hall.store, hall.signing_key(), mirror
    )
    click.echo(
        f"Kit sealed in {sealed.folder}: the hall's receipt key, its CA, "
        f"{', '.join(sealed.items)}; lexicons: {', '.join(sealed.lexicons) or 'none in use yet'}."
    )
    click.echo(hall_tls.fingerprint_block(sealed.fingerprint))
    click.echo(
        "The hall keeps it current while it serves (a new lexicon, a renewed certificate) "
        "without the passphrase. Keep the passphrase apart from the stick: with both, anyone "
        "can run this hall. On a second laptop: `adjudicator kit open DIR`."
    )
    for note in sealed.notes:
        click.echo(f"Warning: {note}", err=True)


@kit.command("open")
@directory_argument
@passphrase_stdin
@click.option(
    "--drill",
    is_flag=True,
    help="A takeover drill: open a copy of the hall on this laptop under a journal of its own "
    "and the name NAME-drill, writing nothing to the stick; its receipts never stop the hall.",
)
def open_kit(directory: Path, passphrase_stdin: bool, drill: bool):
    """Take the hall over on this laptop (a fresh install) from the kit and the journal on
    the USB stick in DIR: the same key, CA, tokens and numbers."""
    from adjudicator.hall.kit import kit_open
    from adjudicator.hall.network import hall_tls
    from adjudicator.record.journal import writer

    def passphrase() -> str:  # asked while the stick's journal is walked
        return read_secret(passphrase_stdin, "The kit's passphrase", twice=False)

    mirror = settings.get("journal_mirror").strip() or None
    opened = kit_open.open_kit(directory, passphrase, mirror, as_drill=drill)
    here = writer.this_laptop_if_known()  # by host name and install id, as refusals name it
    as_of = opened.as_of[0].upper() + opened.as_of[1:]
    if opened.drill:
        click.echo(
            f"DRILL: a copy of the hall on this laptop, {here}, nothing written to the "
            f"stick. {as_of}. Journal {opened.journal[:8]}: {opened.rows:,} rows copied to "
            f"{opened.primary} and verified, now the drill's journal {opened.drill}: its "
            "verdicts are practice, and its receipts never stop the hall."
        )
    else:
        click.echo(
            f"The hall is taken over on this laptop, {here}. {as_of}. Journal "
            f"{opened.journal[:8]}: {opened.rows:,} rows copied from the stick to "
            f"{opened.primary} and verified; the next verdict is row {opened.rows + 1:,}."
        )
    hall = f"name {opened.name}, port {opened.port}" if opened.name else "no hall name recorded"
    if opened.name and opened.http_port:
        hall += f", trust page on plain HTTP port {opened.http_port}"
    click.echo(
        f"Restored: the receipt key, the CA, the certificates, the session secret ({hall}); "
        f"lexicons: {', '.join(opened.lexicons) or 'none'}."
    )
    if opened.fingerprint:
        click.echo(hall_tls.fingerprint_block(opened.fingerprint))
    for problem in opened.problems:
        click.echo(f"WARNING: {problem}", err=True)
    if opened.drill:
        click.echo(
            "Start the drill here WITHOUT the stick (ADJUDICATOR_JOURNAL_MIRROR unset), on a "
            "network of its own if you can:\n  adjudicator hall\nIt answers as "
            f"{opened.name or 'NAME-drill'}.local, never as the hall's name."
        )
        return
    click.echo(
        "Now start the hall here, with the stick as its mirror:\n"
        f"  ADJUDICATOR_JOURNAL_MIRROR={opened.mirror} adjudicator hall\n"
        "Tablets that open the hall by its name reconnect by themselves. Tablets paired by an "
        "address need this laptop on that address, or a new pairing link (`adjudicator kiosk "
        "sheet`). The first laptop does not judge from now on, even with the stick back."
    )
