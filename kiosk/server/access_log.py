"""gunicorn's log: the access log without pairing codes (`/pair/<code>`, links printed before
codes moved after '#', is logged as `/pair/<code>`, so whoever reads the log cannot pair a
screen), and its "Listening at:" line naming the hall's plain-HTTP port (ADJUDICATOR_HTTP_PORT,
served without TLS by the worker) as `http://`, not as gunicorn's TLS makes every socket.

Each line makes only the atoms its format names (`serve`'s: the address, the request line, the
status and the milliseconds). gunicorn's own logger makes every atom for every line (the time
of day formatted, every request header and environ variable as an atom of its own), which cost
a verdict more than a tenth of a millisecond on the event loop; an atom the fast path does not
know is read from gunicorn's full set, made once for that line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from gunicorn.glogging import Logger, SafeAtoms

from adjudicator import settings

_PAIRING_PATH = re.compile(r"(/pair/)[^?#\s]+", re.IGNORECASE)
_LISTENER = re.compile(r"https://(\S+?):(\d+)(?=,|$)")
LISTENING = "Listening at: "  # gunicorn's arbiter: "Listening at: %s (%s)", the sockets, a pid


def redact(text: str | None) -> str | None:
    """`text` with any pairing code in a /pair/ path replaced by <code>."""
    return _PAIRING_PATH.sub(r"\1<code>", text) if text else text


def plain_listeners(listeners: str, plain_port: int) -> str:
    """gunicorn's "https://A:8443,https://A:8080" with the plain port's sockets as http://."""
    if not plain_port:
        return listeners

    def scheme(found: re.Match) -> str:
        plain = int(found.group(2)) == plain_port
        return f"{'http' if plain else 'https'}://{found.group(1)}:{found.group(2)}"

    return _LISTENER.sub(scheme, listeners)


class RedactingLogger(Logger):
    """gunicorn's logger; the request line and path atoms have pairing codes redacted, and the
    sockets it listens at are named with the scheme each serves."""

    def info(self, msg, *args, **kwargs):
        if msg.startswith(LISTENING) and args and self.cfg.is_ssl:
            args = (plain_listeners(str(args[0]), settings.get_int("http_port", 0)), *args[1:])
        super().info(msg, *args, **kwargs)

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        for key in ("r", "U"):
            atoms[key] = redact(atoms.get(key))
        return atoms

    def access(self, resp, req, environ, request_time):
        """One access log line, as gunicorn writes it, its atoms made as the format reads them."""
        if not self.access_log_enabled:
            return
        try:
            self.access_log.info(
                self.cfg.access_log_format, _Atoms(self, resp, req, environ, request_time)
            )
        except Exception:
            self.exception("The access log line could not be written")


class _Atoms(Mapping):
    """The atoms of one line, made when the format reads them, as gunicorn's SafeAtoms gives
    them (double quotes escaped in text, '-' for an atom there is none of)."""

    def __init__(self, logger: RedactingLogger, resp, req, environ, request_time):
        self.logger, self.resp, self.req = logger, resp, req
        self.environ, self.took = environ, request_time
        self.full: SafeAtoms | None = None

    def __getitem__(self, key: str):
        environ = self.environ
        if key == "h":
            value = environ.get("REMOTE_ADDR", "-")
        elif key == "r":
            value = redact(
                f"{environ['REQUEST_METHOD']} {environ['RAW_URI']} {environ['SERVER_PROTOCOL']}"
            )
        elif key == "s":
            status = self.resp.status
            return status.split(None, 1)[0] if isinstance(status, str) else status
        elif key == "M":
            return self.took.seconds * 1000 + int(self.took.microseconds / 1000)
        else:
            if self.full is None:
                self.full = SafeAtoms(self.logger.atoms(self.resp, self.req, environ, self.took))
            return self.full[key]
        return value.replace('"', '\\"') if isinstance(value, str) else value

    def __iter__(self):  # logging only asks whether there are atoms, and reads them by name
        return iter(("h", "r", "s", "M"))

    def __len__(self) -> int:
        return 4
