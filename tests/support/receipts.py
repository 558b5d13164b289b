"""An independent check of receipts and checkpoints, written from the documented format only
(ARCHITECTURE.md: Ed25519 over json.dumps(other fields, sort_keys=True, separators=(",", ":")),
ASCII; the signature in base64url), never with the project's own verify function."""

from __future__ import annotations

import base64
import json

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization


def independent_verify(signed: dict, public_pem: str) -> bool:
    """Whether `signed["signature"]` is the PEM key's signature over the other fields."""
    fields = {name: value for name, value in signed.items() if name != "signature"}
    message = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode("ascii")
    text = signed["signature"]
    signature = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    public = serialization.load_pem_public_key(public_pem.encode())
    try:
        public.verify(signature, message)
    except InvalidSignature:
        return False
    return True
