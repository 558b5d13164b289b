"""The keyed hash pairing codes are kept as: a copy of the journal gives nothing to test guesses
against.

A pairing code is short (10 characters of 31), so its plain SHA-256 could be found by trying
them all. The journal keeps HMAC-SHA256 of each code instead, under a key that is never in the
journal: it is derived (HKDF-SHA256, with a label of its own) from the hall's receipt key, the
Ed25519 key made on first start in the data home, mode 600 (receipt_key.py). Several app
servers that share the receipt key therefore share this key too, and there is no second secret
to copy or to lose. Made anew, the receipt key ends every unused code.
"""

from __future__ import annotations

import hashlib
import hmac

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from adjudicator.record.journal import receipt_key

_LABEL = b"adjudicator: pairing codes, HMAC-SHA256, v1"


def code_hash(code: str) -> str:
    """HMAC-SHA256 of a pairing code (as typed, upper case, no dashes), in hex."""
    return hmac.new(_key(), code.encode(), hashlib.sha256).hexdigest()


def _key() -> bytes:
    seed = receipt_key.load_or_create().private.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_LABEL).derive(seed)
