"""Reading a file TSH wrote (`tourney.js`, `config.tsh`, a `.t` file) without ever waiting on it.

Whoever can write in TSH's folder can put something else under the name: a FIFO, whose plain
`open()` waits for a writer for good; a symlink to `/dev/zero`, whose `stat` says 0 bytes and
whose reading never ends; a socket. So the path is looked at first (a device is never opened:
opening some has effects), then opened non-blocking, and the opened descriptor itself must be a
regular file: what is read is what was checked, whatever is renamed over the path meanwhile. The
bytes are counted as they are read (a file growing while read stops at the cap), and the whole
read has a deadline, checked between pieces.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path

from adjudicator.hall.tsh.event import TshError

READ_SECONDS = 10.0  # a local file of a few MB reads in milliseconds
PIECE_BYTES = 1 << 20
# O_NONBLOCK: a FIFO opens at once, with no writer; O_NOCTTY: a terminal is never taken as ours
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY


def read_regular(path: Path, limit: int, seconds: float = READ_SECONDS) -> bytes:
    """The bytes of the regular file at `path`, or TshError: not a regular file, more than
    `limit` bytes, slower than `seconds`, or unreadable. FileNotFoundError passes through (the
    caller says why the file was expected)."""
    try:
        _refuse_unless_regular(path, os.stat(path).st_mode)
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket (or a device with nothing behind it)
            raise not_regular(path, "a socket or a device") from None
        raise TshError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    try:
        _refuse_unless_regular(path, os.fstat(fd).st_mode)
        return _read_capped(fd, path, limit, seconds)
    except OSError as exc:
        raise TshError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    finally:
        os.close(fd)


def check(path: Path) -> None:
    """TshError unless `path` is a regular file now (its symlinks followed)."""
    try:
        _refuse_unless_regular(path, os.stat(path).st_mode)
    except OSError as exc:
        raise TshError(f"Cannot read {path}: {exc.strerror or exc}.") from None


def not_regular(path: Path, what: str) -> TshError:
    """The refusal of a path that is not a regular file."""
    return TshError(
        f"{path.name} is not a regular file ({what}): the hall reads only a file TSH wrote. "
        f"Put TSH's own {path.name} back at {path}; the hall reads it as soon as it is there."
    )


def _refuse_unless_regular(path: Path, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISFIFO(mode):
        what = "a FIFO"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        what = "a device"
    elif stat.S_ISSOCK(mode):
        what = "a socket"
    elif stat.S_ISDIR(mode):
        what = "a folder"
    else:
        what = "not a file"
    raise not_regular(path, what)


def _read_capped(fd: int, path: Path, limit: int, seconds: float) -> bytes:
    """At most `limit` bytes, in pieces, each read begun before the deadline."""
    deadline = time.monotonic() + seconds
    data = bytearray()
    while True:
        if time.monotonic() > deadline:
            raise TshError(
                f"Reading {path.name} took more than {seconds:g} s: the file system under "
                f"{path.parent} is too slow (the hall tries again)."
            )
        piece = os.read(fd, min(PIECE_BYTES, limit + 1 - len(data)))
        if not piece:
            return bytes(data)
        data += piece
        if len(data) > limit:
            raise TshError(f"{path.name} is larger than {limit} bytes: too large to be TSH's.")
