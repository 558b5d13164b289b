"""The head of a mirrored journal's chain as last committed, remembered beside each copy.

Whoever holds the chain lock (any worker, any server on the machine) writes, before its commit,
the head it starts from and the head it is about to commit (`pending`), and after the commit the
head it committed, into a small file beside each copy (`journal.sqlite3.head`): one pwrite in
place, no fsync. Each record carries a MAC made with a secret of the hall's signing key, so a
record written by hand does not verify, and the highest record that verifies counts (a record
put back from earlier is lower). The next chain transaction compares each copy's own head with
it (head_check.py).
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

SUFFIX = ".head"
SLOT = 512  # one record, padded, rewritten in place
GENESIS = "0" * 64
PURPOSE = "journal-head"


class Head(NamedTuple):
    """A copy's newest row: its journal's id, its number (0: no rows) and its hash. A tuple:
    made and compared at every chain write."""

    journal: str
    id: int
    hash: str = GENESIS

    def same(self, other: Head | None) -> bool:
        return other is not None and tuple.__eq__(self, other)


@dataclass(frozen=True)
class Remembered:
    """The head last committed, and the one a commit in progress will make (if any)."""

    committed: Head
    pending: Head | None = None

    def accepts(self, head: Head) -> bool:
        """Whether a copy ending at `head` holds what was committed (or the commit in flight)."""
        return self.committed.same(head) or (self.pending is not None and self.pending.same(head))


def path_for(copy_path: str) -> Path:
    return Path(str(copy_path) + SUFFIX)


def _text(record: Remembered) -> str:
    c, p = record.committed, record.pending
    fields = [c.journal, str(c.id), c.hash]
    fields += [str(p.id), p.hash] if p is not None else ["-", "-"]
    return " ".join(fields)


def _mac(key: bytes, text: str) -> str:
    return hmac.digest(key, text.encode("ascii"), "sha256").hex()


def encode(record: Remembered, key: bytes) -> bytes:
    text = _text(record)
    return f"{text} {_mac(key, text)}\n".encode("ascii").ljust(SLOT)


def decode(raw: bytes, key: bytes) -> Remembered | None:
    """The record in `raw` if its MAC verifies with `key`, else None."""
    try:
        parts = raw.decode("ascii").split()
    except UnicodeDecodeError:
        return None
    if len(parts) != 6:
        return None
    journal, cid, chash, pid, phash, mac = parts
    if not hmac.compare_digest(mac, _mac(key, " ".join(parts[:5]))):
        return None
    try:
        committed = Head(journal, int(cid), chash)
        pending = None if pid == "-" else Head(journal, int(pid), phash)
    except ValueError:
        return None
    return Remembered(committed, pending)


class HeadFiles:
    """The head records beside each copy of one journal, opened once per process."""

    def __init__(self, copy_paths: Iterable[str], key: bytes):
        self.paths = [str(copy_path) + SUFFIX for copy_path in copy_paths]
        self.key = key
        self._fds: dict[str, int] = {}  # path -> fd, in the process `_pid`
        self._pid = 0
        self._last: tuple[bytes, Remembered] | None = None  # what this process wrote last

    def read(self, journal: str | None) -> Remembered | None:
        """The highest record that verifies and names `journal` (any journal when None)."""
        best: Remembered | None = None
        for path in self.paths:
            raw = self._pread(path)
            if not raw:
                continue
            if self._last is not None and raw == self._last[0]:
                record: Remembered | None = self._last[1]  # as written: no MAC to recompute
            else:
                record = decode(raw, self.key)
            if record is None or (journal is not None and record.committed.journal != journal):
                continue
            if best is None or record.committed.id > best.committed.id:
                best = record
        return best

    def write(self, record: Remembered) -> None:
        """Write `record` beside every copy that can be written (a copy whose disk is gone
        is skipped: the commit on it fails too, and it is dropped)."""
        raw = encode(record, self.key)
        self._own()
        for path in self.paths:
            fd = self._fds.get(path)
            if fd is None:
                fd = self._open(path)
                if fd is None:
                    continue
            try:
                os.pwrite(fd, raw, 0)
            except OSError:
                self._forget(path)
        self._last = (raw, record)

    def _pread(self, path: str) -> bytes:
        """The record beside one copy; a file deleted under us is opened again, so the writes
        that follow go to the file there now."""
        self._own()
        fd = self._fds.get(path)
        if fd is not None:
            try:
                if os.fstat(fd).st_nlink == 0:
                    self._forget(path)
                    fd = None
            except OSError:
                self._forget(path)
                fd = None
        if fd is None:
            fd = self._open(path)
            if fd is None:
                return b""
        try:
            return os.pread(fd, SLOT, 0)
        except OSError:
            self._forget(path)
            return b""

    def _own(self) -> None:
        """Files opened by the process that forked this one are not ours: open our own."""
        pid = os.getpid()
        if pid != self._pid:
            self._fds, self._pid = {}, pid

    def _open(self, path: str) -> int | None:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return None  # its folder is gone (the stick pulled out)
        self._fds[path] = fd
        return fd

    def _forget(self, path: str) -> None:
        fd = self._fds.pop(path, None)
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass
