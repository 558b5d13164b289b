"""The running hall: its server as a child process, the mDNS name for as long as it serves, the
recorded URL, a watch on who else answers for the name, and a clean stop on Ctrl-C or SIGTERM.

`adjudicator hall` prepares the journal, the certificates and the server's command line, then
hands them to `HallProcess.run`, which asks the network who answers for NAME.local (another
laptop of this hall among them is told so directly, and if it judges, this one does not: the
`tell` and `on_judging` callbacks), starts the server, waits until it answers over HTTPS,
announces the name only if no other device answers for it,
records the URL pairing links use, and on a signal withdraws the name and stops the server.
While it serves it asks again every ADJUDICATOR_NAME_CHECK_SECONDS; another device answering is
reported at once in the log, and shared with the workers (name_claims.py) for /healthz and the
director's overview. It prints nothing itself: it reports each line through the `say` (what
the director reads) and `warn` (the log, stderr) callbacks the command gives it.
"""

from __future__ import annotations

import errno
import os
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import urlsplit

from adjudicator import settings
from adjudicator.errors import AdjudicatorError
from adjudicator.hall.network import hall_tls, hall_url, lan, mdns, name_claims, peers
from adjudicator.hall.network.hall_tls import HallTls
from adjudicator.hall.network.lan import HallAddresses

