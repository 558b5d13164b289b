"""`adjudicator hall`: serve the hall's network over HTTPS, by name, in one command.

Finds the LAN addresses, makes (or renews) the hall's CA and server certificate in the data
home, checks the port is free, starts gunicorn (the same as `serve`), announces NAME.local by
mDNS, records its URL for pairing links, and on Ctrl-C or SIGTERM withdraws the name and stops
the server. `--print-service` prints a systemd unit that runs all this at boot instead.
"""

from __future__ import annotations

import errno
import os
import shlex
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import click

from adjudicator import settings
from adjudicator.cli.common import WORKERS_OPTION, CliError
from adjudicator.cli.serve_cmd import prepare_gunicorn, prepare_journal
from adjudicator.hall import hall_tls, hall_url, lan, mdns

DEFAULT_NAME = "adjudicator"
DEFAULT_PORT = 8443
START_SECONDS = 60


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
        click.echo(service_unit(name, port), nl=False)
        return
    server = prepare_journal()  # the journal's copies, its schema, its high-water mark
    where = lan.hall_addresses()
    if where.note:
        click.echo(where.note, err=True)
    binds = list(where.addresses) + ([lan.LOOPBACK] if where.on_lan else [])
    check_port_free(binds, port)
    tls = hall_tls.ensure(name, where.addresses)
    if tls.made:
        click.echo(f"Made the hall's server certificate ({tls.made}).", err=True)
    argv = prepare_gunicorn(
        server,
        [f"{address}:{port}" for address in binds],
        workers or settings.get_int("workers", 1),
        tls.cert,
        tls.key,
    )
    Hall(name, port, where, tls, argv).run()


class Hall:
    """The running hall: gunicorn as a child, the mDNS name, and a clean stop on a signal."""

    def __init__(self, name, port, where, tls, argv):
        self.name, self.port, self.where, self.tls, self.argv = name, port, where, tls, argv
        self.stopping = False
        self.announcement: mdns.Announcement | None = None

    def run(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._on_signal)
        process = subprocess.Popen(self.argv)
        try:
            self._wait_until_serving(process)
            self._announce_and_record()
            while not self.stopping and process.poll() is None:
                time.sleep(0.2)
        finally:
            self._withdraw()
            _stop(process)
        if not self.stopping:  # gunicorn ended by itself: say so, not a clean stop
            raise CliError(f"The server stopped (exit {process.returncode}); see its log above.")
        click.echo(f"Hall stopped; {self.name}.local withdrawn from the network.", err=True)

    def _on_signal(self, signum, frame) -> None:
        self.stopping = True

    def _wait_until_serving(self, process: subprocess.Popen) -> None:
        context = ssl.create_default_context(cafile=str(self.tls.ca_cert))
        url = f"https://{self.where.addresses[0]}:{self.port}/healthz"
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline and not self.stopping:
            if process.poll() is not None:
                raise CliError(
                    f"The server stopped while starting (exit {process.returncode}); "
                    "see its log above."
                )
            try:
                with urllib.request.urlopen(url, timeout=2, context=context):
                    return
            except urllib.error.HTTPError:
                return  # it answers (a 503 health says why on the director's page)
            except OSError:
                time.sleep(0.2)
        if not self.stopping:
            raise CliError(f"The server did not answer on port {self.port} in {START_SECONDS} s.")

    def _announce_and_record(self) -> None:
        if self.stopping:
            return
        first = f"https://{self.where.addresses[0]}:{self.port}"
        url = first
        if self.where.on_lan:
            self.announcement = mdns.announce(self.name, self.port, self.where.addresses)
            if self.announcement.active:
                url = f"https://{self.name}.local:{self.port}"
        hall_url.record(
            hall_url.HallRecord(
                url=url,
                name=self.name,
                port=self.port,
                addresses=self.where.addresses,
                mdns=bool(self.announcement and self.announcement.active),
            )
        )
        click.echo(f"The hall is open at {url}")
        for address in self.where.addresses:
            if f"https://{address}:{self.port}" != url:
                click.echo(f"  also at https://{address}:{self.port}")
        if self.announcement is not None and not self.announcement.active:
            click.echo(
                f"mDNS did not work here ({self.announcement.error}): {self.name}.local will not "
                f"open on tablets, so use the address {first} instead.",
            )
        click.echo(f"Tablets: trust the hall once at {url}/hall/trust, then pair them.")
        click.echo(f"Director: https://127.0.0.1:{self.port}/director/login on this laptop.")
        if settings.get("public_url"):
            click.echo(
                f"Note: ADJUDICATOR_PUBLIC_URL is set ({settings.get('public_url')}): pairing "
                "links use it, not this hall's address. Unset it to point them here."
            )
        else:
            click.echo("Pairing links and sheets printed from now on point here.")
        click.echo("Ctrl-C stops.")

    def _withdraw(self) -> None:
        if self.announcement is not None:
            self.announcement.withdraw()


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def check_port_free(binds: list[str], port: int) -> None:
    """Refuse, naming the port, when another program already listens on it."""
    for address in binds:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn does
            try:
                probe.bind((address, port))
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise CliError(
                        f"Port {port} is already in use on {address}: another server (another "
                        "`adjudicator hall` or `serve`?) holds it. Stop that one, or choose "
                        "another port with --port."
                    ) from None
                if exc.errno == errno.EACCES:
                    raise CliError(
                        f"Port {port} needs administrator rights on this system: "
                        f"use a port above 1023, such as --port {DEFAULT_PORT}."
                    ) from None
                raise CliError(f"Cannot listen on {address}:{port}: {exc.strerror}.") from None


