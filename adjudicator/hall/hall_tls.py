"""The hall's own certificate authority and server certificate, kept in the data home.

On first run `adjudicator hall` makes a CA for this hall (tablets trust it once, from
/hall/ca.crt) and a server certificate it signs, for the hall's addresses, NAME.local, localhost
and 127.0.0.1. The CA key never leaves the data home (mode 0600). The server certificate is
made anew when it is within RENEW_DAYS of expiring, or when the addresses or the name change.
A CA that cannot be read, or a certificate that does not match its key, stops the start with a
message saying what to do: the server never starts half-configured.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from adjudicator.errors import AdjudicatorError
from adjudicator.settings import data_home

CA_DAYS = 3650
SERVER_DAYS = 365  # well under the 825 days Apple devices accept from a CA users installed
RENEW_DAYS = 30


class HallCertificateError(AdjudicatorError):
    """The hall's CA or server certificate in the data home cannot be used."""


@dataclass(frozen=True)
class HallTls:
    """The files `serve` hands to gunicorn, and what happened to the server certificate."""

    folder: Path
    ca_cert: Path
    cert: Path
    key: Path
    made: str  # "" (kept), or why it was made: "first run", "expiring", "addresses changed", ...
    ca_fingerprint: str


def tls_folder() -> Path:
    return data_home() / "hall"


def ca_cert_path() -> Path:
    return tls_folder() / "ca.crt"


def ensure(name: str, addresses: tuple[str, ...] | list[str]) -> HallTls:
    """The hall's CA and a current server certificate for `addresses` and NAME.local."""
    folder = tls_folder()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    ca_key, ca_cert = _load_or_make_ca(folder, name)
    wanted = _wanted_names(name, addresses)
    cert_path, key_path = folder / "server.crt", folder / "server.key"
    why = _why_renew(cert_path, key_path, ca_cert, wanted)
    if why:
        _make_server(cert_path, key_path, ca_key, ca_cert, name, wanted)
    return HallTls(folder, folder / "ca.crt", cert_path, key_path, why, fingerprint(ca_cert))


def fingerprint(cert) -> str:
    """SHA-256 of a certificate, as browsers show it (AB:CD:...)."""
    from cryptography.hazmat.primitives.serialization import Encoding

    digest = hashlib.sha256(cert.public_bytes(Encoding.DER)).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def read_ca_fingerprint() -> str | None:
    """The fingerprint of the hall's CA certificate, or None if there is none (or unreadable)."""
    from cryptography import x509

    try:
        return fingerprint(x509.load_pem_x509_certificate(ca_cert_path().read_bytes()))
    except (OSError, ValueError):
        return None


# ---------- the CA ----------


def _load_or_make_ca(folder: Path, name: str):
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    cert_path, key_path = folder / "ca.crt", folder / "ca.key"
    if not cert_path.exists() and not key_path.exists():
        return _make_ca(cert_path, key_path, name)
    fix = (
        f"Restore {cert_path.name} and {key_path.name} in {folder} from a backup, or delete both "
        "to make a new CA (every tablet must then trust the new one)."
    )
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a PEM file"
        raise HallCertificateError(
            f"The hall's certificate authority cannot be read ({reason}). {fix}"
        ) from None
    if not _same_key(cert, key):
        raise HallCertificateError(
            f"The hall's CA certificate {cert_path} does not match its key {key_path}. {fix}"
        )
    return key, cert


def _make_ca(cert_path: Path, key_path: Path, name: str):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Challenge adjudicator"),
            x509.NameAttribute(NameOID.COMMON_NAME, f"{name} hall CA"[:64]),
        ]
    )
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    _write_key(key_path, key)
    _write_cert(cert_path, cert)
    return key, cert


# ---------- the server certificate ----------


def _wanted_names(name: str, addresses) -> tuple[frozenset[str], frozenset[str]]:
    dns = frozenset({f"{name}.local", "localhost"})
    ips = frozenset({*addresses, "127.0.0.1"})
    return dns, ips


def _why_renew(cert_path: Path, key_path: Path, ca_cert, wanted) -> str:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    if not cert_path.exists() and not key_path.exists():
        return "first run"
    fix = f"Delete {cert_path} and {key_path}: `adjudicator hall` then makes new ones."
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        raise HallCertificateError(f"The hall's server certificate cannot be read. {fix}") from None
    if not _same_key(cert, key):
        raise HallCertificateError(
            f"The hall's server certificate {cert_path} does not match its key {key_path}. {fix}"
        )
    if cert.issuer != ca_cert.subject or not _signed_by(cert, ca_cert):
        return "the hall's CA changed"
    if cert.not_valid_after_utc - _now() < dt.timedelta(days=RENEW_DAYS):
        return "it was about to expire"
    if _names_of(cert) != wanted:
        return "the addresses or the name changed"
    return ""


def _make_server(cert_path: Path, key_path: Path, ca_key, ca_cert, name: str, wanted) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    dns, ips = wanted
    key = ec.generate_private_key(ec.SECP256R1())
    now = _now()
    alt_names = [x509.DNSName(d) for d in sorted(dns)] + [
        x509.IPAddress(ipaddress.ip_address(a)) for a in sorted(ips)
    ]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name}.local"[:64])]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=SERVER_DAYS))
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_cert.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    _write_key(key_path, key)
    _write_cert(cert_path, cert)


def _names_of(cert) -> tuple[frozenset[str], frozenset[str]]:
    from cryptography import x509

    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return frozenset(), frozenset()
    return (
        frozenset(san.get_values_for_type(x509.DNSName)),
        frozenset(str(a) for a in san.get_values_for_type(x509.IPAddress)),
    )


def _same_key(cert, key) -> bool:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    def raw(public) -> bytes:
        return public.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)

    return raw(cert.public_key()) == raw(key.public_key())


def _signed_by(cert, ca_cert) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        cert.verify_directly_issued_by(ca_cert)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def _write_key(path: Path, key) -> None:
    from cryptography.hazmat.primitives import serialization

    data = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def _write_cert(path: Path, cert) -> None:
    from cryptography.hazmat.primitives.serialization import Encoding

    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(cert.public_bytes(Encoding.PEM))
    os.replace(tmp, path)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
