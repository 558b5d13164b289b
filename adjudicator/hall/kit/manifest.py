"""The kit's manifest: the kit is one whole, signed by the hall's key.

`hall-kit/manifest.json` lists every other file of the kit with its SHA-256 (and, for the
signed ones, when the hall wrote them), the header's hash, the journal the kit goes with (its
id, where its keyed rows begin, and its newest row: number, hash and time), the mirror's file
name, and when the kit was sealed and the manifest last renewed. `kit seal` writes it last; the
running hall renews it at every refresh (refresh.py), and at once after the first verdicts of a
new journal.

`kit open` reads it before the passphrase: a file missing, added, replaced or older than the
manifest lists is refused, by name (`problems`); the journal on the stick must then be the one
it names, reach its head with the same row there, and be keyed from where it says
(stick_copy.py). The files are listed as the hall wrote them (the data home's record), never as
found on the stick.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator.hall.kit import sealing
from adjudicator.hall.kit.kit_files import KitFolder, file_sha256, read_json
from adjudicator.record.database import journal_health
from adjudicator.record.database.db import Database
from adjudicator.record.journal import row_keys
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok

TYPE = "kit-manifest"
SOURCE = "the kit's signed manifest"  # what proves the head row, to the fork check


@dataclass(frozen=True)
class Head:
    """The journal the kit goes with: its id, where its keyed rows begin, its newest row."""

    journal: str
    row: int = 0
    row_hash: str = ""
    at: str = ""  # when that row was recorded
    keyed_from: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "journal": self.journal,
            "row": self.row,
            "row_hash": self.row_hash,
            "at": self.at,
            "keyed_from": self.keyed_from,
        }

    @classmethod
    def from_json(cls, value: Any) -> Head | None:
        """The head a manifest names; None when it names none, ValueError when unreadable."""
        if value is None:
            return None
        if not isinstance(value, dict) or not isinstance(value.get("journal"), str):
            raise ValueError("no journal")
        row, keyed = value.get("row"), value.get("keyed_from")
        if isinstance(row, bool) or not isinstance(row, int) or row < 0:
            raise ValueError("no row")
        if keyed is not None and (isinstance(keyed, bool) or not isinstance(keyed, int)):
            raise ValueError("no keyed row")
        return cls(value["journal"], row, str(value.get("row_hash", "")), str(value.get("at", "")),
                   keyed)  # fmt: skip


@dataclass(frozen=True)
class Manifest:
    """A manifest that verified: what the kit holds, and of which journal."""

    kit: str
    at: str  # when it was written (sealed, or renewed by the running hall)
    files: dict[str, dict[str, str]]  # name in the kit -> {"sha256": ..., "at": ...}
    head: Head | None
    mirror: str | None

    def describe(self) -> str:
        """'the kit as of 2026-11-28 14:02 UTC, the journal at row 812'."""
        journal = f"the journal at row {self.head.row:,}" if self.head else "no journal named"
        return f"the kit as of {when(self.at)}, {journal}"


def when(stamp: str) -> str:
    """An ISO time as the director reads it: '2026-11-28 14:02 UTC'."""
    return f"{stamp[:16].replace('T', ' ')} UTC" if stamp else "an unknown time"


def head_of(db: Database, public: Ed25519PublicKey) -> Head | None:
    """The journal's head now: its id, newest row, and where keying began (by the key's own
    statement, checked with `public`)."""
    journal_id = journal_health.journal_id(db)
    if not journal_id:
        return None
    with db.transaction() as cur:
        newest = cur.execute(
            "SELECT id, row_hash, recorded_at FROM adjudications ORDER BY id DESC LIMIT 1"
        ).one()
        stated = cur.execute(row_keys.READ_SQL).one()
    keyed = row_keys.keyed_from(row_keys.parse(stated["keyed"]) if stated else None, public,
                                journal_id)  # fmt: skip
    if newest is None:
        return Head(journal_id, keyed_from=keyed)
    return Head(journal_id, int(newest["id"]), newest["row_hash"], newest["recorded_at"], keyed)


def write(
    folder: KitFolder,
    key: SigningKey,
    record: dict[str, Any],
    head: Head | None,
) -> str:
    """Write the manifest of the kit the data home's `record` describes (the files as this
    hall wrote them) and of the journal at `head`; the SHA-256 written."""
    body = {
        "type": TYPE,
        "kit": record["kit"],
        "header": record["header"],
        "files": record["files"],
        "journal": head.to_json() if head is not None else None,
        "mirror": record.get("mirror"),
        "sealed_at": record.get("sealed_at", ""),
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    return folder.write(folder.manifest_path, key.sign(body))


def read(folder: KitFolder, public: Ed25519PublicKey, kit_id: str, header_sha: str) -> Manifest:
    """The kit's manifest, if the hall signed it for this kit and this header; KitDamaged
    when there is none, KitAltered when it is not the hall's."""
    if not folder.manifest_path.exists():
        raise sealing.KitDamaged(
            f"The kit in {folder.dir} has no manifest ({folder.name_of(folder.manifest_path)}): "
            "it cannot be proven whole (deleted from the stick?). Nothing was written. Use a "
            "whole copy of the stick, or seal the kit again on the hall's laptop."
        )
    body = read_json(folder.manifest_path)
    if body is None or body.get("type") != TYPE or not signature_ok(body, public):
        raise sealing.altered("its manifest is not one the hall signed")
    if body.get("kit") != kit_id or body.get("header") != header_sha:
        raise sealing.altered("its manifest is another kit's, or its header was replaced")
    files = body.get("files")
    try:
        assert isinstance(files, dict) and all(
            isinstance(entry, dict) and isinstance(entry.get("sha256"), str)
            for entry in files.values()
        )
        head = Head.from_json(body.get("journal"))
    except (AssertionError, ValueError):
        raise sealing.altered("its manifest is not readable") from None
    mirror = body.get("mirror")
    return Manifest(kit_id, str(body.get("at", "")), files, head,
                    mirror if isinstance(mirror, str) else None)  # fmt: skip