def service_unit(name: str, port: int) -> str:
    """A systemd unit that starts this hall at boot and again if it stops."""
    import getpass

    command = _own_command() + ["hall", "--name", name, "--port", str(port)]
    env = {"ADJUDICATOR_HOME": str(settings.data_home().resolve())}
    left_out = []
    for key, value in sorted(os.environ.items()):
        if key.startswith("ADJUDICATOR_") and key != "ADJUDICATOR_HOME":
            if "@" in value:  # a database URL with a password: not into a world-readable file
                left_out.append(key)
            else:
                env[key] = value
    lines = [
        f"# The hall {name}: https://{name}.local:{port}. Install it with:",
        f"#   adjudicator hall --name {name} --port {port} --print-service \\",
        "#     | sudo tee /etc/systemd/system/adjudicator-hall.service",
        "#   sudo systemctl daemon-reload && sudo systemctl enable --now adjudicator-hall",
    ]
    if left_out:
        lines.append(
            f"# Left out (they hold a password; unit files are world-readable): "
            f"{', '.join(left_out)}. Put them in /etc/adjudicator-hall.env (mode 600)."
        )
    lines += [
        "[Unit]",
        f"Description=Challenge adjudicator: the hall {name}",
        "Wants=network-online.target",
        "After=network-online.target",
        "",
        "[Service]",
        "Type=simple",
        f"User={getpass.getuser()}",
        *(f'Environment="{key}={value}"' for key, value in env.items()),
        "EnvironmentFile=-/etc/adjudicator-hall.env",
        f"ExecStart={shlex.join(command)}",
        "KillSignal=SIGTERM",
        "TimeoutStopSec=30",
        "Restart=always",
        "RestartSec=5",
        "",
        "[Install]",
        "WantedBy=multi-user.target",
        "",
    ]
    return "\n".join(lines)


def _own_command() -> list[str]:
    """How this program was started: its installed script, else `python -m adjudicator`."""
    script = Path(sys.argv[0])
    if script.name == "adjudicator" and script.exists():
        return [str(script.resolve())]
    return [sys.executable, "-m", "adjudicator"]
