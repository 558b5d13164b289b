"""gunicorn's access log without pairing codes: `/pair/<code>` (links printed before codes
moved after '#') is logged as `/pair/<code>`, so whoever reads the log cannot pair a screen."""

from __future__ import annotations

import re

from gunicorn.glogging import Logger

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
