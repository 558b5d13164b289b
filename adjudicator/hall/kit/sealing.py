"""The kit's seal: authenticated encryption under a key from the director's passphrase, and a
kit key pair so the running hall can add to the kit without the passphrase.

- The passphrase (at least 16 characters, Unicode NFC) gives a 256-bit key by Argon2id, whose
  cost and salt are recorded in the kit; `kit open` refuses any cost but the one `kit seal`
  uses (COST: `check_cost`, "the kit was altered"), and `derive` any beyond LIMITS (a kit
  edited to ask for 64 GB of memory is altered, not a reason to run out of it).
- That key seals the kit's core (AES-256-GCM): the kit key pair's private half and the receipt
  key. A wrong passphrase, or a core changed by one bit, fails its tag: nothing is revealed.
- What changes later (a certificate renewed, the CA, the session secret) is sealed to the kit's
  public half: an ephemeral X25519 key, HKDF-SHA256, AES-256-GCM. Only the private half (so the
  passphrase) opens it. The hall signs each such item with its receipt key, so no one else can
  put one in the kit.
Every ciphertext is bound (as associated data) to the kit's id and to what it is.
"""

from __future__ import annotations

import base64
import binascii
import os
import unicodedata
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from adjudicator.errors import AdjudicatorError

KDF_NAME = "argon2id"
COST = {"time_cost": 3, "memory_kib": 256 * 1024, "parallelism": 2}  # about 0.4 s, 256 MiB
LIMITS = {"time_cost": (1, 20), "memory_kib": (8 * 1024, 2 * 1024 * 1024), "parallelism": (1, 16)}
SALT_BYTES = 16
_ITEM_INFO = b"adjudicator kit item, X25519 + HKDF-SHA256 + AES-256-GCM, v1"


class KitError(AdjudicatorError):
    """The kit cannot be sealed or opened as asked."""


class WrongPassphrase(KitError):
    """The passphrase does not open the kit (or its core was changed)."""


class KitDamaged(KitError):
    """A file of the kit is not one the hall wrote: unreadable, edited, or swapped."""


class KitAltered(KitDamaged):
    """The kit's header or manifest is not the one the hall signed: someone changed the kit."""


