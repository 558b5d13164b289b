"""Small real file systems for fault tests: a size-limited tmpfs, and filling one up."""

from __future__ import annotations

import errno
import os
import subprocess
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def small_filesystem(path: Path, size_kb: int):
    """A size-limited tmpfs at `path`; yields False (and mounts nothing) where mounting is
    not permitted, so the caller can fall back to a file size limit."""
    path.mkdir(parents=True)
    mounted = (
        os.geteuid() == 0
        and not os.environ.get("ADJUDICATOR_TEST_NO_MOUNT")
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs", str(path)],
            capture_output=True,
        ).returncode
        == 0
    )
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill_up(folder: Path) -> Path:
    """Write a filler file until the file system says it is full."""
    filler = folder / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(descriptor, b"\1" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(descriptor)
    return filler
