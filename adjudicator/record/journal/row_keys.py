"""Keyed rows: each journal row also carries a hash that only the hall's key can make.

The chain is plain SHA-256 (journal_entry.py): anyone holding a copy of the journal (the USB
stick) and the program's source can rewrite a row and recompute every hash after it. So each row
written since keying began also carries `keyed_hash`: HMAC-SHA256, under a secret derived from
the hall's signing key (receipt_key.SigningKey.derived, never kept beside a copy), of the
journal's id, the row's number and its hash. Since the row hash chains every row before it, a
row's keyed hash vouches for the whole chain up to it. A receipt's `row_hash` stays the row's
plain hash (the API's contract); the keyed hash is never shown.

A journal written before keying existed is read as it is and keyed from its next row: the first
append signs the key's statement of where keying began (`journal_identity.keyed`, type
`journal-keyed`, its `keyed_from`). Every receipt, mark and checkpoint signed after it names
`keyed_from` too, so a copy that lost the statement along with its keyed hashes still
contradicts them (fork_check.py).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from adjudicator.record.database.db import Database
from adjudicator.record.journal import receipt_key
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok

PURPOSE = "journal-row"  # the derived secret's purpose (no other MAC shares it)
TYPE = "journal-keyed"
READ_SQL = "SELECT keyed FROM journal_identity"


class RowSecret:
    """HMAC-SHA256 under the secret keyed hashes are made with, its two padded states hashed
    once (RFC 2104): a row's keyed hash then costs two SHA-256 copies, not an HMAC set up anew
    (which OpenSSL 3 makes several times dearer). Never printed, never stored."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes):
        padded = key.ljust(64, b"\0")  # a 32-byte secret: shorter than SHA-256's block
        self._inner = hashlib.sha256(bytes(byte ^ 0x36 for byte in padded))
        self._outer = hashlib.sha256(bytes(byte ^ 0x5C for byte in padded))

    def mac(self, text: bytes) -> str:
        """HMAC-SHA256 of `text`, in hex."""
        inner = self._inner.copy()
        inner.update(text)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.hexdigest()


def keyed_hash(secret: RowSecret, journal_id: str, row_id: int, row_hash: str) -> str:
    """The keyed hash of one row: HMAC-SHA256 of 'JOURNAL ID HASH' under the derived secret."""
    return secret.mac(f"{journal_id} {row_id} {row_hash}".encode())


def secret(key: SigningKey) -> RowSecret:
    """The secret keyed hashes are made with: only a holder of the private key has it."""
    return RowSecret(key.derived(PURPOSE))


def statement(key: SigningKey, journal_id: str, keyed_from: int) -> dict[str, Any]:
    """The key's signed statement that journal `journal_id` is keyed from row `keyed_from`."""
    return key.sign(
        {
            "type": TYPE,
            "journal": journal_id,
            "keyed_from": keyed_from,
            "key": key.id,
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
    )


def named_first(signed: dict[str, Any]) -> int | None:
    """The first keyed row an object names (its signature not checked here), if any."""
    first = signed.get("keyed_from")
    if isinstance(first, bool) or not isinstance(first, int) or first < 1:
        return None
    return first


def keyed_from(signed: Any, public, journal_id: str) -> int | None:
    """The first keyed row a signed object (a statement, a receipt, a mark, a checkpoint) of
    journal `journal_id` names, if it names one and its signature verifies with `public`."""
    if not isinstance(signed, dict) or signed.get("journal") != journal_id:
        return None
    first = named_first(signed)
    return first if first is not None and signature_ok(signed, public) else None


def parse(text: Any) -> Any:
    """A stored statement's JSON (None when there is none or it is not JSON)."""
    try:
        return json.loads(text) if isinstance(text, str) and text else None
    except ValueError:
        return None


class RowKeys:
    """The keyed hashes of one journal in this process: the secret, and where keying began."""

    def __init__(self, default: Callable[[], SigningKey]):
        self._load = default
        self._lock = threading.Lock()
        self._known: tuple[str, int, RowSecret] | None = None  # (journal, keyed_from, secret)
        self._written: tuple[str, int, RowSecret] | None = None  # a statement not yet committed

    def use(self, load: Callable[[], SigningKey]) -> None:
        """Sign with this key (the hall's, which may live elsewhere than the configured one)."""
        self._load = load
        self._known = None

    def public_key(self):
        """The public half of the key rows are keyed with (the hall's): what its other signed
        statements (a tournament closed: closings.py) are checked with."""
        return self._load().public

    @property
    def keyed_from(self) -> int | None:
        """The first keyed row of the journal this process writes (None before its first
        write): receipts and marks repeat it."""
        known = self._known
        return known[1] if known is not None else None

    def prepare(self, cur: Any, journal_id: str, next_id: int) -> RowSecret:
        """Under the chain lock, before rows are written: the secret to key them with. The
        first time, the key's statement of where keying began is read, or, when the journal
        has none yet, signed and written in this transaction (from `next_id` on)."""
        known = self._known
        if known is not None and known[0] == journal_id:
            return known[2]
        self._written = None
        key = self._load()  # no key, no row: a row without its keyed hash would be a fork
        row = cur.execute(READ_SQL).one()
        first = keyed_from(parse(row["keyed"]) if row else None, key.public, journal_id)
        if first is None:
            made = statement(key, journal_id, next_id)
            cur.execute(
                "UPDATE journal_identity SET keyed = ?", (json.dumps(made, sort_keys=True),)
            )
            self._written = (journal_id, next_id, secret(key))  # known once committed
            return self._written[2]
        with self._lock:
            self._known = (journal_id, first, secret(key))
        return self._known[2]

    def committed(self) -> None:
        """The transaction that wrote the statement committed: it is known from now on."""
        written = self._written
        if written is not None:
            with self._lock:
                self._known, self._written = written, None


_REGISTRY_LOCK = threading.Lock()


def of(db: Database) -> RowKeys:
    """The keyed hashes of `db` in this process (one per Database object)."""
    keys = db.__dict__.get("_row_keys")
    if keys is None:
        load = getattr(db, "signing_key", None)  # a mirrored journal's own (it signs markers)
        if load is None:
            path = getattr(db, "key_path", None)
            load = lambda: receipt_key.load_or_create(path)  # noqa: E731
        with _REGISTRY_LOCK:
            keys = db.__dict__.setdefault("_row_keys", RowKeys(load))
    return keys
