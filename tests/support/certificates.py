"""Certificates for the hall's TLS tests, on the library's own CA and writers
(adjudicator.hall.network.hall_ca): a CA as the hall made them before name constraints, a
certificate any CA key signs for any names, PEM files read and written, and a real handshake."""

from __future__ import annotations

import datetime as dt
import ipaddress
import socket
import ssl
import threading
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from adjudicator.hall.network import hall_ca, hall_tls


def load(path: Path) -> x509.Certificate:
    """The (first) certificate of a PEM file."""
    return x509.load_pem_x509_certificate(path.read_bytes())


def load_key(path: Path):
    """The private key of a PEM file."""
    return serialization.load_pem_private_key(path.read_bytes(), None)


def write_pair(cert_path: Path, key_path: Path, cert, key, chain=()) -> None:
    """`cert` (and `chain` after it) and its key as PEM files, the key as the hall writes its
    own (mode 0600)."""
    pem = b"".join(c.public_bytes(serialization.Encoding.PEM) for c in (cert, *chain))
    cert_path.write_bytes(pem)
    hall_ca.write_key(key_path, key)


def write_unconstrained_ca(folder: Path, name: str = "club") -> str:
    """A CA as `adjudicator hall` made them before name constraints (it could sign for any
    name), with its key, in `folder`; returns its fingerprint. It is the CA the hall makes now
    (hall_ca.load_or_make) less its name constraints, named as those were ("club hall CA")."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    key, made, _ = hall_ca.load_or_make(folder, name, own_networks=[])
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Challenge adjudicator"),
            x509.NameAttribute(NameOID.COMMON_NAME, f"{name} hall CA"),
        ]
    )
    unconstrained = [e for e in made.extensions if not isinstance(e.value, x509.NameConstraints)]
    old = x509.CertificateBuilder(
        issuer_name=subject,
        subject_name=subject,
        public_key=key.public_key(),
        serial_number=x509.random_serial_number(),
        not_valid_before=made.not_valid_before_utc,
        not_valid_after=made.not_valid_after_utc,
        extensions=unconstrained,
    ).sign(key, hashes.SHA256())
    assert not hall_ca.is_constrained(old)
    hall_ca.write_cert(folder / "ca.crt", old)
    return hall_tls.fingerprint(old)


def issue(issuer: x509.Certificate, issuer_key, names, ca: bool = False):
    """A certificate for `names` (DNS names and IP addresses) and its key, signed with
    `issuer_key`: what someone holding the hall's CA key could make (with `ca`, a CA below it)."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    alt = [
        x509.IPAddress(ipaddress.ip_address(n)) if n[0].isdigit() else x509.DNSName(n)
        for n in names
    ]
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
        .issuer_name(issuer.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.public_key()),
            critical=False,
        )
    )
    if ca:
        builder = builder.add_extension(
            x509.BasicConstraints(ca=True, path_length=None), critical=True
        ).add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        builder = builder.add_extension(
            x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False
        )
    else:
        builder = builder.add_extension(
            x509.BasicConstraints(ca=False, path_length=None), critical=True
        ).add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256()), key


def tls_handshake(cafile: Path, certfile: Path, keyfile: Path, host: str) -> None:
    """A real TLS handshake (OpenSSL, through Python's ssl) over a socket pair: a server with
    `certfile` (and any chain after it), a client trusting only `cafile` and checking `host`.
    Raises what the client raises (ssl.SSLCertVerificationError for a refused certificate)."""
    server_side, client_side = socket.socketpair()
    serving = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    serving.load_cert_chain(certfile, keyfile)
    client = ssl.create_default_context(cafile=str(cafile))

    def serve():
        try:
            with serving.wrap_socket(server_side, server_side=True) as s:
                s.recv(1)
        except (ssl.SSLError, OSError):
            pass

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        with client.wrap_socket(client_side, server_hostname=host) as c:
            c.sendall(b"x")
    finally:
        client_side.close()
        thread.join(5)
