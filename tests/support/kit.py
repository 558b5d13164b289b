"""The hall's takeover kit in tests: the passphrase, the stick's files, and every secret a data
home holds, in the forms it could be written in on the stick."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from cryptography.hazmat.primitives import serialization

from adjudicator.hall.kit import sealing
from adjudicator.hall.kit.seal import core_aad
from adjudicator.record.journal import receipt_key

PASSPHRASE = "correct horse battery staple"


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under `folder`, by its path, with its bytes (but SQLite's shared-memory
    index, which a read changes too)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and not p.name.endswith("-shm")
    }


def secrets_of(home: Path, stick: Path, passphrase: str = PASSPHRASE) -> dict[str, bytes]:
    """Every secret of the hall in `home` (its receipt key, CA key, server key where there is
    one, session secret) and the kit's private half: raw, hex, base64 and PEM bodies."""
    found = {}
    key = receipt_key.load(home / "receipt_key.pem")
    found["receipt key"] = key.private.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    found["receipt key PEM"] = _pem_body((home / "receipt_key.pem").read_bytes())
    for name in ("ca.key", "server.key"):
        path = home / "hall" / name
        if not path.exists():
            continue
        pem = path.read_bytes()
        private = serialization.load_pem_private_key(pem, password=None)
        found[name] = private.private_numbers().private_value.to_bytes(32, "big")
        found[name + " PEM"] = _pem_body(pem)
    secret = (home / "secret_key").read_text().strip()
    found["session secret"] = secret.encode()
    found["session secret bytes"] = bytes.fromhex(secret)
    header = json.loads((stick / "hall-kit" / "kit.json").read_text())
    derived = sealing.derive(passphrase, header["kdf"])
    public = base64.b64decode(header["public"])
    core = json.loads(sealing.unseal(derived, header["core"], core_aad(header["kit"], public)))
    found["kit private half"] = base64.b64decode(core["private"])
    for name, value in list(found.items()):
        if len(value) <= 64:
            found[name + " hex"] = value.hex().encode()
            found[name + " base64"] = base64.b64encode(value).rstrip(b"=")
    return found


def assert_no_secret_on(stick: Path, home: Path) -> None:
    """No secret of `home`'s hall is in any file on the stick, in any of its forms."""
    on_stick = files_of(stick)
    for name, secret in secrets_of(home, stick).items():
        for path, data in on_stick.items():
            assert secret not in data, f"the {name} is in {path} in clear"


def _pem_body(pem: bytes) -> bytes:
    return b"".join(pem.strip().splitlines()[1:-1])
