"""The hall's signing key for receipts and checkpoints: Ed25519, made on first start.

The private key is a PEM file (PKCS#8) readable by its owner only: `receipt_key.pem` in the data
home, or the file ADJUDICATOR_RECEIPT_KEY_FILE names, so several app servers sign with one key.
A signature covers the canonical JSON of every other field of the signed object, exactly as
`json.dumps(fields, sort_keys=True, separators=(",", ":"))` writes it (ASCII, non-ASCII
escaped), and is written in base64url with its `=` padding.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import stat
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from adjudicator import settings
from adjudicator.errors import AdjudicatorError

FILE_NAME = "receipt_key.pem"


class ReceiptKeyError(AdjudicatorError):
    """The signing key cannot be used: unreadable, not Ed25519, or readable by others."""


def canonical(fields: dict[str, Any]) -> bytes:
    """The exact bytes a signature covers."""
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode(
        "ascii"
    )


def key_id(public: Ed25519PublicKey) -> str:
    """A short name for a public key: the first 16 hex digits of SHA-256 of its raw bytes."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


@dataclass(frozen=True)
class SigningKey:
    """The private key and what is shown of it."""

    private: Ed25519PrivateKey
    path: Path

    @cached_property  # computed once: a receipt is signed on every verdict's path
    def public(self) -> Ed25519PublicKey:
        return self.private.public_key()

    @cached_property
    def id(self) -> str:
        return key_id(self.public)

    def public_pem(self) -> str:
        """The public key as PEM SubjectPublicKeyInfo, as `journal key` prints it."""
        return public_pem(self.public)

    def sign(self, fields: dict[str, Any]) -> dict[str, Any]:
        """`fields` with a `signature` over their canonical JSON."""
        signature = self.private.sign(canonical(fields))
        return {**fields, "signature": base64.urlsafe_b64encode(signature).decode("ascii")}

    def derived(self, purpose: str) -> bytes:
        """A secret of this key for one purpose (a MAC key): only a holder of the private key
        can make it, and no two purposes share one."""
        raw = self.private.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        return hmac.new(raw, b"adjudicator:" + purpose.encode("ascii"), hashlib.sha256).digest()


def public_pem(public: Ed25519PublicKey) -> str:
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def load_public_pem(data: bytes) -> Ed25519PublicKey:
    """An Ed25519 public key from PEM (as `journal key` prints it); ValueError otherwise."""
    public = serialization.load_pem_public_key(data)
    if not isinstance(public, Ed25519PublicKey):
        raise ValueError("not an Ed25519 key")
    return public


def signature_ok(signed: dict[str, Any], public: Ed25519PublicKey) -> bool:
    """Whether `signed["signature"]` is the key's signature over the object's other fields."""
    signature = signed.get("signature")
    if not isinstance(signature, str):
        return False
    fields = {name: value for name, value in signed.items() if name != "signature"}
    try:
        raw = base64.urlsafe_b64decode(signature.encode("ascii"))
        # Only the one text `sign` writes: no junk characters, no '+' or '/' of the standard
        # alphabet, no missing padding. Two different receipt texts never verify as one.
        if base64.urlsafe_b64encode(raw).decode("ascii") != signature:
            return False
        public.verify(raw, canonical(fields))
    except (InvalidSignature, binascii.Error, ValueError, UnicodeEncodeError, TypeError):
        return False
    return True


def key_path(make_home: bool = True) -> Path:
    """The configured key file: ADJUDICATOR_RECEIPT_KEY_FILE, else receipt_key.pem in the home
    (made first, unless `make_home` is False)."""
    named = settings.get("receipt_key_file").strip()
    if named:
        return Path(named).expanduser()
    home = settings.data_home() if make_home else Path(settings.get("home")).expanduser()
    return home / FILE_NAME


def load_or_create(path: Path | None = None) -> SigningKey:
    """The signing key, made (mode 0600, exclusively) if no process has made it yet."""
    path = path or key_path()
    if not path.exists():
        _create(path)
    return load(path)


def existing(path: Path | None = None) -> SigningKey | None:
    """The signing key if it is there and usable, else None: a read never makes a key."""
    path = path or key_path()
    if not path.exists():
        return None
    try:
        return load(path)
    except ReceiptKeyError:
        return None


def load(path: Path, private_to_owner: bool = True) -> SigningKey:
    """Read the private key; refused if others may read it (unless `private_to_owner` is
    False: a key to open what the hall sealed, never to sign) or it is not an Ed25519 key."""
    try:
        info = path.stat()
        data = path.read_bytes()
    except OSError as exc:
        raise ReceiptKeyError(
            f"The receipt signing key {path} cannot be read: {exc.strerror or exc}."
        ) from None
    if private_to_owner and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ReceiptKeyError(
            f"The receipt signing key {path} is readable by other users, who could forge "
            f"receipts: run `chmod 600 {path}` (and make a new key if others have read it)."
        )
    try:
        private = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise ReceiptKeyError(
            f"The receipt signing key {path} is not a readable PEM private key: {exc}"
        ) from None
    if not isinstance(private, Ed25519PrivateKey):
        raise ReceiptKeyError(f"The receipt signing key {path} is not an Ed25519 key.")
    return SigningKey(private, path)


def _create(path: Path) -> None:
    """Write a new key beside `path` and link it into place: no reader sees half a file, and
    of several processes starting at once exactly one key wins."""
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, 0o600)
        with os.fdopen(handle, "wb") as out:
            out.write(pem)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temp, path)
        except FileExistsError:
            pass  # another process made it first: use theirs
    except OSError as exc:
        raise ReceiptKeyError(
            f"The receipt signing key {path} cannot be created: {exc.strerror or exc}."
        ) from None
    finally:
        Path(temp).unlink(missing_ok=True)
