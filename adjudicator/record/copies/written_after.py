"""Rows another laptop wrote after this one's own: a takeover proven by the journal itself.

Every row names the install that wrote it (journal/writer.py), hashed with the row and keyed
with the hall's key. So when a copy (the USB stick) holds rows past the last row it shares with
this laptop's own copy, each of those rows says who wrote it: a row of another install, or one
that does not prove itself (its chain or its keyed hash does not verify from this laptop's own
rows: changed by hand), means another laptop may have judged the hall since, and this one must
not. No side file decides this: deleting or editing the takeover statement on the stick
changes nothing. The rows are read, never written, and only those past the shared row: at an
ordinary start, none.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from adjudicator.record.copies import head_guard, standing
from adjudicator.record.journal import chain_walk, journal_entry, row_keys
from adjudicator.record.journal.writer import SHOWN

INSTALL = journal_entry.FIELDS.index("install")
BATCH = 500
_CHAIN = "its chain breaks: "


@dataclass(frozen=True)
class Foreign:
    """The first row of `path` this laptop did not write: its number, the install that did
    (None: the row does not prove itself), the last row the copies share, and why."""

    path: str
    row: int
    install: str | None
    shared: int
    why: str = ""

    def what(self) -> str:
        """What the row says, for the director."""
        if self.install is not None:
            return f"row {self.row} was written by another laptop (install {self.install[:SHOWN]})"
        return f"row {self.row} does not prove who wrote it ({self.why})"


def first_foreign(
    own: str,
    other: str,
    install: str | None,
    journal_id: str | None,
    secret: row_keys.RowSecret | None,
    after: int = 0,
) -> Foreign | None:
    """The first row of the copy `other`, past the last one it shares with the copy `own`
    (and past row `after`: where this install's own takeover began), that this install cannot
    have written; None when there is none."""
    theirs = standing.head(other)
    if not theirs.exists or theirs.rows <= after:
        return None
    mine = standing.head(own)
    if mine.journal_id and theirs.journal_id and mine.journal_id != theirs.journal_id:
        return None  # another journal altogether: the copies' comparison says so
    shared = max(_shared(own, other, mine, theirs), after)
    if theirs.rows <= shared:
        return None
    # Past rows of this laptop's own, a row that does not prove itself may hide another
    # laptop's; with no rows here to go on from, such a copy is a fork or a rollback, which
    # the start's proof names (proof.py): only rows another install provably wrote count then.
    strict = mine.exists and mine.rows > 0
    return _first(other, shared, install, journal_id or theirs.journal_id, secret, strict)


def _shared(own: str, other: str, mine: standing.CopyHead, theirs: standing.CopyHead) -> int:
    """The last row both copies hold with the same hash (0: none)."""
    upto = min(mine.rows, theirs.rows) if mine.exists else 0
    if upto == 0:
        return 0
    if standing.hash_at(own, upto) == standing.hash_at(other, upto):
        return upto  # the usual case: one is the other's prefix
    paths = {"own": own, "other": other}

    def hash_at(role: str, row: int) -> str | None:
        return standing.hash_at(paths[role], row)

    return head_guard.first_difference("own", "other", upto, hash_at) - 1


def _first(
    path: str,
    shared: int,
    install: str | None,
    journal_id: str | None,
    secret: row_keys.RowSecret | None,
    strict: bool = True,
) -> Foreign | None:
    """Walk `path`'s rows after `shared` (read only) until one this install did not write
    (`strict`: or one that does not prove who wrote it)."""
    connection = standing.open_to_read(path)
    try:
        previous = connection.execute(
            "SELECT row_hash FROM adjudications WHERE id = ?", (shared,)
        ).fetchone()
        expected = previous[0] if previous else standing.GENESIS
        expected_id = shared + 1
        while True:
            rows = connection.execute(
                f"{journal_entry.SELECT_KEYED} WHERE id > ? ORDER BY id LIMIT {BATCH}",
                (expected_id - 1,),
            ).fetchall()
            if not rows:
                return None
            for row in rows:
                found = _judge(row, expected_id, expected, install, journal_id, secret)
                if found is not None and (strict or found[0] is not None):
                    return Foreign(path, row[0], found[0], shared, found[1])
                if found is not None and found[1].startswith(_CHAIN):
                    return None  # not strict: past a broken chain, no row says anything
                expected, expected_id = row[journal_entry.ROW_HASH], row[0] + 1
    except sqlite3.Error as exc:
        return Foreign(path, shared + 1, None, shared, f"its rows cannot be read: {exc}")
    finally:
        connection.close()


def _judge(
    row: tuple,
    expected_id: int,
    expected: str,
    install: str | None,
    journal_id: str | None,
    secret: row_keys.RowSecret | None,
) -> tuple[str | None, str] | None:
    """(install, why) when this row is not this install's own, else None."""
    problem = chain_walk.chain_problem(row, row[0], expected_id, row[journal_entry.PREV_HASH],
                                       expected)  # fmt: skip
    if problem:
        return None, f"{_CHAIN}{problem}"
    keyed = row[-1]
    if secret is not None and (
        not journal_id
        or keyed != row_keys.keyed_hash(secret, journal_id, row[0], row[journal_entry.ROW_HASH])
    ):
        return None, f"row {row[0]}'s keyed hash is not the hall's"
    writer = row[INSTALL]
    if writer is not None and writer != install:
        return str(writer), "another laptop wrote it"
    return None
