"""The kit's header, signed: what `kit open` checks before the passphrase is tried at all.

The header (`hall-kit/kit.json`) names the hall's public key (`hall_key`, PEM) and carries that
key's signature over every other field: the kit's id, its public half, the key derivation (its
cost fixed: sealing.check_cost), the sealed core, when it was sealed and the mirror's file
name. A header changed by anyone no longer verifies; one signed again with another key does
not verify the manifest (manifest.py) nor match the key sealed in the core. Either way `kit
open` says "the kit was altered", never "wrong passphrase", and never runs a key derivation
other than the one `kit seal` ran.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator.hall.kit import sealing
from adjudicator.record.journal import receipt_key
from adjudicator.record.journal.receipt_key import SigningKey

FIELDS = {"format", "kit", "public", "kdf", "core", "sealed_at", "mirror", "hall_key"}


def sign(key: SigningKey, fields: dict[str, Any]) -> dict[str, Any]:
    """The header: `fields` and the hall's public key, signed with the hall's key."""
    return key.sign({**fields, "hall_key": key.public_pem()})


def check(header: dict[str, Any]) -> Ed25519PublicKey:
    """The hall's public key the header names, once it verifies the header; KitAltered when the
    header is not one the hall signed, or asks for another key derivation."""
    sealing.check_cost(header.get("kdf"))  # first: the message names the cost changed
    try:
        public = receipt_key.load_public_pem(str(header.get("hall_key", "")).encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        raise sealing.altered("its header names no hall key") from None
    if set(header) != FIELDS | {"signature"} or not receipt_key.signature_ok(header, public):
        raise sealing.altered("its header (kit.json) is not the one the hall signed")
    mirror = header.get("mirror")
    if mirror is not None and (not isinstance(mirror, str) or Path(mirror).name != mirror):
        raise sealing.altered("its header's mirror is not a file name beside the kit")
    return public
