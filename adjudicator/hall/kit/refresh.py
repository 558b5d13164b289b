"""The running hall keeps its kit current without the passphrase, and says whether the USB
stick holds a current kit.

`adjudicator kit seal` records in the data home (`hall/kit.json`) where the kit is, its id, its
public half, the hall's key id, a digest of each item as sealed (never the item), and each file
of the kit as written (its SHA-256: what the manifest lists). The hall seals what changed since
(a renewed server certificate, a lexicon a tournament starts using) to that public half, the one
in the data home, never one read from the stick, and signs it with its key; a file of the kit
replaced on the stick (an older item put back) is written again, one added is removed; and the
manifest is renewed with the journal's head (manifest.py). At each start, every
ADJUDICATOR_KIT_REFRESH_SECONDS in a background thread of one worker (a file lock), and within a
second of the first verdicts of a journal the manifest does not yet name keyed; never on a
verdict's path.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adjudicator import settings
from adjudicator.durable import open_owner_only, write_whole
from adjudicator.errors import AdjudicatorError
from adjudicator.hall.kit import contents, manifest, sealing
from adjudicator.hall.kit.kit_files import KitFolder, KitNotFound, file_sha256, read_json
from adjudicator.record.copies import mirror_identity, one_hall
from adjudicator.record.database import journal_health
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.record.journal.receipt_key import SigningKey
from adjudicator.wording import N_, Phrase
from adjudicator.words.lexicon import Manifest, vouching_proof
from adjudicator.words.store import LexiconStore

log = logging.getLogger("adjudicator.hall.kit")

FIRST_ROWS_SECONDS = 1  # how soon the manifest names a new journal's first verdicts
ITEM_TYPE = "kit-item"
LEXICONS_TYPE = "kit-lexicons"

# What the overview says of the kit (babel.cfg extracts these for the catalogues).
_NONE = N_(
    "No takeover kit on the stick: run `adjudicator kit seal DIR` (DIR: the USB stick's "
    "folder), so that a second laptop can take the hall over if this one dies."
)
_CURRENT = N_(
    "The USB stick holds a current takeover kit ({folder}): a second laptop can take the hall "
    "over with `adjudicator kit open`."
)
_STALE = N_(
    "The takeover kit on the stick ({folder}) is not current yet ({what}): the serving hall "
    "brings it up to date by itself within a minute; nothing needs doing."
)
_AWAY = N_(
    "The takeover kit's folder {folder} is not here (is the USB stick in?): a second laptop "
    "could not take the hall over."
)
_EMPTY = N_(
    "No takeover kit on the stick at {folder}: run `adjudicator kit seal {folder}`, so that a "
    "second laptop can take the hall over if this one dies."
)
_MOVED = N_(
    "No takeover kit on the stick at {folder}, where the journal's mirror is now (the last kit "
    "was sealed at {old}): run `adjudicator kit seal {folder}`, so that a second laptop can take "
    "the hall over if this one dies."
)
_OTHER = N_(
    "The kit in {folder} is not this hall's current kit (sealed again, replaced, or the "
    "hall's key changed since): run `adjudicator kit seal {folder}` again."
)


@dataclass(frozen=True)
class KitStatus:
    """Whether the stick holds a current kit: state "current", "stale" (the hall catches up),
    "none" (never sealed), "away" (its folder is not here: the stick is out), "empty" (the
    folder is here, with no kit in it), "moved" (the journal's mirror is on another stick
    now, `folder`, than the one the kit was sealed on, `old`) or "other" (seal again)."""

    state: str
    folder: str = ""
    stale: tuple[str, ...] = field(default=())
    old: str = ""

    @property
    def current(self) -> bool:
        return self.state == "current"

    def phrase(self) -> Phrase:
        """What the overview says (translated where it is shown)."""
        text = {
            "current": _CURRENT,
            "stale": _STALE,
            "away": _AWAY,
            "empty": _EMPTY,
            "moved": _MOVED,
            "other": _OTHER,
        }
        return Phrase.of(
            text.get(self.state, _NONE),
            folder=self.folder,
            what=", ".join(self.stale),
            old=self.old,
        )

    def text(self) -> str:
        """The same in English: `journal status` and the hall's start."""
        return self.phrase().render(lambda text: text, None)


