"""Small real file systems for fault tests: a size-limited tmpfs, filling one up, and a FAT
stick (a file system that keeps no permissions)."""

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


MKFS_VFAT = next((p for p in ("/sbin/mkfs.vfat", "/usr/sbin/mkfs.vfat") if Path(p).exists()), "")


def _kernel_knows(filesystem: str) -> bool:
    try:
        return any(
            line.split()[-1] == filesystem
            for line in Path("/proc/filesystems").read_text().splitlines()
            if line.strip()
        )
    except OSError:
        return False


@contextmanager
def fat_stick(path: Path, how: str):
    """A 16 MiB FAT file system at `path`, as a USB stick would be: `how` is "kernel" (vfat on
    a loop device, files shown 0755 whatever is asked) or "fuse" (fusefat, the same with
    chmod refused). Yields None once it is mounted, or (mounting nothing) the reason it cannot
    be made here."""
    image = path.with_name(path.name + ".img")
    path.mkdir(parents=True)
    reason = ""
    if os.geteuid() != 0:
        reason = "mounting a FAT file system needs root"
    elif not MKFS_VFAT:
        reason = "mkfs.vfat is missing (apt-get install dosfstools)"
    elif how == "kernel" and not _kernel_knows("vfat"):
        reason = "this kernel has no vfat file system (none in /proc/filesystems)"
    elif how == "fuse" and not (Path("/dev/fuse").exists() and _which("fusefat")):
        reason = "fusefat or /dev/fuse is missing (apt-get install fusefat)"
    if reason:
        yield reason
        return
    with open(image, "wb") as out:
        out.truncate(16 * 1024 * 1024)
    subprocess.run([MKFS_VFAT, str(image)], check=True, capture_output=True)
    if how == "kernel":
        command = ["mount", "-o", "loop,umask=022", "-t", "vfat", str(image), str(path)]
        unmount = ["umount", "-l", str(path)]
    else:
        command = ["fusefat", "-o", "rw+,umask=022,allow_other", str(image), str(path)]
        unmount = ["fusermount", "-u", "-z", str(path)]
    mounted = subprocess.run(command, capture_output=True, text=True)
    if mounted.returncode != 0:
        yield f"{' '.join(command[:1])} could not mount it: {mounted.stderr.strip()[:200]}"
        return
    try:
        yield None
    finally:
        subprocess.run(unmount, capture_output=True)
        image.unlink(missing_ok=True)


def _which(program: str) -> str | None:
    import shutil

    return shutil.which(program)