def altered(what: str) -> KitAltered:
    """The refusal of a kit whose header or manifest was changed (never "wrong passphrase")."""
    return KitAltered(
        f"The kit was altered: {what}. Nothing was written, and the passphrase was not tried. "
        "Use a kit sealed by the hall (`adjudicator kit seal`), or a copy of the stick made "
        "before the change."
    )


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: Any, what: str) -> bytes:
    """Bytes from base64 text; KitDamaged naming `what` otherwise."""
    try:
        return base64.b64decode(str(text).encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise KitDamaged(f"The kit's {what} is not readable: the kit was damaged.") from None


def new_kdf() -> dict[str, Any]:
    """A fresh salt and the cost every new kit records."""
    return {"name": KDF_NAME, "salt": b64(os.urandom(SALT_BYTES)), **COST}


def check_cost(kdf: Any) -> None:
    """A kit's recorded key derivation must be the one `kit seal` uses, exactly (its salt
    aside): a header asking for more, or less, was altered, and is refused before any of it
    runs."""
    if not isinstance(kdf, dict) or kdf.get("name") != KDF_NAME:
        raise altered(f"its key derivation is not {KDF_NAME}")
    for name, value in COST.items():
        if kdf.get(name) != value or isinstance(kdf.get(name), bool):
            raise altered(
                f"its key derivation's cost {name}={kdf.get(name)!r} is not the one `kit seal` "
                f"uses ({value})"
            )
    salt = unb64(kdf.get("salt"), "salt")
    if len(salt) != SALT_BYTES or set(kdf) != {"name", "salt", *COST}:
        raise altered("its key derivation's salt or fields are not the ones `kit seal` writes")


def derive(passphrase: str, kdf: dict[str, Any]) -> bytes:
    """The 256-bit key the passphrase gives under the kit's recorded KDF."""
    from argon2.low_level import Type, hash_secret_raw

    if not isinstance(kdf, dict) or kdf.get("name") != KDF_NAME:
        raise KitDamaged(f"The kit's key derivation is not {KDF_NAME}: the kit was damaged.")
    cost = {}
    for name, (low, high) in LIMITS.items():
        value = kdf.get(name)
        if not isinstance(value, int) or not low <= value <= high:
            raise KitDamaged(
                f"The kit's recorded cost {name}={value!r} is outside {low} to {high}: the kit "
                "was damaged (or made by another program)."
            )
        cost[name] = value
    salt = unb64(kdf.get("salt"), "salt")
    if len(salt) < SALT_BYTES:
        raise KitDamaged("The kit's salt is too short: the kit was damaged.")
    return hash_secret_raw(
        unicodedata.normalize("NFC", passphrase).encode("utf-8"),
        salt,
        time_cost=cost["time_cost"],
        memory_cost=cost["memory_kib"],
        parallelism=cost["parallelism"],
        hash_len=32,
        type=Type.ID,
    )


def seal(key: bytes, plaintext: bytes, aad: bytes) -> dict[str, str]:
    """AES-256-GCM of `plaintext` under `key`, bound to `aad`."""
    nonce = os.urandom(12)
    return {"nonce": b64(nonce), "ciphertext": b64(AESGCM(key).encrypt(nonce, plaintext, aad))}


def unseal(key: bytes, sealed: Any, aad: bytes) -> bytes:
    """The plaintext of `seal`; InvalidTag (cryptography's) when the key or the text is wrong."""
    if not isinstance(sealed, dict):
        raise KitDamaged("A sealed part of the kit is not readable: the kit was damaged.")
    nonce = unb64(sealed.get("nonce"), "nonce")
    if len(nonce) != 12:
        raise KitDamaged("A sealed part of the kit is not readable: the kit was damaged.")
    return AESGCM(key).decrypt(nonce, unb64(sealed.get("ciphertext"), "ciphertext"), aad)


def new_key_pair() -> tuple[bytes, bytes]:
    """A kit key pair: (private, public), raw X25519 bytes."""
    private = X25519PrivateKey.generate()
    return _raw_private(private), public_of(_raw_private(private))


def public_of(private_raw: bytes) -> bytes:
    """The public half of a raw X25519 private key."""
    private = X25519PrivateKey.from_private_bytes(private_raw)
    return private.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )


def seal_to(public_raw: bytes, plaintext: bytes, aad: bytes) -> dict[str, str]:
    """Seal `plaintext` so that only the kit's private half opens it."""
    ephemeral = X25519PrivateKey.generate()
    shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(public_raw))
    ephemeral_raw = ephemeral.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    key = _item_key(shared, ephemeral_raw, public_raw)
    return {"ephemeral": b64(ephemeral_raw), **seal(key, plaintext, aad)}


def open_sealed(private_raw: bytes, sealed: Any, aad: bytes) -> bytes:
    """The plaintext of `seal_to`; KitDamaged when it was not sealed to this kit as `aad`."""
    if not isinstance(sealed, dict):
        raise KitDamaged("A sealed item of the kit is not readable: the kit was damaged.")
    ephemeral_raw = unb64(sealed.get("ephemeral"), "sealed item")
    try:
        private = X25519PrivateKey.from_private_bytes(private_raw)
        shared = private.exchange(X25519PublicKey.from_public_bytes(ephemeral_raw))
        key = _item_key(shared, ephemeral_raw, public_of(private_raw))
        return unseal(key, sealed, aad)
    except (InvalidTag, ValueError):
        raise KitDamaged("A sealed item of the kit does not open: the kit was damaged.") from None


def _item_key(shared: bytes, ephemeral_raw: bytes, public_raw: bytes) -> bytes:
    return HKDF(
        algorithm=hashes.SHA256(), length=32, salt=ephemeral_raw + public_raw, info=_ITEM_INFO
    ).derive(shared)


def _raw_private(private: X25519PrivateKey) -> bytes:
    return private.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
