"""The running hall: its server as a child process, the mDNS name for as long as it serves, the
recorded URL, and a clean stop on Ctrl-C or SIGTERM.

`adjudicator hall` prepares the journal, the certificates and the server's command line, then
hands them to `HallProcess.run`, which starts the server, waits until it answers over HTTPS,
announces NAME.local, records the URL pairing links use, and on a signal withdraws the name and
stops the server. It prints nothing itself: it reports each line through the `say` (what the
director reads) and `warn` (the log, stderr) callbacks the command gives it.
"""

from __future__ import annotations

import errno
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from adjudicator import settings
from adjudicator.errors import AdjudicatorError
from adjudicator.hall import hall_url, mdns
from adjudicator.hall.hall_tls import HallTls
from adjudicator.hall.lan import HallAddresses

DEFAULT_PORT = 8443
START_SECONDS = 60


class HallServerError(AdjudicatorError):
    """The hall's server cannot start, or stopped by itself."""


def _ignore(line: str) -> None:
    return None


class HallProcess:
    """The running hall: the server as a child, the mDNS name, and a clean stop on a signal."""

    def __init__(
        self,
        name: str,
        port: int,
        where: HallAddresses,
        tls: HallTls | None,
        argv: list[str],
        say: Callable[[str], None] = _ignore,
        warn: Callable[[str], None] = _ignore,
    ):
        self.name, self.port, self.where, self.tls, self.argv = name, port, where, tls, argv
        self.say, self.warn = say, warn
        self.stopping = False
        self.announcement: mdns.Announcement | None = None

    def run(self) -> None:
        """Serve until a signal stops the hall; raise HallServerError if the server stops first."""
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
        if not self.stopping:  # the server ended by itself: say so, not a clean stop
            raise HallServerError(
                f"The server stopped (exit {process.returncode}); see its log above."
            )
        self.warn(f"Hall stopped; {self.name}.local withdrawn from the network.")

    def _on_signal(self, signum, frame) -> None:
        self.stopping = True

    def _wait_until_serving(self, process: subprocess.Popen) -> None:
        context = ssl.create_default_context(cafile=str(self.tls.ca_cert))
        url = f"https://{self.where.addresses[0]}:{self.port}/healthz"
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline and not self.stopping:
            if process.poll() is not None:
                raise HallServerError(
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
            raise HallServerError(
                f"The server did not answer on port {self.port} in {START_SECONDS} s."
            )

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
        self.say(f"The hall is open at {url}")
        for address in self.where.addresses:
            if f"https://{address}:{self.port}" != url:
                self.say(f"  also at https://{address}:{self.port}")
        if self.announcement is not None and not self.announcement.active:
            self.say(
                f"mDNS did not work here ({self.announcement.error}): {self.name}.local will not "
                f"open on tablets, so use the address {first} instead.",
            )
        self.say(f"Tablets: trust the hall once at {url}/hall/trust, then pair them.")
        self.say(f"Director: https://127.0.0.1:{self.port}/director/login on this laptop.")
        if settings.get("public_url"):
            self.say(
                f"Note: ADJUDICATOR_PUBLIC_URL is set ({settings.get('public_url')}): pairing "
                "links use it, not this hall's address. Unset it to point them here."
            )
        else:
            self.say("Pairing links and sheets printed from now on point here.")
        self.say("Ctrl-C stops.")

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
                    raise HallServerError(
                        f"Port {port} is already in use on {address}: another server (another "
                        "`adjudicator hall` or `serve`?) holds it. Stop that one, or choose "
                        "another port with --port."
                    ) from None
                if exc.errno == errno.EACCES:
                    raise HallServerError(
                        f"Port {port} needs administrator rights on this system: "
                        f"use a port above 1023, such as --port {DEFAULT_PORT}."
                    ) from None
                raise HallServerError(
                    f"Cannot listen on {address}:{port}: {exc.strerror}."
                ) from None
