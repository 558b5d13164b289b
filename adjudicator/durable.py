"""Durable file steps the journal's copies and the lexicon store share: fsync, quiet remove,
and files readable by their owner only (the journal's, whatever the umask)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

OWNER_ONLY = 0o600
_OTHERS = stat.S_IRWXG | stat.S_IRWXO


def fsync_path(path: Path | str) -> None:
    """Flush a file's or a folder's entry to disk (a folder after a rename into it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_if_there(path: Path | str) -> None:
    """Remove a file; a file already gone is not an error."""
    Path(path).unlink(missing_ok=True)


def open_owner_only(path: Path | str, flags: int) -> int:
    """`os.open` with O_CREAT, a new file being mode 600 whatever the umask (and an existing
    one has other users' permissions taken off, where its file system keeps permissions); the
    descriptor."""
    fd = os.open(path, flags | os.O_CREAT, OWNER_ONLY)
    try:
        mode = os.fstat(fd).st_mode
        if mode & _OTHERS:
            os.fchmod(fd, stat.S_IMODE(mode) & ~_OTHERS)
    except OSError:
        pass  # FAT or exFAT refuses or ignores it: `readable_by_others` tells
    return fd


def create_owner_only(path: Path | str) -> None:
    """Make `path` an empty file of mode 600 if it is not there (SQLite then opens it as a new
    database, and gives its -wal and -shm the same mode); never raises: whoever opens the file
    next says what is wrong. Only for a file no connection of this process has open: closing
    any descriptor of a file drops every POSIX lock the process holds on it, SQLite's too (for
    an open journal, `make_owner_only` works by path)."""
    try:
        os.close(open_owner_only(path, os.O_RDONLY))
    except OSError:
        pass


def make_owner_only(path: Path | str) -> None:
    """Take other users' permissions off an existing file of ours (a journal made before files
    were kept owner-only), by its path (no descriptor opened: safe on a database in use);
    quietly nothing when it is missing, not ours, or cannot change."""
    try:
        info = os.stat(path)
        if info.st_mode & _OTHERS and info.st_uid == os.geteuid():
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~_OTHERS)
    except OSError:
        pass


def readable_by_others(path: Path | str) -> bool:
    """Whether a file others may read stays so once made owner-only (its file system keeps no
    permissions, as FAT and exFAT, or it is not ours): False for a missing file."""
    make_owner_only(path)
    try:
        return bool(os.stat(path).st_mode & (stat.S_IRGRP | stat.S_IROTH))
    except OSError:
        return False


def read_regular(path: Path | str, most: int) -> bytes:
    """A regular file's bytes, at most `most` of them: a FIFO, a device, a socket or a link to
    one is refused (OSError) without waiting on it (a device is never even opened), and a
    larger file too. For files on the USB stick, which whoever holds it may have swapped (the
    same care as hall/tsh/regular_file.py takes with TSH's files, without its deadline: the
    stick is a local disk)."""
    return b"".join(read_regular_chunks(path, most))


def read_regular_chunks(path: Path | str, most: int) -> Iterator[bytes]:
    """`read_regular`, a megabyte at a time (a file hashed without holding it whole)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(f"{path} is not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # what is read is what was checked
            raise OSError(f"{path} is not a regular file")
        left = most
        while chunk := os.read(fd, min(1 << 20, left + 1)):
            if len(chunk) > left:
                raise OSError(f"{path} is larger than {most} bytes")
            left -= len(chunk)
            yield chunk
    finally:
        os.close(fd)


def write_whole(path: Path | str, data: bytes) -> None:
    """Write a small file whole, synced, then renamed into place (owner-only where the file
    system keeps permissions): a reader sees the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    fd = open_owner_only(partial, os.O_WRONLY | os.O_TRUNC)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(partial, path)
    except BaseException:
        remove_if_there(partial)  # a write that failed leaves nothing behind
        raise
    fsync_path(path.parent)
