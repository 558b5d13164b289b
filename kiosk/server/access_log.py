"""gunicorn's log: the access log without pairing codes (`/pair/<code>`, links printed before
codes moved after '#', is logged as `/pair/<code>`, so whoever reads the log cannot pair a
screen), and its "Listening at:" line naming the hall's plain-HTTP port (ADJUDICATOR_HTTP_PORT,
served without TLS by the worker) as `http://`, not as gunicorn's TLS makes every socket."""

from __future__ import annotations

import re

from gunicorn.glogging import Logger

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
