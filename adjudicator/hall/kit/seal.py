"""`adjudicator kit seal DIR`: seal the hall's kit onto the USB stick, under the director's
passphrase.

A new kit each time: a new id and key pair, the receipt key and the kit's private half in the
core sealed under the passphrase, every item sealed to the new public half and signed, the
lexicons in use copied beside them, the header signed with the hall's key (kit_header.py); the
manifest is written last (manifest.py), so a kit half written is no kit. The data home then
records where the kit is, so the running hall keeps it current.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from adjudicator.hall.kit import kit_header, refresh, sealing
from adjudicator.hall.kit.kit_files import FORMAT, KitFolder
from adjudicator.hall.network import hall_process, hall_tls, hall_url
from adjudicator.hall.people import password_check, sealed_hashes, session_secret, staff
from adjudicator.record.copies import one_hall
from adjudicator.record.database.db import Database
from adjudicator.record.journal.receipt_key import SigningKey
from adjudicator.words.store import LexiconStore

MIN_PASSPHRASE = 16
# zxcvbn's score (0-4) a passphrase must reach: 4 is at least 10^10 guesses, each an Argon2id
# derivation over 256 MiB (about 0.4 s): a century of CPU time for whoever holds the stick.
MIN_SCORE = 4
ESTIMATED_CHARACTERS = 100  # zxcvbn's cost grows with the length: its first 100 are enough


class WeakPassphrase(sealing.KitError):
    """The passphrase is long enough, but easy to guess (a repeat, a padded word)."""


class MayNotSeal(sealing.KitError):
    """This laptop does not judge now (taken over, or held): it writes nothing to a stick."""


def refuse_if_not_judging(db: Database, directory: Path) -> None:
    """MayNotSeal, saying why and what lifts it, when this laptop does not judge now: a kit
    sealed by it would put on a stick a hall it does not hold (one_hall.not_judging)."""
    why = one_hall.not_judging(db)
    if why is not None:
        raise MayNotSeal(
            f"Nothing was written to {directory}: this laptop does not judge now, and a laptop "
            f"that does not judge writes nothing to a USB stick, a kit neither. {why}"
        )


@dataclass(frozen=True)
class Sealed:
    folder: Path
    kit: str
    items: tuple[str, ...]
    lexicons: tuple[str, ...]
    fingerprint: str
    mirror: str | None  # the mirror's file name beside DIR, if it is there
    notes: tuple[str, ...] = ()


def check_passphrase(passphrase: str) -> str:
    """At least MIN_PASSPHRASE characters, checked like the director's password, and hard to
    guess by a well-kept strength estimator (zxcvbn): WeakPassphrase saying why, if not."""
    from zxcvbn import zxcvbn

    staff.check_password(passphrase, MIN_PASSPHRASE, "passphrase")
    estimate = zxcvbn(passphrase[:ESTIMATED_CHARACTERS])
    if estimate["score"] >= MIN_SCORE:
        return passphrase
    feedback = estimate.get("feedback") or {}
    why = [feedback.get("warning") or ""] + list(feedback.get("suggestions") or [])
    reasons = " ".join(text.strip() for text in why if text and text.strip())
    raise WeakPassphrase(
        "The passphrase is too easy to guess for a kit that whoever holds the stick may try "
        f"offline: {reasons or 'it follows a common pattern.'} Use four or five words chosen "
        "at random (not a phrase or a quotation), or a longer mix."
    )


def core_aad(kit_id: str, public: bytes) -> bytes:
    """What the core's seal is bound to: this kit and its public half."""
    return f"adjudicator kit {kit_id} core ".encode() + public


