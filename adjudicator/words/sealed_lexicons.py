"""Sealed lexicon copies handed from `adjudicator serve` to the gunicorn workers it forks.

Before the server execs gunicorn it copies each compiled lexicon into a sealed memory file
(adjudicator.words.lexicon.seal_for_workers), checks the copy against its manifest, leaves it
open across exec and fork, and names them in an environment variable as
`sha256=fd:inode:size:mtime_ns` entries (the last three: the compiled file as it was when
copied). A worker maps the copy whose SHA-256 its manifest names, so one edition's pages are
shared by every worker, and need not hash it again: the copy was checked when it was sealed and
cannot change since. A lexicon imported after the start has no copy here: the worker that opens
it makes a private one.
"""

from __future__ import annotations

import fcntl
import os

HANDOFF_VARIABLE = "ADJUDICATOR_SEALED_LEXICONS"  # internal: set by serve, read by workers
_ALL_SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL


def memfd_name(lexicon: str, sha256: str) -> str:
    """The name a sealed copy is made under: it says which bytes it was checked to hold."""
    return f"lexicon-{lexicon}-{sha256}"


def entry(sha256: str, fd: int, signature: tuple[int, int, int]) -> str:
    """One copy as the handoff variable names it."""
    return f"{sha256}={fd}:" + ":".join(map(str, signature))


def inherited_copy(sha256: str) -> tuple[int, tuple[int, ...]] | None:
    """The fd of the server's sealed copy with this SHA-256, and the compiled file's signature
    (inode, size, mtime) when it was copied, if this process inherited one that is still open,
    sealed against every change and made under the name that says it holds these bytes."""
    handed = os.environ.get(HANDOFF_VARIABLE, "")
    if sha256 not in handed:
        return None
    for pair in handed.split(","):
        digest, _, rest = pair.partition("=")
        if digest != sha256:
            continue
        fields = rest.split(":")
        if len(fields) != 4 or not all(f.isascii() and f.isdigit() for f in fields):
            return None
        fd, *signature = map(int, fields)
        try:
            sealed = fcntl.fcntl(fd, fcntl.F_GET_SEALS) & _ALL_SEALS == _ALL_SEALS
            named = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed, or not a memory file
            return None
        named = named.removesuffix(" (deleted)")
        if not sealed or not named.startswith("/memfd:lexicon-") or not named.endswith(sha256):
            return None
        return fd, tuple(signature)
    return None
