"""The hall's takeover kit in tests: the passphrase, the stick's files, and every secret a data
home holds, in the forms it could be written in on the stick."""

from __future__ import annotations

import base64
import gc
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from adjudicator.hall.kit import sealing
from adjudicator.hall.kit.seal import core_aad
from adjudicator.hall.network import hall_tls, hall_url
from adjudicator.record.journal import receipt_key

PASSPHRASE = "correct horse battery staple"


class Laptops:
    """Laptop A (the test's home) and a fresh laptop B, sharing the stick."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run):
        self.a, self.b, self.stick = tmp_path / "home", tmp_path / "laptop-b", tmp_path / "stick"
        self.mirror = self.stick / "journal.sqlite3"
        self.monkeypatch, self.run = monkeypatch, run

    def on(self, home: Path) -> Laptops:
        self.monkeypatch.setenv("ADJUDICATOR_HOME", str(home))
        return self

    def judge(self, *words: str):
        return self.run("judge", "--tournament", "hall", *words)

    def seal(self, passphrase: str = PASSPHRASE):
        return self.on(self.a).run("kit", "seal", str(self.stick), "--passphrase-stdin",
                                   input=passphrase + "\n")  # fmt: skip

    def open(self, home: Path, passphrase: str = PASSPHRASE):
        return self.on(home).run("kit", "open", str(self.stick), "--passphrase-stdin",
                                 input=passphrase + "\n")  # fmt: skip


def sealed_laptops(tmp_path: Path, monkeypatch, run) -> Laptops:
    """A serving tournament `hall` (lexicon TINY) with three verdicts, its mirror on the stick,
    its CA and a server certificate made, and its kit sealed on the stick (the `run`, `home`
    and `tiny` fixtures of tests/conftest.py made first)."""
    found = Laptops(tmp_path, monkeypatch, run)
    found.stick.mkdir()
    monkeypatch.setenv("ADJUDICATOR_JOURNAL_MIRROR", str(found.mirror))
    assert (
        run("tournament", "create", "hall", "--lexicon", "TINY", "--rule", "double").exit_code == 0
    )
    for words in (["QI"], ["ZA", "QI"], ["QI"]):
        assert found.judge(*words).exit_code in (0, 1)
    hall_tls.ensure("hall", ("127.0.0.1",), own_networks=[])  # as `adjudicator hall` makes them
    hall_url.record(hall_url.HallRecord("https://hall.local:8443", "hall", 8443, ("127.0.0.1",),
                                        True, "http://hall.local:8080", 8080))  # fmt: skip
    sealed = found.seal()
    assert sealed.exit_code == 0, sealed.stderr
    # A's commands ran in this process: their connections close now, as A's own process's
    # would at exit. One collected later, during a test's `kit open`, would checkpoint the
    # stick's WAL into its file then, and the stick would seem written (CI at stop 57).
    gc.collect()
    return found


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