def record_path():
    return contents.home() / "hall" / "kit.json"


def read_record() -> dict[str, Any] | None:
    """The data home's record of its kit, if it has sealed or opened one."""
    found = read_json(record_path())
    if found is None or not all(isinstance(found.get(k), str) for k in ("dir", "kit", "public")):
        return None
    return found


def write_record(record: dict[str, Any]) -> None:
    write_whole(record_path(), json.dumps(record, sort_keys=True, indent=1).encode("utf-8"))


def item_aad(kit_id: str, name: str) -> bytes:
    """What an item's seal is bound to: this kit, this item."""
    return f"adjudicator kit {kit_id} item {name}".encode()


@dataclass(frozen=True)
class Wanted:
    """What the kit should hold now: each item's content, and the lexicons in use."""

    items: dict[str, bytes]
    lexicons: list[Manifest]
    root: Any = None  # the lexicon store's folder

    def digests(self) -> dict[str, str]:
        return {name: contents.digest(content) for name, content in self.items.items()}

    def lexicon_files(self) -> dict[str, str]:
        return {m.name: m.compiled_sha256 for m in self.lexicons}

    def lexicon_paths(self) -> list:
        return [self.root / m.compiled_file for m in self.lexicons]

    def proofs(self) -> dict[str, str]:
        """Each lexicon's proof (by its compiled file), where one vouches for it: the kit
        carries it, so that `kit open` reads no word (words/lexicon.py)."""
        found = {m.compiled_file: vouching_proof(m, self.root / m.compiled_file)
                 for m in self.lexicons}  # fmt: skip
        return {name: proof for name, proof in found.items() if proof is not None}


def wanted(db: Database, store: LexiconStore) -> Wanted:
    return Wanted(contents.gather(), contents.lexicons_in_use(db, store), store.root)


def write_item(
    folder: KitFolder, record: dict[str, Any], key: SigningKey, name: str, content: bytes
) -> None:
    """Seal one item to the kit's public half (the data home's copy), signed with the key;
    the record's list of files says what was written."""
    public = sealing.unb64(record["public"], "public half")
    sealed = sealing.seal_to(public, content, item_aad(record["kit"], name))
    at = _now()
    body = {"type": ITEM_TYPE, "kit": record["kit"], "name": name, "at": at, "sealed": sealed}
    path = folder.item_path(name)
    record["files"][folder.name_of(path)] = manifest.entry(folder.write(path, key.sign(body)), at)


def write_lexicons(
    folder: KitFolder, record: dict[str, Any], key: SigningKey, wanted_now: Wanted, store
) -> None:
    """Copy the lexicons in use onto the stick, and their manifests, signed; the record's list
    of files says what is there."""
    files = record["files"]
    for name in [name for name in files if name.startswith("lexicons/")]:
        del files[name]
    for found in wanted_now.lexicons:
        folder.copy_lexicon(store.root / found.compiled_file, found.compiled_file)
        path = folder.lexicon_path(found.compiled_file)
        files[folder.name_of(path)] = manifest.entry(found.compiled_sha256)
    listing = [json.loads(found.to_json()) for found in wanted_now.lexicons]
    proofs = wanted_now.proofs()
    record["proofs"] = sorted(proofs)
    at = _now()
    body = {
        "type": LEXICONS_TYPE,
        "kit": record["kit"],
        "at": at,
        "lexicons": listing,
        "proofs": proofs,  # signed with the list: as trusted as the files they name
    }
    path = folder.listing_path
    files[folder.name_of(path)] = manifest.entry(folder.write(path, key.sign(body)), at)
    folder.remove_others("lexicons", {m.compiled_file for m in wanted_now.lexicons})


def _behind(folder: KitFolder, record: dict[str, Any], wanted_now: Wanted) -> list[str]:
    """What the stick lacks of what the kit should hold now: by the data home's digests, and
    whether each file on the stick is still the one the hall wrote (not replaced or gone)."""
    kept = record.get("items") or {}
    files = record.get("files") or {}
    behind = [
        name
        for name, digest in wanted_now.digests().items()
        if kept.get(name) != digest or not _as_written(folder, folder.item_path(name), files)
    ]
    lexicons = wanted_now.lexicon_files()
    if (
        record.get("lexicons") != lexicons
        or record.get("proofs") != sorted(wanted_now.proofs())  # a proof made since
        or not _as_written(folder, folder.listing_path, files)
        or not all(_same_size(folder, store_file) for store_file in wanted_now.lexicon_paths())
    ):
        behind.append("lexicons")
    return behind