def problems(folder: KitFolder, manifest: Manifest) -> list[str]:
    """What in the kit's folder is not as its manifest lists: each file missing, replaced,
    older or newer than listed, and each file added (none: the kit is whole)."""
    found = []
    for name, entry in sorted(manifest.files.items()):
        path = folder.root / name
        if not path.exists():
            found.append(f"{name} is missing")
            continue
        if file_sha256(path) == entry["sha256"]:
            continue
        on_stick = read_json(path) if name.endswith(".json") else None
        written = str((on_stick or {}).get("at", ""))
        listed = str(entry.get("at", ""))
        if written and listed and written < listed:
            found.append(
                f"{name} is older than the manifest lists (written {when(written)}; the "
                f"manifest's is of {when(listed)})"
            )
        elif written and listed and written > listed:
            found.append(
                f"{name} is newer than the manifest lists (written {when(written)}; the "
                f"manifest's is of {when(listed)}): the manifest was replaced by an older one"
            )
        else:
            found.append(f"{name} was replaced")
    listed = set(manifest.files) | {
        folder.name_of(folder.header_path),
        folder.name_of(folder.manifest_path),
    }
    found += [f"{name} was added" for name in folder.files() if name not in listed]
    return found


def refuse_unless_whole(folder: KitFolder, manifest: Manifest) -> None:
    """KitNotWhole naming every file that is not as the manifest lists."""
    wrong = problems(folder, manifest)
    if wrong:
        raise KitNotWhole(
            f"The kit on the stick is not the whole its manifest lists ({manifest.describe()}): "
            f"{'; '.join(wrong)}. Nothing was written. Use a whole copy of the stick, or seal "
            "the kit again on the hall's laptop."
        )


class KitNotWhole(sealing.KitDamaged):
    """A file of the kit is missing, added, replaced or older than its manifest lists."""


def entry(sha256: str, at: str = "") -> dict[str, str]:
    """How the manifest (and the data home's record) lists one file."""
    return {"sha256": sha256, "at": at} if at else {"sha256": sha256}
