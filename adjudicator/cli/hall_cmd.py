"""`adjudicator hall`: serve the hall's network over HTTPS, by name, in one command.

Finds the LAN addresses, makes (or renews) the hall's CA and server certificate in the data
home, checks the port is free (and the plain-HTTP port for the trust page: one in use is only
a warning), and hands the server's command line to the hall wing
(adjudicator/hall/network/hall_process.py), which starts it, announces NAME.local by mDNS,
records its URL for pairing links, and on Ctrl-C or SIGTERM withdraws the name and stops the server.
`--print-service` prints a systemd unit that runs all this at boot instead.
"""

from __future__ import annotations

import click

from adjudicator import settings
from adjudicator.cli import log_lines
from adjudicator.cli.common import WORKERS_OPTION, CliError
from adjudicator.cli.serve_cmd import prepare_gunicorn, prepare_journal, refresh_kit, report_kit
from adjudicator.hall.network import hall_service, hall_tls, hall_url, lan, mdns
from adjudicator.hall.network.hall_process import (
    DEFAULT_HTTP_PORT,
    DEFAULT_NAME,
    DEFAULT_PORT,
    HallProcess,
    check_port_free,
    plain_port,
)
from adjudicator.record.journal import hall_beat


@click.command()
@click.option(
    "--name",
    default=None,
    help="The hall's network name: tablets open https://NAME.local:PORT. Default: the name "
    f"it last served under (a takeover's too), else {DEFAULT_NAME}.",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help=f"Default: the port it last served on, else {DEFAULT_PORT}.",
)
@click.option(
    "--http-port",
    type=click.IntRange(0, 65535),
    default=None,
    help="The plain-HTTP port for the trust page and the CA certificate only (a tablet's first "
    "visit meets no certificate warning); everything else there is sent to HTTPS. 0 turns it "
    "off. [default: ADJUDICATOR_HTTP_PORT, else the port it last served it on (a takeover's "
    f"too), else {DEFAULT_HTTP_PORT}]",
)
@WORKERS_OPTION
@click.option(
    "--print-service",
    is_flag=True,
    help="Print a systemd unit that runs this hall at boot, and exit.",
)
@click.option(
    "--fingerprint",
    is_flag=True,
    help="Print the hall's CA fingerprint (SHA-256), making the CA if there is none, and exit: "
    "its eight groups of four pairs on two lines, as the sheet and the pages show them.",
)
def hall(
    name: str | None,
    port: int | None,
    http_port: int | None,
    workers: int | None,
    print_service: bool,
    fingerprint: bool,
):
    """Serve the hall's network over HTTPS, announced as NAME.local (one command, day one)."""
    last = hall_url.recorded()
    name = mdns.check_name(name or (last.name if last else DEFAULT_NAME))
    port = port or (last.port if last else DEFAULT_PORT)
    if fingerprint:
        found, notes = hall_tls.ensure_ca(name)
        for note in notes:
            click.echo(f"\n{note}\n", err=True)
        click.echo("\n".join(hall_tls.fingerprint_lines(found)))  # the block, less its heading
        return
    if http_port is None:
        recorded = last.http_port if last is not None else None
        from_env = settings.is_set("http_port") or recorded is None
        http_port = settings.get_int("http_port") if from_env else recorded
    if http_port > 65535:
        raise CliError(f"ADJUDICATOR_HTTP_PORT must be a port from 0 to 65535, not {http_port}.")
    if http_port == port:
        raise CliError(
            f"--http-port {http_port} is the hall's HTTPS port too: give it another (such as "
            f"{DEFAULT_HTTP_PORT}), or 0 for none."
        )
    if print_service:
        click.echo(hall_service.service_unit(name, port, http_port), nl=False)
        return
    server = prepare_journal()  # the journal's copies, its schema, its high-water mark
    where = lan.hall_addresses()
    if where.note:
        click.echo(where.note, err=True)
    binds = list(where.addresses) + ([lan.LOOPBACK] if where.on_lan else [])
    check_port_free(binds, port)
    http_port, busy = plain_port(binds, http_port)  # a port in use: a warning, never a stop
    if busy:
        click.echo(busy, err=True)
    tls = hall_tls.ensure(name, where.addresses)
    for note in tls.notes:  # a CA replaced (tablets must trust the new one), an address left out
        click.echo(f"\n{note}\n", err=True)
    if tls.ca_made:
        click.echo(
            f"Made the hall's certificate authority (CA) in {tls.folder}: it is what tablets "
            "trust, once, at /hall/trust, and it signs the server certificate. Keep that folder "
            "(back it up with the data home): a new CA must be trusted again on every tablet.",
            err=True,
        )
    if tls.made:
        click.echo(f"Made the hall's server certificate ({tls.made}).", err=True)
    plain = [f"{address}:{http_port}" for address in binds] if http_port else []
    argv = prepare_gunicorn(
        server,
        [f"{address}:{port}" for address in binds] + plain,
        workers or settings.get_int("workers", 1),
        tls.cert,
        tls.key,
        plain_port=http_port,  # the workers serve it without TLS: the trust page alone
    )
    argv += ["--config", "python:kiosk.server.hall_hooks"]  # it ends with the hall process
    report_kit(server)  # a renewed certificate (and a new secret) go into the kit now
    log_lines.live()  # from now on stderr is the hall's log
    tell, on_judging = _laptops(server, name, port, tls.ca_cert)
    HallProcess(
        name,
        port,
        where,
        tls,
        argv,
        say=click.echo,
        warn=_to_stderr,
        http_port=http_port,
        tell=tell,
        on_judging=on_judging,
        on_record=lambda: refresh_kit(server),  # the hall's record is in the kit: at once
        beat=hall_beat.Beat(settings.data_home() / "hall" / "beat"),
    ).run()


def _laptops(server, name: str, port: int, ca_cert):
    """How this hall tells another laptop of the hall it serves too (a note signed with the
    hall's key), and holds itself when that laptop was judging first, or its answer shows it
    took the hall over (hall/hall_peers.py)."""
    from adjudicator.hall import hall_peers
    from adjudicator.record.copies import learned_takeover

    key = server.signing_key()

    def tell(address: str):
        judging = server.journal_health().ok
        statement = learned_takeover.to_tell(server.db, key)  # this laptop's takeover, if any
        note = hall_peers.note(key, name, port, judging, statement)
        answer = hall_peers.ask(key, address, port, ca_cert, note)
        with log_lines.said_by_command():  # said once, below
            held = hall_peers.heed(server.db, key, address, answer)  # it took the hall over?
        if held:
            _to_stderr(held if held.startswith("THIS HALL") else f"JUDGING HELD: {held}")
        return answer

    def on_judging(address: str, answer: dict) -> str:
        with log_lines.said_by_command():  # HallProcess says it, once
            return hall_peers.hold_for(server.db, address, answer)

    return tell, on_judging


def _to_stderr(line: str) -> None:
    click.echo(line, err=True)
