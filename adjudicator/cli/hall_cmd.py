"""`adjudicator hall`: serve the hall's network over HTTPS, by name, in one command.

Finds the LAN addresses, makes (or renews) the hall's CA and server certificate in the data
home, checks the port is free, and hands the server's command line to the hall wing
(adjudicator/hall/hall_process.py), which starts it, announces NAME.local by mDNS, records its
URL for pairing links, and on Ctrl-C or SIGTERM withdraws the name and stops the server.
`--print-service` prints a systemd unit that runs all this at boot instead.
"""

from __future__ import annotations

import click

from adjudicator import settings
from adjudicator.cli.common import WORKERS_OPTION
from adjudicator.cli.serve_cmd import prepare_gunicorn, prepare_journal
from adjudicator.hall import hall_service, hall_tls, lan, mdns
from adjudicator.hall.hall_process import DEFAULT_PORT, HallProcess, check_port_free

DEFAULT_NAME = "adjudicator"


@click.command()
@click.option(
    "--name",
    default=DEFAULT_NAME,
    show_default=True,
    help="The hall's network name: tablets open https://NAME.local:PORT.",
)
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True)
@WORKERS_OPTION
@click.option(
    "--print-service",
    is_flag=True,
    help="Print a systemd unit that runs this hall at boot, and exit.",
)
def hall(name: str, port: int, workers: int | None, print_service: bool):
    """Serve the hall's network over HTTPS, announced as NAME.local (one command, day one)."""
    mdns.check_name(name)
    if print_service:
        click.echo(hall_service.service_unit(name, port), nl=False)
        return
    server = prepare_journal()  # the journal's copies, its schema, its high-water mark
    where = lan.hall_addresses()
    if where.note:
        click.echo(where.note, err=True)
    binds = list(where.addresses) + ([lan.LOOPBACK] if where.on_lan else [])
    check_port_free(binds, port)
    tls = hall_tls.ensure(name, where.addresses)
    for note in tls.notes:  # a CA replaced (tablets must trust the new one), an address left out
        click.echo(f"\n{note}\n", err=True)
    if tls.made:
        click.echo(f"Made the hall's server certificate ({tls.made}).", err=True)
    argv = prepare_gunicorn(
        server,
        [f"{address}:{port}" for address in binds],
        workers or settings.get_int("workers", 1),
        tls.cert,
        tls.key,
    )
    HallProcess(name, port, where, tls, argv, say=click.echo, warn=_to_stderr).run()


def _to_stderr(line: str) -> None:
    click.echo(line, err=True)
