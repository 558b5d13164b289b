"""gunicorn's access log without pairing codes: `/pair/<code>` (links printed before codes
moved after '#') is logged as `/pair/<code>`, so whoever reads the log cannot pair a screen.

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

_PAIRING_PATH = re.compile(r"(/pair/)[^?#\s]+", re.IGNORECASE)


def redact(text: str | None) -> str | None:
    """`text` with any pairing code in a /pair/ path replaced by <code>."""
    return _PAIRING_PATH.sub(r"\1<code>", text) if text else text


class RedactingLogger(Logger):
    """gunicorn's logger; the request line and path atoms have pairing codes redacted."""

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