def _as_written(folder: KitFolder, path, files: dict[str, Any]) -> bool:
    """Whether a JSON file of the kit on the stick is the one the hall last wrote there."""
    listed = files.get(folder.name_of(path)) or {}
    return listed.get("sha256") is not None and file_sha256(path) == listed["sha256"]


def _same_size(folder: KitFolder, store_file) -> bool:
    """A lexicon on the stick, by its size (its hash is checked by `kit open`)."""
    try:
        return folder.lexicon_path(store_file.name).stat().st_size == store_file.stat().st_size
    except OSError:
        return False


def _extra(folder: KitFolder, record: dict[str, Any]) -> list[str]:
    """Files in the kit's folder the hall did not write (added on the stick)."""
    listed = set(record.get("files") or {}) | {
        folder.name_of(folder.header_path),
        folder.name_of(folder.manifest_path),
    }
    return [name for name in folder.files() if name not in listed]


def _manifest_stale(folder: KitFolder, record: dict[str, Any]) -> bool:
    return file_sha256(folder.manifest_path) != record.get("manifest")


def _usable(record: dict[str, Any] | None, key_id: str | None) -> tuple[KitFolder, str] | None:
    """The kit's folder and its state ("" when it is this hall's kit to write to), or None
    when no kit was sealed or opened here."""
    if record is None:
        return None
    folder = KitFolder(record["dir"])
    if _mirror_moved(record) is not None:
        return folder, "moved"  # a kit beside a copy that is no longer the journal's mirror
    try:
        header = folder.header()
    except KitNotFound:
        return folder, "empty" if folder.dir.is_dir() else "away"
    except sealing.KitError:
        return folder, "other"
    if (
        header.get("kit") != record["kit"]
        or file_sha256(folder.header_path) != record.get("header")  # replaced: another seal
        or header.get("public") != record["public"]  # swapped on the stick: never sealed to
        or (key_id is not None and record.get("key") != key_id)
    ):
        return folder, "other"
    return folder, ""


def _mirror_moved(record: dict[str, Any]) -> str | None:
    """The folder of the journal's mirror when it is not the copy the kit was sealed beside
    (the mirror moved to a new stick since): the kit is to be sealed there. None otherwise, or
    when the kit was sealed with no mirror beside it, or no mirror is set."""
    configured = settings.get("journal_mirror").strip()
    beside = record.get("mirror")
    if not configured or not isinstance(beside, str) or not beside:
        return None
    if mirror_identity.same_place(str(Path(record["dir"]) / beside), configured):
        return None
    return str(Path(configured).expanduser().parent)


def status(db: Database, store: LexiconStore, key_id: str | None = None) -> KitStatus:
    """Whether the stick holds a current kit (reads only)."""
    record = read_record()
    found = _usable(record, key_id)
    if record is None or found is None:
        return KitStatus("none")
    folder, state = found
    if state == "moved":
        return KitStatus(state, str(_mirror_moved(record)), old=str(folder.dir))
    if state:
        return KitStatus(state, str(folder.dir))
    behind = _behind(folder, record, wanted(db, store))
    if _extra(folder, record):
        behind.append("files added on the stick")
    if _manifest_stale(folder, record):
        behind.append("its manifest")
    return KitStatus("stale" if behind else "current", str(folder.dir), tuple(behind))


def to_show(db: Database, store: LexiconStore, key_id: str | None = None) -> KitStatus | None:
    """The kit's status where there is a stick to speak of (a mirror set, or a kit sealed);
    None otherwise, or when the journal cannot be read now (its own status says why)."""
    try:
        found = status(db, store, key_id)
    except (OSError, AdjudicatorError):
        return None
    mirrored = bool(settings.get("journal_mirror").strip())
    return found if found.state != "none" or mirrored else None


