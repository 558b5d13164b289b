"""The journal's files on disk, and which of them other users can read.

Every file of an SQLite journal (the database, -wal, -shm, .lock, a copy's marker, ...) is made
readable by its owner only. Where the file system keeps no permissions (a FAT or exFAT stick
used as the mirror) that cannot hold: `journal status` and the director's overview say so.
"""

from __future__ import annotations

from adjudicator.durable import readable_by_others
from adjudicator.record.copies.background_check import SUFFIX as VERIFIED_SUFFIX
from adjudicator.record.copies.markers import RESYNCED_SUFFIX
from adjudicator.record.copies.markers import SUFFIX as MARKER_SUFFIX
from adjudicator.record.database.db import Database
from adjudicator.record.proofs.high_water import SUFFIX as MARK_SUFFIX
from adjudicator.record.proofs.high_water import copy_paths

# The database, its -wal and -shm, the writers' lock, a lost copy's marker, a resync's note,
# the high-water mark kept beside it (issue 27), and the stamp of the last full verification.
SIDE_FILES = (
    "",
    "-wal",
    "-shm",
    ".lock",
    MARKER_SUFFIX,
    RESYNCED_SUFFIX,
    MARK_SUFFIX,
    VERIFIED_SUFFIX,
)


def readable_copies(db: Database) -> list[str]:
    """The journal's copies one of whose files other users can still read once made owner-only
    (its file system keeps no permissions, or the file is another user's)."""
    return [
        path
        for path in copy_paths(db)
        if any(readable_by_others(path + suffix) for suffix in SIDE_FILES)
    ]


def warning(path: str) -> str:
    """What `journal status` says of a copy others can read."""
    return (
        f"{path} can be read by other users: its file system keeps no permissions (such as a "
        "FAT or exFAT stick), or the file is another user's. Keep that disk with you."
    )
