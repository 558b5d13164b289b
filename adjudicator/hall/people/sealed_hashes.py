"""Staff password hashes, sealed where the journal's database keeps them: no copy of it (the USB
stick's mirror, a backup, a PostgreSQL dump) holds a hash anyone could guess passwords against.

A hash is stored as `sealed:v1:` and base64 of a nonce and its AES-256-GCM ciphertext, under a
key derived from the hall's signing key (receipt_key.SigningKey.derived) and bound to the
account's name. The signing key travels only sealed in the takeover kit, under the director's
passphrase: a laptop that takes the hall over (`kit open`) has it, so the director signs in
there with the same password; the stick alone gives nothing to guess against. A hash an earlier
version stored in clear is sealed at the next start or `kit seal` (`seal_clear`), with SQLite's
secure delete on, and each SQLite copy's log emptied, so no clear copy is left in its files.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from adjudicator.record.database.db import Database
from adjudicator.record.journal import receipt_key
from adjudicator.record.journal.receipt_key import SigningKey
from adjudicator.record.proofs import high_water

log = logging.getLogger("adjudicator.hall.people.staff")

PREFIX = "sealed:v1:"
PURPOSE = "staff-password-hashes"  # the derived key's purpose (no other secret shares it)


def use(db: Database, load: Callable[[], SigningKey], path: Path | None) -> None:
    """Seal and open the hashes of `db` with this key (the hall's, which may live elsewhere
    than the configured one: hall.py), kept at `path` (None: the configured file)."""
    db.__dict__["_staff_key_source"] = (load, path)
    db.__dict__.pop("_staff_key", None)


def key_of(db: Database) -> SigningKey:
    """The hall's signing key for this journal (the hall's, else a mirrored journal's own, else
    the configured one), loaded once per Database object, as its keyed rows' is (row_keys.of).
    A key others may read still opens the hashes: the director signs in to be told to `chmod
    600` it."""
    found = db.__dict__.get("_staff_key")
    if found is None:
        load, path = db.__dict__.get("_staff_key_source") or (None, None)
        path = path or getattr(db, "key_path", None) or receipt_key.key_path()
        load = load or getattr(db, "signing_key", None)
        try:
            found = load() if load is not None else receipt_key.load_or_create(path)
        except receipt_key.ReceiptKeyError:
            if not path.exists():
                raise
            found = receipt_key.load(path, private_to_owner=False)
        db.__dict__["_staff_key"] = found
    return found


def seal(key: SigningKey, name: str, password_hash: str) -> str:
    """The stored form of account `name`'s password hash."""
    nonce = os.urandom(12)
    sealed = AESGCM(key.derived(PURPOSE)).encrypt(nonce, password_hash.encode("utf-8"), _aad(name))
    return PREFIX + base64.b64encode(nonce + sealed).decode("ascii")


def unseal(key: SigningKey, name: str, stored: str) -> str | None:
    """The password hash of account `name` (one stored in clear, as it is); None when it does
    not open (another hall's key, or edited)."""
    if not stored.startswith(PREFIX):
        return stored
    try:
        raw = base64.b64decode(stored[len(PREFIX) :].encode("ascii"), validate=True)
        opened = AESGCM(key.derived(PURPOSE)).decrypt(raw[:12], raw[12:], _aad(name))
        return opened.decode("utf-8")
    except (binascii.Error, ValueError, InvalidTag, UnicodeError):
        log.warning(
            "the password of staff account %r does not open with this hall's key (the key was "
            "replaced?): set it again (`adjudicator director set-password` or `judge-account "
            "set-password`)",
            name,
        )
        return None


def seal_clear(db: Database, key: SigningKey) -> int:
    """Seal every hash still stored in clear (by an earlier version), leaving no clear copy in
    the database's files; how many were sealed. A read only, when there is none."""
    with db.transaction() as cur:
        clear = cur.execute(
            "SELECT name, password_hash FROM staff WHERE password_hash NOT LIKE ?", (PREFIX + "%",)
        ).all()
    if not clear:
        return 0
    with db.transaction(chain_lock=True) as cur:
        if db.backend == "sqlite":
            cur.execute("PRAGMA secure_delete = ON")  # the old text zeroed, not left in a page
        for row in clear:
            cur.execute(
                "UPDATE staff SET password_hash = ? WHERE name = ? AND password_hash = ?",
                (seal(key, row["name"], row["password_hash"]), row["name"], row["password_hash"]),
            )
    for path in high_water.copy_paths(db):
        _empty_log(path)
    return len(clear)


def _empty_log(path: str) -> None:
    """Copy an SQLite file's write-ahead log into it and empty the log (its old pages held the
    clear text); quietly nothing while another connection reads (the next start does it)."""
    try:
        connection = sqlite3.connect(f"file:{quote(path)}?mode=rw", uri=True, timeout=5)
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()
    except sqlite3.Error:
        pass


def _aad(name: str) -> bytes:
    return f"adjudicator staff password hash of {name}".encode()
