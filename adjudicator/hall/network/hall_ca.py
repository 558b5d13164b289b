"""The hall's own certificate authority, in the data home: made once, then kept.

Tablets trust it once, from /hall/ca.crt; its key never leaves the data home (mode 0600). It
signs only names a hall uses: its critical name constraints permit DNS names under .local and
localhost (so another --name needs no new CA), and addresses in the loopback, private and
link-local ranges and in the networks this machine was on when the CA was made; its basic
constraints allow no CA below it (path length 0). A tablet that trusts it trusts nothing else it
might sign (a bank's site, a mail provider's). A CA made before these constraints is replaced at
the next start, with a note saying every tablet must trust the new one. A CA that cannot be read
or does not match its key stops the start with a message saying what to do.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from pathlib import Path

from adjudicator.errors import AdjudicatorError

CA_DAYS = 3650

# What the CA may sign (RFC 5280 name constraints): DNS names that are these or end in them ...
PERMITTED_DNS = ("local", "localhost")
# ... and addresses in these ranges, and in the networks of this machine when it made the CA.
PERMITTED_RANGES = (
    "127.0.0.0/8",  # loopback
    "::1/128",
    "10.0.0.0/8",  # private
    "172.16.0.0/12",
    "192.168.0.0/16",
    "fc00::/7",
    "169.254.0.0/16",  # link-local
    "fe80::/10",
)

# An interface's network wider than this is narrowed to NARROWED around its address.
WIDEST_OWN = {4: 16, 6: 48}
NARROWED = {4: 24, 6: 64}


class HallCertificateError(AdjudicatorError):
    """The hall's CA or server certificate in the data home cannot be used."""


def permitted_networks(own_networks) -> list:
    """The address ranges a CA made now may sign for: PERMITTED_RANGES and `own_networks`
    (interfaces, such as 192.0.2.2/24, or networks). One wider than WIDEST_OWN, such as a VPN's
    0.0.0.0/0, is narrowed to its address's NARROWED: an interface must not widen the CA to
    every address."""
    every = [ipaddress.ip_network(r) for r in PERMITTED_RANGES]
    for own in own_networks:
        interface = ipaddress.ip_interface(own)
        network = interface.network
        if network.prefixlen < WIDEST_OWN[network.version]:
            narrowed = f"{interface.ip}/{NARROWED[network.version]}"
            network = ipaddress.ip_network(narrowed, strict=False)
        every.append(network)
    found = []
    for version in (4, 6):
        found += ipaddress.collapse_addresses(n for n in every if n.version == version)
    return found


def ca_networks(ca_cert) -> list:
    """The address ranges `ca_cert`'s name constraints permit ([] when it has none)."""
    from cryptography import x509

    try:
        constraints = ca_cert.extensions.get_extension_for_class(x509.NameConstraints).value
    except x509.ExtensionNotFound:
        return []
    return [
        name.value
        for name in constraints.permitted_subtrees or ()
        if isinstance(name, x509.IPAddress)
    ]


def is_constrained(ca_cert) -> bool:
    """Whether a CA signs only a hall's names: critical name constraints that permit some
    names, and critical basic constraints allowing no CA below it."""
    from cryptography import x509

    try:
        names = ca_cert.extensions.get_extension_for_class(x509.NameConstraints)
        basic = ca_cert.extensions.get_extension_for_class(x509.BasicConstraints)
    except x509.ExtensionNotFound:
        return False
    return bool(
        names.critical
        and names.value.permitted_subtrees
        and basic.critical
        and basic.value.ca
        and basic.value.path_length == 0
    )


def load_or_make(folder: Path, name: str, own_networks) -> tuple[object, object, list[str]]:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    cert_path, key_path = folder / "ca.crt", folder / "ca.key"
    """The CA's key and certificate from `folder` (made on first run, or replaced when it has
    no name constraints), and the notes the director must read."""
    if not cert_path.exists() and not key_path.exists():
        return (*_make_ca(cert_path, key_path, name, own_networks), [])
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
    if not same_key(cert, key):
        raise HallCertificateError(
            f"The hall's CA certificate {cert_path} does not match its key {key_path}. {fix}"
        )
    if not is_constrained(cert):
        old = _common_name(cert)
        key, cert = _make_ca(cert_path, key_path, name, own_networks)
        return key, cert, [_replaced_note(old)]
    return key, cert, []


def _replaced_note(old_name: str) -> str:
    return (
        'THE HALL HAS A NEW CERTIFICATE AUTHORITY. The old one ("' + old_name + '") was made '
        "before the hall's CA carried name constraints: a tablet that trusted it would also "
        "trust a certificate it signed for any website at all. The new one signs only the "
        "hall's own names (.local, localhost, the hall's networks). Every tablet and laptop "
        "must trust the new one once, at /hall/trust, and should remove the old one; print new "
        "pairing sheets: they show the new fingerprint (below)."
    )


def _common_name(cert) -> str:
    from cryptography.x509.oid import NameOID

    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else "the hall's CA"


def _make_ca(cert_path: Path, key_path: Path, name: str, own_networks):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    now = now_utc()
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Challenge adjudicator"),
            # dated, so a tablet's settings tell a replaced CA from the one in use
            x509.NameAttribute(NameOID.COMMON_NAME, f"{name[:45]} hall CA {now:%Y-%m-%d}"),
        ]
    )
    permitted = [x509.DNSName(d) for d in PERMITTED_DNS]
    permitted += [x509.IPAddress(n) for n in permitted_networks(own_networks)]
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.NameConstraints(permitted, None), critical=True)
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
    write_key(key_path, key)
    write_cert(cert_path, cert)
    return key, cert


def same_key(cert, key) -> bool:
    """Whether `key` is the private key of `cert`."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    def raw(public) -> bytes:
        return public.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)

    return raw(cert.public_key()) == raw(key.public_key())


def write_key(path: Path, key) -> None:
    """A private key, PEM, mode 0600, synced, then renamed into place."""
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


def write_cert(path: Path, cert) -> None:
    """A certificate, PEM, written whole then renamed into place."""
    from cryptography.hazmat.primitives.serialization import Encoding

    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(cert.public_bytes(Encoding.PEM))
    os.replace(tmp, path)


def now_utc() -> dt.datetime:
    """The time now, in UTC."""
    return dt.datetime.now(dt.UTC)