def bring_up_to_date(db: Database, store: LexiconStore, key: SigningKey) -> list[str]:
    """Seal to the kit what changed since it was last written (or was replaced on the stick),
    remove what was added there, and renew the manifest; what was sealed. Nothing by a laptop
    that does not judge now (another took the hall over, or the stick it is mirrored to is not
    the one set): it writes nothing to the stick."""
    record = read_record()
    if record is not None and not one_hall.may_write_stick(db):
        return []
    found = _usable(record, key.id)
    if record is None or found is None or found[1]:
        return []
    folder = found[0]
    record = {**record, "files": dict(record.get("files") or {})}
    wanted_now = wanted(db, store)
    behind = _behind(folder, record, wanted_now)
    for name in behind:
        if name in wanted_now.items:
            write_item(folder, record, key, name, wanted_now.items[name])
    if "lexicons" in behind:
        write_lexicons(folder, record, key, wanted_now, store)
    for name in _extra(folder, record):
        (folder.root / name).unlink(missing_ok=True)
    renew(folder, record, key, db, wanted_now)
    if behind:
        log.info("the takeover kit on the stick was brought up to date: %s", ", ".join(behind))
    return behind


def renew(
    folder: KitFolder, record: dict[str, Any], key: SigningKey, db: Database, wanted_now: Wanted
) -> None:
    """Write the kit's manifest (the files as written, the journal's head now) and the data
    home's record of the kit."""
    head = manifest.head_of(db, key.public)
    record.update(items=wanted_now.digests(), lexicons=wanted_now.lexicon_files())
    record["journal"] = head.to_json() if head is not None else None
    record["manifest"] = manifest.write(folder, key, record, head)
    write_record(record)


class Watch:
    """The background refresh of one serving process (a daemon thread; one process at a time
    does it, by a lock file in the data home)."""

    def __init__(self, hall):
        self.hall = hall
        self.seconds = settings.get_int("kit_refresh_seconds", 0)
        self._started = 0
        self._keyed: str | None = None  # the journal the manifest names keyed (known)
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        if self.seconds <= 0 or self._started == os.getpid():
            return
        self._started = os.getpid()
        self.thread = threading.Thread(target=self._run, name="kit-refresh", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        serving = contents.home()
        last = time.monotonic()
        while True:
            time.sleep(min(self.seconds, FIRST_ROWS_SECONDS))
            if contents.home() != serving:
                return  # this process serves another data home now (a test's): not its kit
            if time.monotonic() - last < self.seconds and not self.first_rows():
                continue
            last = time.monotonic()
            try:
                self.run_once()
            except Exception:  # noqa: BLE001 - the thread must outlive any one failure
                log.exception("the takeover kit could not be brought up to date")

    def first_rows(self) -> bool:
        """Whether the journal holds rows while the kit's manifest names it not yet keyed (its
        first verdicts): then the manifest is renewed at once, not at the next refresh. Asked
        each second only until the manifest names the journal keyed."""
        db = self.hall.db
        journal_id = journal_health.journal_id(db)
        if journal_id is None or self._keyed == journal_id:
            return False
        record = read_record()
        if record is None:
            return False
        head = record.get("journal") or {}
        if head.get("journal") == journal_id and head.get("keyed_from"):
            self._keyed = journal_id
            return False
        return journal.newest_id(db) > 0

    def run_once(self) -> list[str]:
        """Bring the kit up to date now, unless another process is writing it."""
        if read_record() is None:
            return []
        with writing(wait=False) as mine:
            if not mine:
                return []
            return bring_up_to_date(self.hall.db, self.hall.store, self.hall.signing_key())


@contextmanager
def writing(wait: bool = True) -> Iterator[bool]:
    """Hold the data home's kit lock (`hall/kit.lock`) while the kit is written: a seal and a
    refresh never interleave (a refresh sealing to the public half a new seal replaces). Yields
    whether it was taken (always, when `wait`)."""
    path = contents.home() / "hall" / "kit.lock"
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = open_owner_only(path, os.O_RDWR)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def watch(hall) -> Watch:
    """Start the background refresh in this serving process."""
    found = Watch(hall)
    found.start()
    return found


def _now() -> str:
    """When a file of the kit is written (to the microsecond: an older one is told apart)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")