DEFAULT_NAME = "adjudicator"
DEFAULT_PORT = 8443
DEFAULT_HTTP_PORT = 8080  # the trust page and the CA certificate over plain HTTP (0: none)
START_SECONDS = 60
# Before announcing: ask who answers for NAME.local at once and again after ASK_AGAIN_SECONDS
# (a lost packet on Wi-Fi), and listen for ASK_SECONDS in all.
ASK_SECONDS = 2.0
ASK_AGAIN_SECONDS = 1.0
TELL_SECONDS = 5.0  # another laptop of this hall is told again this often (its note stays fresh)


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
        http_port: int = 0,
        tell: Callable[[str], dict | None] | None = None,
        on_judging: Callable[[str, dict], str] | None = None,
        on_record: Callable[[], None] = lambda: None,
        beat=None,
    ):
        self.name, self.port, self.where, self.tls, self.argv = name, port, where, tls, argv
        self.http_port = http_port  # the server's plain-HTTP port for the trust page (0: none)
        self.say, self.warn = say, warn
        # Another laptop of this hall heard: `tell` it (a note signed with the hall's key: its
        # answer, or None), and `on_judging` when it judges as this one starts (this one then
        # does not judge: what the director is told).
        self.tell, self.on_judging = tell, on_judging
        self.told: dict[str, float] = {}  # address -> when it was last told
        self.on_record = on_record  # after the hall's record changes (the kit carries it)
        # The hall's beat (record/journal/hall_beat.Beat), its file named to the server: the
        # server judges nothing while it is old, and after a pause this looks before it beats.
        self.beat = beat
        self.stopping = False
        self.announcement: mdns.HallName | None = None
        self.url = ""  # where pairing links point
        self.others: tuple[name_claims.OtherDevice, ...] = ()
        self.probed: dict[str, bool] = {}  # address -> it serves with this hall's own CA
        self.check_seconds = settings.get_int("name_check_seconds", 1)
        self.next_check = 0.0
        # The addresses a tablet can open without a certificate warning: those the server
        # certificate names (an address outside the CA's networks is left out of it).
        covered = [a for a in where.addresses if tls is None or a in tls.covered]
        self.reachable = tuple(covered) or where.addresses
        self.address_url = f"https://{self.reachable[0]}:{port}"  # links, when not the name

    def run(self) -> None:
        """Serve until a signal stops the hall; raise HallServerError if the server stops first."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._on_signal)
        name_claims.clear()  # what an earlier run found is not this run's
        peers.clear()
        self._listen_first()  # before the server judges: is another laptop of this hall here?
        beat = self.beat.start() if self.beat is not None else None
        process = subprocess.Popen(self.argv, env={**os.environ, **(beat.env() if beat else {})})
        announced = False
        try:
            self._wait_until_serving(process)
            self._announce_and_record()
            announced = bool(self.announcement and self.announcement.active)
            while not self.stopping and process.poll() is None:
                time.sleep(0.2)
                if beat is not None and beat.paused is not None:
                    self._look_after_pause(beat)
                self._watch_name()
        finally:
            self._withdraw()
            name_claims.clear()
            peers.clear()
            _stop(process)
            if beat is not None:  # after the server: a verdict it finishes is not refused
                beat.stop()
        if not self.stopping:  # the server ended by itself: say so, not a clean stop
            raise HallServerError(
                f"The server stopped (exit {process.returncode}); see its log above."
            )
        if announced:
            self.warn(f"Hall stopped; {self.name}.local withdrawn from the network.")
        else:
            self.warn("Hall stopped.")

    def _on_signal(self, signum, frame) -> None:
        self.stopping = True

    def _wait_until_serving(self, process: subprocess.Popen) -> None:
        context = ssl.create_default_context(cafile=str(self.tls.ca_cert))
        # loopback: always served, and always in the certificate, whatever the LAN's addresses
        url = f"https://{lan.LOOPBACK}:{self.port}/healthz"
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
        first = self.address_url
        url = first
        if self.announcement is None:
            self._listen_first()  # not asked yet (run() asks before the server starts)
        if self.announcement is not None:
            if self.announcement.listening and not self.others:
                self.announcement.register()
                if self.announcement.active:
                    url = f"https://{self.name}.local:{self.port}"
                else:  # another device announces the hall's service name: who, if it said
                    self.others = self._others()
        self._record(url)
        self.say(f"The hall is open at {url}")
        for address in self.reachable:
            if f"https://{address}:{self.port}" != url:
                self.say(f"  also at https://{address}:{self.port}")
        if self.others:
            taken = ", ".join(other.address for other in self.others)
            self.say(
                f"{self.name}.local is NOT announced: another device ({taken}) answers for it. "
                f"Tablets use the address {first}, or restart the hall with another --name."
            )
            self._share_and_log(self.others)
        elif self.announcement is not None and not self.announcement.active:
            self.say(
                f"mDNS did not work here ({self.announcement.error}): {self.name}.local will not "
                f"open on tablets, so use the address {first} instead.",
            )
        if self.tls is not None:
            for line in hall_tls.fingerprint_block(self.tls.ca_fingerprint).splitlines():
                self.say(line)
            self.say(
                "  A tablet that trusts the hall shows this fingerprint; so do the printed "
                "sheets and the director's overview. Trust nothing that shows another."
            )
        self._say_how_to_trust()
        self.say(f"Director: https://127.0.0.1:{self.port}/director/login on this laptop.")
        if settings.get("public_url"):
            self.say(
                f"Note: ADJUDICATOR_PUBLIC_URL is set ({settings.get('public_url')}): pairing "
                "links use it, not this hall's address. Unset it to point them here."
            )
        else:
            self.say("Pairing links and sheets printed from now on point here.")
        self.say("Ctrl-C stops.")

    def _say_how_to_trust(self) -> None:
        """Where tablets trust the hall: the plain-HTTP trust page (no certificate warning),
        else the HTTPS one, whose first visit a browser warns about."""
        trust = f"{self._plain_url(self.url) or self.url}/hall/trust"
        self.say(f"Tablets: trust the hall once at {trust}, then pair them.")
        by_address = f"https://{self.reachable[0]}:{self.port}"
        if self.http_port and self.url != by_address:  # a name a browser may keep to HTTPS
            self.say(f"  or at {self._plain_url(by_address)}/hall/trust, by address.")
        if self.http_port:
            self.say(
                f"  That page and the certificate are served over plain HTTP on port "
                f"{self.http_port}, so a tablet's first visit meets no certificate warning; "
                "everything else there is sent to HTTPS."
            )
        else:
            self.say(
                "  A browser warns about the certificate on that first visit (the hall is not "
                "trusted yet): go on to the page, then compare the fingerprint with the sheet."
            )

    def _listen_first(self) -> None:
        """Before the server starts: who else answers for NAME.local, and whether another
        laptop of this hall is among them (told so at once; if it judges, this one does not)."""
        if not self.where.on_lan:
            return
        self.announcement = mdns.open_name(self.name, self.port, self.where.addresses)
        self.others = self._ask_before_announcing()
        self._tell_laptops(self.others, starting=True)

    def _tell_laptops(self, others, starting: bool = False) -> None:
        """Tell each other laptop of this hall heard (at most every TELL_SECONDS) that this
        one serves too: it warns then, whichever of the two is silent on the name."""
        if self.tell is None:
            return
        now = time.monotonic()
        for other in others:
            if not other.same_ca or now - self.told.get(other.address, -TELL_SECONDS) < (
                TELL_SECONDS
            ):
                continue
            self.told[other.address] = now
            answer = self.tell(other.address)
            if starting and answer is not None and answer.get("judging") is True:
                if self.on_judging is not None:
                    self.warn(f"JUDGING HELD: {self.on_judging(other.address, answer)}")

    def _ask_before_announcing(self) -> tuple[name_claims.OtherDevice, ...]:
        """Who else answers for NAME.local now (python-zeroconf would not ask for us)."""
        if self.announcement is None or not self.announcement.listening:
            return ()
        self.announcement.ask()
        _wait(ASK_AGAIN_SECONDS, self)
        self.announcement.ask()
        _wait(ASK_SECONDS - ASK_AGAIN_SECONDS, self)
        self.next_check = time.monotonic() + self.check_seconds
        return self._others()

    def _others(self) -> tuple[name_claims.OtherDevice, ...]:
        found = name_claims.others_from(self.announcement.heard(), lan.own_addresses())
        return tuple(replace(other, same_ca=self._same_ca(other.address)) for other in found)

    def _same_ca(self, address: str) -> bool:
        """Whether `address` serves the hall's port with this hall's own CA (asked once)."""
        if address not in self.probed:
            ca = self.tls.ca_cert if self.tls is not None else None
            self.probed[address] = ca is not None and hall_tls.serves_with_ca(
                address, self.port, ca
            )
        return self.probed[address]

    def _look_after_pause(self, beat) -> None:
        """The laptop was paused (asleep, or its processes stopped), and its server judges
        nothing meanwhile (record/journal/hall_beat.py): ask who answers for the name now, tell
        each other laptop of the hall heard (one that took the hall over holds this one), then
        beat again."""
        self.warn(
            f"The hall was paused for {beat.paused:.0f} s (the laptop asleep, or its processes "
            "stopped): judging waits while it looks for another laptop of the hall."
        )
        self.told.clear()  # a laptop told before the pause is told again, now
        if self.announcement is not None and self.announcement.listening:
            self._take_in(self._ask_before_announcing())
        beat.resume()
        self.warn("The hall looked at its network after the pause; judging resumes unless held.")

    def _watch_name(self) -> None:
        """Every check_seconds: ask again, and report any device not heard before."""
        if self.announcement is None or not self.announcement.listening:
            return
        if time.monotonic() < self.next_check:
            return
        self.next_check = time.monotonic() + self.check_seconds
        found = self._others()
        self.announcement.ask()  # its answers are read at the next check
        self._take_in(found)

    def _take_in(self, found: tuple[name_claims.OtherDevice, ...]) -> None:
        """Tell the other laptops of the hall among `found`; report any device not heard before."""
        self._tell_laptops(found)
        if found == self.others:
            return
        new = [o for o in found if o.address not in {x.address for x in self.others}]
        if new and self.url != self.address_url:
            self._record(self.address_url)  # links: an address
        self.others = found
        self._share_and_log(new)

    def _share_and_log(self, new) -> None:
        claims = name_claims.NameClaims(
            self.name,
            bool(self.announcement and self.announcement.active),
            self.url,
            self.others,
            os.getpid(),
        )
        name_claims.write(claims)
        reported = {other.address for other in new}
        for other, line in zip(claims.others, claims.warnings(), strict=True):
            if other.address in reported:
                self.warn(f"WARNING: {line}")

    def _record(self, url: str) -> None:
        self.url = url
        hall_url.record(
            hall_url.HallRecord(
                url=url,
                name=self.name,
                port=self.port,
                addresses=self.where.addresses,
                mdns=bool(self.announcement and self.announcement.active),
                http_url=self._plain_url(url),
                http_port=self.http_port,
            )
        )
        self.on_record()

    def _plain_url(self, url: str) -> str:
        """The plain-HTTP address of the host in `url` (the name, or an address), or ""."""
        return f"http://{urlsplit(url).hostname}:{self.http_port}" if self.http_port else ""

    def _withdraw(self) -> None:
        if self.announcement is not None:
            self.announcement.withdraw()


def _wait(seconds: float, hall: HallProcess) -> None:
    deadline = time.monotonic() + seconds
    while not hall.stopping and time.monotonic() < deadline:
        time.sleep(0.05)


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
    problem = port_problem(binds, port)
    if problem:
        raise HallServerError(problem)


def plain_port(binds: list[str], port: int) -> tuple[int, str]:
    """(`port`, "") when the plain-HTTP trust page can be served on it; else (0, a warning
    saying why not): a port in use is no reason not to serve, the hall starts without it."""
    if not port:
        return 0, ""
    problem = port_problem(binds, port, "--http-port", DEFAULT_HTTP_PORT)
    if not problem:
        return port, ""
    return 0, (
        f"WARNING: {problem} The hall serves without its plain-HTTP trust page this time: "
        "tablets meet a certificate warning on their first visit to /hall/trust over HTTPS."
    )


def port_problem(
    binds: list[str], port: int, option: str = "--port", usual: int = DEFAULT_PORT
) -> str:
    """What stops listening on `port` at every address of `binds` ("" when nothing does)."""
    for address in binds:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn does
            try:
                probe.bind((address, port))
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    return (
                        f"Port {port} is already in use on {address}: another server (another "
                        f"`adjudicator hall` or `serve`?) holds it. Stop that one, or choose "
                        f"another port with {option}."
                    )
                if exc.errno == errno.EACCES:
                    return (
                        f"Port {port} needs administrator rights on this system: "
                        f"use a port above 1023, such as {option} {usual}."
                    )
                return f"Cannot listen on {address}:{port}: {exc.strerror}."
    return ""
