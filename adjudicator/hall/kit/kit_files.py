"""The kit's files on the USB stick, in DIR/hall-kit/.

- `kit.json`: the header: the kit's id, its public half, the Argon2id cost and salt, the
  sealed core, the mirror's file name beside DIR if it was there when sealed, and the hall's
  public key, which signs the header (kit_header.py).
- `manifest.json`: every other file of the kit with its hash, and the journal's head, signed
  with the hall's key (manifest.py): the kit is one whole.
- `items/NAME.json`: each item sealed to the kit's public half and signed with the hall's key.
- `lexicons/`: the compiled lexicons the tournaments use (not secret), and `lexicons.json`,
  their manifests, signed with the hall's key.

Every file is written whole, synced, then renamed into place (owner-only where the file system
keeps permissions). Every file is read as a file: a FIFO, a device or a link to one is refused,
and no more than its cap is read.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from adjudicator.durable import read_regular, read_regular_chunks, write_whole
from adjudicator.hall.kit.sealing import KitDamaged, KitError

FOLDER = "hall-kit"
FORMAT = 2  # 2: a signed header and a manifest (a kit of format 1 has neither: sealed again)
MOST_JSON = 1 << 20  # a header, an item or the lexicons' list
MOST_LEXICON = 1 << 30
_PARTIAL = re.compile(r"\.[^/]+\.\d+\.partial")  # durable.write_whole's file, before its rename


class KitNotFound(KitError):
    """There is no kit in the folder given."""


class KitFolder:
    """DIR/hall-kit/ on the stick."""

    def __init__(self, folder: Path | str):
        self.dir = Path(folder).expanduser()
        self.root = self.dir / FOLDER

    @property
    def header_path(self) -> Path:
        return self.root / "kit.json"

    def item_path(self, name: str) -> Path:
        return self.root / "items" / f"{name}.json"

    @property
    def listing_path(self) -> Path:
        return self.root / "lexicons.json"

    def lexicon_path(self, file_name: str) -> Path:
        return self.root / "lexicons" / Path(file_name).name

    def exists(self) -> bool:
        return self.header_path.is_file()

    def header(self) -> dict[str, Any]:
        """The kit's header; KitNotFound when there is none, KitDamaged when unreadable."""
        if not self.root.is_dir() or not self.header_path.exists():
            raise KitNotFound(
                f"No kit in {self.dir} (no {FOLDER}/kit.json there): give the folder on the USB "
                "stick where `adjudicator kit seal` put it (usually the mirror's folder)."
            )
        found = read_json(self.header_path)
        if found is not None and found.get("format") == 1:
            raise KitDamaged(
                f"The kit in {self.dir} was sealed by an earlier version of the program, without "
                "a manifest: it cannot be proven whole. Seal it again on the hall's laptop "
                "(`adjudicator kit seal`)."
            )
        if found is None or found.get("format") != FORMAT or not isinstance(found.get("kit"), str):
            raise KitDamaged(
                f"The kit's header {self.header_path} is not readable: it was damaged."
            )
        return found

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def name_of(self, path: Path) -> str:
        """A file's name in the kit, as the manifest lists it: `items/ca.json`."""
        return path.relative_to(self.root).as_posix()

    def read(self, path: Path) -> dict[str, Any] | None:
        return read_json(path)

    def write(self, path: Path, body: dict[str, Any]) -> str:
        """Write a JSON file of the kit; the SHA-256 of what was written."""
        self.root.mkdir(mode=0o700, exist_ok=True)
        data = json.dumps(body, sort_keys=True, indent=1).encode("utf-8")
        write_whole(path, data)
        return hashlib.sha256(data).hexdigest()

    def files(self) -> list[str]:
        """Every file in the kit's folder, by its name in the kit (a file half written by
        `write_whole` and left by a crash aside: it is never read)."""
        found = []
        for path in sorted(self.root.rglob("*")):
            if path.is_dir() or _PARTIAL.fullmatch(path.name):
                continue
            found.append(self.name_of(path))
        return found

    def copy_lexicon(self, source: Path, file_name: str) -> None:
        """Copy a compiled lexicon onto the stick (skipped when the same file is there)."""
        target = self.lexicon_path(file_name)
        if target.is_file() and target.stat().st_size == source.stat().st_size:
            return  # content-addressed names: the same name and size is the same file
        write_whole(target, source.read_bytes())

    def remove_others(self, folder: str, keep: set[str]) -> None:
        """Remove the files in one of the kit's folders that are not in `keep`."""
        for path in (self.root / folder).glob("*"):
            if path.name not in keep and path.is_file():
                path.unlink(missing_ok=True)


def file_sha256(path: Path, most: int = MOST_LEXICON) -> str | None:
    """The SHA-256 of a regular file of the kit (read in pieces), None when it is not one."""
    digest = hashlib.sha256()
    try:
        for chunk in read_regular_chunks(path, most):
            digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def read_json(path: Path, most: int = MOST_JSON) -> dict[str, Any] | None:
    """A JSON object from a regular file of at most `most` bytes; None otherwise."""
    try:
        raw = read_regular(path, most)
        found = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return found if isinstance(found, dict) else None
