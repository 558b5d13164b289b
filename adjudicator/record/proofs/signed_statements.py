"""Everything the hall's key says about one journal, gathered for fork_check.judge.

From the data home and beside each SQLite copy: the signed high-water marks (high_water.py).
From each copy (both copies of a mirrored journal, or the one database): the kiosks' newest
receipts and the checkpoints (signed by the key, of this journal), the key's statement of where
keying began (row_keys.py), and the rollbacks still open (the hall's own notes, unsigned: they
can say rows are missing, never that a copy is a fork). Read from every copy, so a copy cannot
vouch for itself by forgetting them; every receipt, mark and checkpoint also names where keying
began, so a copy that lost the statement still has to show its keyed rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator.record.database.db import Database
from adjudicator.record.journal import rollbacks, row_keys
from adjudicator.record.journal.receipt_key import signature_ok
from adjudicator.record.proofs import high_water
from adjudicator.record.proofs.fork_check import Proof, Statements

Store = str | Database  # an SQLite copy by its path (read-only), or an open journal
STATEMENT = "the key's signed statement of the first keyed row"


def query(store: Store, sql: str) -> list[tuple]:
    """The rows of a read on one copy; none when it cannot be read (an older schema, a file
    that is not there): it proves nothing."""
    if isinstance(store, str):
        if not Path(store).is_file():
            return []
        connection = sqlite3.connect(f"file:{quote(store)}?mode=ro", uri=True, timeout=10)
        try:
            return connection.execute(sql).fetchall()
        except sqlite3.Error:
            return []
        finally:
            connection.close()
    try:
        with store.transaction() as cur:
            return cur.execute(sql).tuples()
    except Exception:  # noqa: BLE001 - an older schema, a database gone: it proves nothing
        return []


def kept(store: Store) -> list[tuple[Any, str]]:
    """The signed objects a copy keeps, each with what it is: receipts, checkpoints, the keyed
    statement (not yet checked)."""
    found = [
        (row_keys.parse(body), f"kiosk {kiosk}'s receipt")
        for kiosk, body in query(store, "SELECT kiosk, receipt FROM kiosk_witnesses")
    ]
    found += [
        (row_keys.parse(body), "a signed checkpoint")
        for (body,) in query(store, "SELECT body FROM checkpoints")
    ]
    found += [(row_keys.parse(body), STATEMENT) for (body,) in query(store, row_keys.READ_SQL)]
    return found


def open_rollbacks(store: Store, journal_id: str) -> list[Proof]:
    """The rollbacks still open in a copy of this journal, as unsigned proofs (a fork's record
    names no row hash: it proves no row)."""
    identity = query(store, "SELECT journal_id FROM journal_identity")
    if not identity or identity[0][0] != journal_id:
        return []  # another journal's rollbacks
    rows = query(
        store, "SELECT row_id, row_hash, source FROM journal_rollbacks WHERE resolved_at IS NULL"
    )
    return [
        Proof(int(row_id), row_hash, source, journal_id, signed=False)
        for row_id, row_hash, source in rows
        if not str(row_hash).startswith(rollbacks.FORK)
    ]


def gather(
    journal_id: str,
    stores: Iterable[Store],
    mark_places: Iterable[Path],
    public: Ed25519PublicKey,
    secret: row_keys.RowSecret | None = None,
    extra: Iterable[Proof] = (),
) -> Statements:
    """Every statement about journal `journal_id`: from the marks in `mark_places`, from what
    each of `stores` keeps, and `extra` (a mirrored journal's head last committed)."""
    proofs = list(extra)
    keyed: list[tuple[int, str]] = []
    signed: list[tuple[Any, str]] = [
        (mark, rollbacks.MARK_SOURCE) for mark in high_water.all_marks(mark_places, public)
    ]
    for store in stores:
        signed += kept(store)
        proofs += open_rollbacks(store, journal_id)
    for item, source in signed:
        if not isinstance(item, dict) or item.get("journal") != journal_id:
            continue
        if not signature_ok(item, public):
            continue
        first = row_keys.named_first(item)
        if first is not None:
            keyed.append((first, source))
        row_id, row_hash = item.get("id"), item.get("row_hash")
        if (
            item.get("type") != row_keys.TYPE
            and isinstance(row_id, int)
            and not isinstance(row_id, bool)
            and row_id > 0
            and isinstance(row_hash, str)
        ):
            proofs.append(Proof(row_id, row_hash, source, journal_id))
    # The earliest first keyed row; the journal's own statement named first where several agree.
    first, source = min(keyed, key=lambda k: (k[0], k[1] != STATEMENT), default=(None, ""))
    return Statements(journal_id, tuple(proofs), first, source, secret)
