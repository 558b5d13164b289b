"""The hall's own certificate authority and server certificate, kept in the data home.

On first run `adjudicator hall` makes a CA for this hall (tablets trust it once, from
/hall/ca.crt) and a server certificate it signs, for the hall's addresses, NAME.local, localhost
and 127.0.0.1 (the CA itself, and what it may sign: hall_ca.py). The server certificate is made
anew when it is within RENEW_DAYS of expiring, or when the addresses or the name change.
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

from adjudicator.hall.network import hall_ca
from adjudicator.hall.network.hall_ca import (
    HallCertificateError,
    now_utc,
    same_key,
    write_cert,
    write_key,
)
from adjudicator.settings import data_home

SERVER_DAYS = 365  # well under the 825 days Apple devices accept from a CA users installed
RENEW_DAYS = 30


@dataclass(frozen=True)
class HallTls:
    """The files `serve` hands to gunicorn, and what happened to the server certificate."""

    folder: Path
    ca_cert: Path
    cert: Path
    key: Path
    made: str  # "" (kept), or why it was made: "first run", "expiring", "addresses changed", ...
    ca_fingerprint: str
    notes: tuple[str, ...] = ()  # what the director must know: a CA replaced, an address left out
    covered: tuple[str, ...] = ()  # the addresses the server certificate names (the CA allows)
    ca_made: bool = False  # the hall's CA was made now (its first start): tablets trust it


def tls_folder() -> Path:
    return data_home() / "hall"


def ca_cert_path() -> Path:
    return tls_folder() / "ca.crt"


def ensure(name: str, addresses: tuple[str, ...] | list[str], own_networks=None) -> HallTls:
    """The hall's CA and a current server certificate for `addresses` and NAME.local.

    `own_networks` (default: this machine's, from its interfaces) go into a CA made now. An
    address the CA may not sign for is left out of the server certificate, with a note."""
    folder = tls_folder()
    ca_made = not (folder / "ca.crt").exists() and not (folder / "ca.key").exists()
    ca_key, ca_cert, notes = _ca(folder, name, own_networks)
    allowed = hall_ca.ca_networks(ca_cert)
    inside = tuple(a for a in addresses if _within(a, allowed))
    outside = [a for a in addresses if a not in inside]
    if outside:
        notes.append(_outside_note(name, outside))
    wanted = _wanted_names(name, inside)
    cert_path, key_path = folder / "server.crt", folder / "server.key"
    why = _why_renew(cert_path, key_path, ca_cert, wanted)
    if why:
        _make_server(cert_path, key_path, ca_key, ca_cert, name, wanted)
    return HallTls(
        folder,
        folder / "ca.crt",
        cert_path,
        key_path,
        why,
        fingerprint(ca_cert),
        tuple(notes),
        inside,
        ca_made,
    )


def ensure_ca(name: str, own_networks=None) -> tuple[str, list[str]]:
    """The hall's CA (made if there is none, replaced if it has no name constraints): its
    fingerprint, and the notes the director must read (`hall --fingerprint`, `kit seal`)."""
    _, ca_cert, notes = _ca(tls_folder(), name, own_networks)
    return fingerprint(ca_cert), notes


def _ca(folder: Path, name: str, own_networks):
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    if own_networks is None:
        from adjudicator.hall.network import lan

        own_networks = lan.interface_networks()
    return hall_ca.load_or_make(folder, name, own_networks)


def serves_with_ca(address: str, port: int, ca_cert: Path, timeout: float = 1.5) -> bool:
    """Whether `address`:`port` answers TLS with a certificate this CA signed (another laptop
    of this hall); False when it does not, or does not answer."""
    import socket
    import ssl

    context = ssl.create_default_context(cafile=str(ca_cert))
    context.check_hostname = False  # any name: what matters is who signed it
    try:
        with socket.create_connection((address, port), timeout=timeout) as raw:
            with context.wrap_socket(raw):
                return True
    except (OSError, ValueError):  # ssl.SSLError is an OSError
        return False


def fingerprint(cert) -> str:
    """SHA-256 of a certificate, as browsers show it (AB:CD:...)."""
    from cryptography.hazmat.primitives.serialization import Encoding

    digest = hashlib.sha256(cert.public_bytes(Encoding.DER)).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


GROUP_PAIRS = 4  # a fingerprint is shown as groups of four pairs ...
LINE_GROUPS = 4  # ... four groups a line: a SHA-256 fingerprint's 32 pairs on two lines


def fingerprint_lines(fingerprint: str) -> tuple[str, ...]:
    """The fingerprint as the terminal, the sheet, the trust page and the overview all show
    it: two lines of four groups of four pairs ("AB:CD:EF:01 23:45:67:89 ..."), so a line
    compared with a line matches, and nothing ever breaks inside a group."""
    pairs = fingerprint.split(":")
    groups = [":".join(pairs[i : i + GROUP_PAIRS]) for i in range(0, len(pairs), GROUP_PAIRS)]
    return tuple(" ".join(groups[i : i + LINE_GROUPS]) for i in range(0, len(groups), LINE_GROUPS))


CA_FINGERPRINT_HEADING = "The hall's CA fingerprint (SHA-256):"


def fingerprint_block(fingerprint: str, heading: str = CA_FINGERPRINT_HEADING) -> str:
    """The fingerprint as every command prints it: a heading, then its two lines
    (fingerprint_lines), each indented by two spaces."""
    return "\n".join((heading, *(f"  {line}" for line in fingerprint_lines(fingerprint))))


def read_ca_fingerprint() -> str | None:
    """The fingerprint of the hall's CA certificate, or None if there is none (or unreadable)."""
    from cryptography import x509

    try:
        return fingerprint(x509.load_pem_x509_certificate(ca_cert_path().read_bytes()))
    except (OSError, ValueError):
        return None


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
    if not same_key(cert, key):
        raise HallCertificateError(
            f"The hall's server certificate {cert_path} does not match its key {key_path}. {fix}"
        )
    if cert.issuer != ca_cert.subject or not _signed_by(cert, ca_cert):
        return "the hall's CA changed"
    if cert.not_valid_after_utc - now_utc() < dt.timedelta(days=RENEW_DAYS):
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
    now = now_utc()
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
    write_key(key_path, key)
    write_cert(cert_path, cert)


def _outside_note(name: str, outside: list[str]) -> str:
    listed = ", ".join(outside)
    return (
        f"This laptop's address {listed} is outside the networks the hall's certificate "
        f"authority may sign for (it was made on another network): tablets can open "
        f"https://{name}.local, but not that address. To make a CA for this network, stop the "
        f"hall, delete ca.crt and ca.key in {tls_folder()}, and start it again (every tablet "
        "must then trust the new one)."
    )


def _within(address: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip.version == n.version and ip in n for n in networks)


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


def _signed_by(cert, ca_cert) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        cert.verify_directly_issued_by(ca_cert)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True