def seal_kit(
    directory: Path,
    passphrase: str,
    db: Database,
    store: LexiconStore,
    key: SigningKey,
    mirror: str | None,
) -> Sealed:
    """Seal a new kit into `directory` (see the module's docstring); refused by a laptop that
    does not judge now (MayNotSeal), before anything is written."""
    refuse_if_not_judging(db, directory)
    check_passphrase(passphrase)
    sealed_hashes.seal_clear(db, key)  # an earlier version's hashes: none in clear on the stick
    folder = KitFolder(directory)
    if not folder.dir.is_dir():
        raise sealing.KitError(
            f"{folder.dir} is not a folder: give the USB stick's folder (where the mirror is)."
        )
    recorded = hall_url.recorded()
    name = recorded.name if recorded else hall_process.DEFAULT_NAME
    fingerprint, notes = hall_tls.ensure_ca(name)  # a kit without the CA could not keep tablets
    session_secret.load_or_create()  # nor without the secret that signs their pairings
    kit_id = secrets.token_hex(16)
    private, public = sealing.new_key_pair()
    kdf = sealing.new_kdf()
    derived = password_check.run(lambda: sealing.derive(passphrase, kdf))  # at nice 19
    core = json.dumps(
        {"kit": kit_id, "private": sealing.b64(private), "receipt_key": _pem(key)}
    ).encode("utf-8")
    beside = _mirror_beside(folder, mirror)
    sealed_at = datetime.now(UTC).isoformat(timespec="seconds")
    record: dict = {
        "dir": str(folder.dir.resolve()),
        "kit": kit_id,
        "public": sealing.b64(public),
        "key": key.id,
        "items": {},
        "lexicons": {},
        "files": {},
        "sealed_at": sealed_at,
        "mirror": beside,
    }
    with refresh.writing():  # a serving hall's refresh waits, then writes to this kit
        wanted = refresh.wanted(db, store)
        for item, content in wanted.items.items():
            refresh.write_item(folder, record, key, item, content)
        refresh.write_lexicons(folder, record, key, wanted, store)
        folder.remove_others("items", {f"{item}.json" for item in wanted.items})
        header = kit_header.sign(
            key,
            {
                "format": FORMAT,
                "kit": kit_id,
                "public": sealing.b64(public),
                "kdf": kdf,
                "core": sealing.seal(derived, core, core_aad(kit_id, public)),
                "sealed_at": sealed_at,
                "mirror": beside,
            },
        )
        record["header"] = folder.write(folder.header_path, header)
        for name in _others(folder, record):  # an earlier kit's, or anything put there
            (folder.root / name).unlink(missing_ok=True)
        refresh.renew(folder, record, key, db, wanted)  # the manifest, last: the kit is whole
    return Sealed(
        folder.root,
        kit_id,
        tuple(wanted.items),
        tuple(m.name for m in wanted.lexicons),
        fingerprint,
        beside,
        tuple(notes) + tuple(_warnings(folder, mirror, beside)),
    )


def _others(folder: KitFolder, record: dict) -> list[str]:
    """Files in the kit's folder that this kit does not hold."""
    listed = set(record["files"]) | {folder.name_of(folder.header_path)}
    return [name for name in folder.files() if name not in listed]


def _mirror_beside(folder: KitFolder, mirror: str | None) -> str | None:
    """The mirror's file name if it lies in DIR: `kit open` finds it there on another laptop."""
    if not mirror:
        return None
    path = Path(mirror).expanduser().resolve()
    return path.name if path.parent == folder.dir.resolve() else None


def _warnings(folder: KitFolder, mirror: str | None, beside: str | None) -> list[str]:
    if not mirror:
        return [
            "No mirror is set (ADJUDICATOR_JOURNAL_MIRROR): the stick holds no copy of the "
            "journal, so a second laptop could not take the hall over with this kit alone. Put "
            "the mirror on the same stick."
        ]
    if beside is None:
        return [
            f"The journal's mirror {mirror} is not in {folder.dir}: on the second laptop, set "
            "ADJUDICATOR_JOURNAL_MIRROR to it before `adjudicator kit open`."
        ]
    return []


def _pem(key: SigningKey) -> str:
    from cryptography.hazmat.primitives import serialization

    return key.private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")
