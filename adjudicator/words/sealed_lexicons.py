"""Sealed lexicon copies handed from `adjudicator serve` to the gunicorn workers it forks.

Before the server execs gunicorn it copies each compiled lexicon into a sealed memory file
(adjudicator.words.lexicon.seal_for_workers) left open across exec and fork, and names them in
an environment variable as `sha256=fd` pairs. A worker maps the copy whose SHA-256 its manifest
names, so one edition's pages are shared by every worker. A lexicon imported after the start
has no copy here: the worker that opens it makes a private one.
"""

from __future__ import annotations

import fcntl
import os

HANDOFF_VARIABLE = "ADJUDICATOR_SEALED_LEXICONS"  # internal: set by serve, read by workers
_ALL_SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL


def inherited_copy(sha256: str) -> int | None:
    """The fd of the server's sealed copy with this SHA-256, if this process inherited one
    that is still open and sealed against every change."""
    for pair in os.environ.get(HANDOFF_VARIABLE, "").split(","):
        digest, _, number = pair.partition("=")
        if digest != sha256 or not number.isascii() or not number.isdigit():
            continue
        try:
            sealed = fcntl.fcntl(int(number), fcntl.F_GET_SEALS) & _ALL_SEALS == _ALL_SEALS
        except OSError:  # closed, or not a memory file
            return None
        return int(number) if sealed else None
    return None
