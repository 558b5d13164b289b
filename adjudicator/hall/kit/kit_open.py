"""`adjudicator kit open DIR`: this laptop takes the hall over from the kit and the journal on
the USB stick.

In order, and nothing written until the last check has passed:
1. the header verifies with the hall's key it names, and asks for the key derivation `kit
   seal` uses (kit_header.py); the manifest is the hall's, of this kit and header, and every
   file of the kit is the one it lists: none missing, added, replaced or older (manifest.py).
   Any of these wrong: "the kit was altered" or names the file, before the passphrase is asked;
2. the passphrase (asked while step 5's walk runs) opens the kit's core (a wrong one:
   WrongPassphrase), whose key is the one the header names;
3. each sealed item opens with the kit's private half and carries the hall's signature;
4. this data home is fresh, or this hall's own (the same key, a journal only behind the
   stick's);
5. the stick's copy of the journal, copied once into a private folder (while the passphrase is
   typed and its Argon2id runs), is the one the manifest names, reaches its head, and may be
   taken over (stick_copy.verify: the one walk of its chain, of that copy).
Then: the receipt key, the CA, the certificates, the session secret and the hall's name and
ports go into this data home; this laptop's disk becomes the primary copy: the copy proven,
put in place and checked by its head; the lexicons come across, each checked against its
tournaments' pins; the signed takeover statement is kept beside both copies
(record/copies/takeover.py); the head proven is noted for the start
(record/copies/proven_copies.py); the data home records the kit, as found, so this hall keeps it
current from now on. No journal number is taken.

`--drill` (drill.py) opens a copy instead: the same checks, then the journal copied to this
laptop under a drill's own identity, and nothing written to the stick.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from adjudicator import settings
from adjudicator.durable import read_regular, write_whole
from adjudicator.errors import LexiconError
from adjudicator.hall import tournament_pins, tournaments
from adjudicator.hall.kit import (
    contents,
    drill,
    kit_header,
    manifest,
    refresh,
    sealing,
    stick_copy,
)
from adjudicator.hall.kit.kit_files import MOST_LEXICON, KitFolder, file_sha256
from adjudicator.hall.kit.seal import core_aad
from adjudicator.hall.kit.sealing import KitDamaged, KitError, WrongPassphrase
from adjudicator.hall.network import hall_tls, hall_url
from adjudicator.record.copies import markers, proven_copies, standing, takeover
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import receipt_key
from adjudicator.record.journal.receipt_key import SigningKey
from adjudicator.record.proofs import high_water
from adjudicator.words.lexicon import Manifest
from adjudicator.words.store import LexiconStore


@dataclass(frozen=True)
class Opened:
    rows: int  # the journal's newest row: the next verdict is rows + 1
    journal: str
    primary: str
    mirror: str
    name: str
    port: int
    fingerprint: str
    lexicons: tuple[str, ...]
    problems: tuple[str, ...]  # lexicons that did not come across, and why
    host: str
    as_of: str  # the manifest's time and head: "the kit as of ..., the journal at row N"
    http_port: int = 0  # the plain-HTTP port of the trust page, as the hall last served it
    drill: str = ""  # a drill: the drill journal's id (nothing written to the stick)


@dataclass(frozen=True)
class _Core:
    kit: str
    private: bytes
    key: SigningKey


def open_kit(
    directory: Path,
    ask_passphrase: Callable[[], str],
    mirror: str | None = None,
    as_drill: bool = False,
) -> Opened:
    """Take the hall over from the kit in `directory` (see the module's docstring); with
    `as_drill`, open a drill's copy of it. `ask_passphrase` is called once the kit's files have
    passed their checks and the stick's journal is being copied and walked, so that the walk
    runs while the director types it."""
    folder = KitFolder(directory)
    header = folder.header()
    public = kit_header.check(header)
    found = manifest.read(folder, public, header["kit"], file_sha256(folder.header_path) or "")
    manifest.refuse_unless_whole(folder, found)
    mirror_path = _mirror(folder, header, mirror)
    primary = _primary()
    # Beside Argon2id: the stick's journal copied into a private folder near where it goes
    # (nothing of this data home written), and that copy walked; the copy proven is the copy
    # put in place.
    with stick_copy.walking(mirror_path, primary) as chain:
        derived = sealing.derive(ask_passphrase(), header["kdf"])  # no hall serves here to slow
        core = _open_core(header, derived, public)
        items = {name: _open_item(folder, core, name) for name in contents.ITEMS}
        listing = _listing(folder, core)
        walked, taken = chain.result(), chain.taken()
        _refuse_another_hall(core.key, primary, taken, mirror_path)
        proven = stick_copy.verify(
            taken, core.key, core.key.path, found.head, walked, stick=mirror_path
        )
        # Every check has passed: from here on, this data home becomes the hall's.
        write_whole(core.key.path, _pem(core.key))
        for name, content in items.items():
            if content is not None:
                contents.restore(name, content)
        chain.put(primary)
    head = _copied(primary, proven)
    if as_drill:
        return _drill(folder, found, core, primary, head, listing)
    copies = [primary, mirror_path]
    _carry_the_mark(core.key, copies, head.journal_id)
    markers.remove_all(copies)  # the other laptop's markers name its own paths
    installed, problems = _lexicons(folder, listing, primary)
    previous = takeover.newest(copies, core.key.public)
    statement = takeover.statement(
        core.key,
        str(head.journal_id),
        head.rows,
        head.last_hash,
        str(takeover.install_id()),
        (previous["seq"] if previous else 0) + 1,
    )
    takeover.write(copies, statement)  # the journal knows its mirror already: the stick's
    proven_copies.keep(core.key, primary, head)  # the start checks it by its head
    _record_kit(folder, header, core, found, primary)
    return _opened(head, primary, mirror_path, installed, problems, statement["host"], found)


def _opened(head, primary, mirror_path, installed, problems, host, found, drill_id="") -> Opened:
    hall = hall_url.recorded()
    return Opened(
        head.rows,
        str(head.journal_id),
        primary,
        mirror_path,
        hall.name if hall else "",
        hall.port if hall else 0,
        hall_tls.read_ca_fingerprint() or "",
        installed,
        problems,
        host,
        found.describe(),
        hall.http_port if hall else 0,
        drill_id,
    )


def _copied(primary: str, proven: standing.CopyHead) -> standing.CopyHead:
    """The laptop's copy, checked by its head: the one the stick's walk proved."""
    head = standing.head(primary)
    if (head.journal_id, head.rows, head.last_hash) != (
        proven.journal_id,
        proven.rows,
        proven.last_hash,
    ):
        raise KitError(
            f"The journal copied to {primary} ({head.describe()}) is not the one proven on the "
            f"stick ({proven.describe()}): was the stick written to meanwhile? Run `adjudicator "
            "kit open` again."
        )
    return head


def _drill(folder, found, core, primary: str, head, listing) -> Opened:
    """The drill's copy: its own journal identity, its own name, nothing on the stick."""
    drill_id = drill.make(primary, core.key, head)
    installed, problems = _lexicons(folder, listing, primary)
    return _opened(head, primary, "", installed, problems, takeover.host_name(), found, drill_id)


def _mirror(folder: KitFolder, header: dict[str, Any], given: str | None) -> str:
    """The journal's copy on the stick: ADJUDICATOR_JOURNAL_MIRROR, else the one sealed beside
    the kit."""
    if given:
        return str(Path(given).expanduser())
    beside = header.get("mirror")
    if isinstance(beside, str) and beside and Path(beside).name == beside:
        return str(folder.dir / beside)
    raise KitError(
        "Set ADJUDICATOR_JOURNAL_MIRROR to the journal's copy on the USB stick (the kit was "
        "sealed without the mirror beside it)."
    )


def _open_core(header: dict[str, Any], derived: bytes, public_key) -> _Core:
    kit_id = header["kit"]
    public = sealing.unb64(header.get("public"), "public half")
    try:
        raw = sealing.unseal(derived, header.get("core"), core_aad(kit_id, public))
    except InvalidTag:
        raise WrongPassphrase(
            "Wrong passphrase: the kit did not open (nothing was written). Type the passphrase "
            "the director chose at `adjudicator kit seal`."
        ) from None
    try:
        core = json.loads(raw.decode("utf-8"))
        private = sealing.unb64(core["private"], "core")
        signing = serialization.load_pem_private_key(core["receipt_key"].encode(), password=None)
        assert core["kit"] == kit_id and isinstance(signing, Ed25519PrivateKey)
        assert sealing.public_of(private) == public
    except (ValueError, KeyError, TypeError, AssertionError, UnicodeDecodeError):
        raise KitDamaged(
            "The kit's core is not one `kit seal` wrote: the kit was damaged."
        ) from None
    key = SigningKey(signing, receipt_key.key_path(make_home=False))
    if key.public_pem() != receipt_key.public_pem(public_key):
        raise sealing.altered("its header names another key than the one sealed in its core")
    return _Core(kit_id, private, key)


def _open_item(folder: KitFolder, core: _Core, name: str) -> bytes | None:
    """An item's content if the kit holds it; KitDamaged if it is not one the hall sealed."""
    path = folder.item_path(name)
    if not path.exists():
        return None
    body = folder.read(path)
    if (
        body is None
        or body.get("type") != refresh.ITEM_TYPE
        or body.get("kit") != core.kit
        or body.get("name") != name
        or not receipt_key.signature_ok(body, core.key.public)
    ):
        raise KitDamaged(
            f"The kit's item {path.name} is not one this hall sealed (edited, swapped or "
            "damaged): nothing was written. Seal the kit again from the hall, or restore it."
        )
    return sealing.open_sealed(core.private, body.get("sealed"), refresh.item_aad(core.kit, name))


def _listing(folder: KitFolder, core: _Core) -> dict[str, Any]:
    """The kit's signed list of lexicons: their manifests, and the proofs of their words (by
    compiled file; none in a kit sealed before kits carried them)."""
    body = folder.read(folder.listing_path)
    if body is None:
        return {"lexicons": [], "proofs": {}}
    if (
        body.get("type") != refresh.LEXICONS_TYPE
        or body.get("kit") != core.kit
        or not isinstance(body.get("lexicons"), list)
        or not isinstance(body.get("proofs", {}), dict)
        or not receipt_key.signature_ok(body, core.key.public)
    ):
        raise KitDamaged(
            "The kit's list of lexicons is not one this hall signed: nothing was written."
        )
    return {"lexicons": body["lexicons"], "proofs": body.get("proofs", {})}


def _primary() -> str:
    url = settings.get("database_url")
    if url.startswith(("postgresql://", "postgres://")):
        raise KitError(
            "This journal is in PostgreSQL: a takeover brings an SQLite journal from the USB "
            "stick. Unset ADJUDICATOR_DATABASE_URL."
        )
    path = url.removeprefix("sqlite:///").removeprefix("sqlite://")
    return path or str(contents.home() / "journal.sqlite3")


def _refuse_another_hall(key: SigningKey, primary: str, taken: str, mirror: str) -> None:
    """This data home must be fresh, or this hall's with a journal only behind the stick's
    (`taken` from the stick's copy at `mirror`: ChainWalk.taken)."""
    if key.path.exists():
        try:
            own = receipt_key.load(key.path)
        except receipt_key.ReceiptKeyError as exc:
            raise KitError(f"{exc} Nothing was written.") from None
        if own.id != key.id:
            raise KitError(
                f"This data home ({contents.home()}) belongs to another hall (its key is "
                f"{own.id}, the kit's is {key.id}): nothing was written. Take over in a fresh "
                "data home (set ADJUDICATOR_HOME to an empty folder)."
            )
    if not Path(primary).exists():
        return
    stick_copy.readable_head(taken, mirror)  # a stick's copy SQLite cannot read: refused, named
    try:
        verdict, here, there = standing.compare(primary, taken)
        there = replace(there, path=mirror)  # named as the director knows it
    except sqlite3.DatabaseError as exc:
        raise KitError(
            f"This laptop's journal ({primary}) cannot be read ({exc}): nothing was written. "
            "Keep it (it may be a record), and take over in a fresh data home."
        ) from None
    if verdict not in ("same", "first-behind") or (here.journal_id and not there.journal_id):
        raise KitError(
            f"This laptop's journal ({here.describe()}) is not only behind the stick's "
            f"({there.describe()}): it holds rows the stick does not, or another journal. "
            "Nothing was written. Keep it (it is a record), and take over in a fresh data home."
        )


def _carry_the_mark(key: SigningKey, copies: list[str], journal_id: str | None) -> None:
    """The highest signed high-water mark (beside the stick's copy) into this data home."""
    marks = high_water.all_marks(high_water.places(key.path, copies), key.public)
    mark = high_water.highest(marks, journal_id)
    if mark is not None:
        high_water.HighWater(key, key.path, copies).put(mark)


def _lexicons(
    folder: KitFolder, listing: dict[str, Any], primary: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Install the kit's lexicons, each only if its file is the one its manifest names, its
    words match its fingerprint (by the proof the kit carries for that file, as trusted as
    the file: no word is read; else fingerprinted), and its pin is the one each tournament
    using it recorded."""
    store = LexiconStore()
    db = SqliteDatabase(primary, create_folder=False)
    try:
        using = tournaments.list_all(db)
    finally:
        db.close()
    installed, problems = [], []
    for entry in listing["lexicons"]:
        try:
            manifest = Manifest.from_json(json.dumps(entry))
        except (ValueError, TypeError):
            problems.append("A lexicon's manifest in the kit is not readable.")
            continue
        proof = listing["proofs"].get(manifest.compiled_file)
        try:
            data = read_regular(folder.lexicon_path(manifest.compiled_file), MOST_LEXICON)
            # the file its manifest names, by SHA-256; its words, by the proof carried
            store.install(manifest, data, proof if isinstance(proof, str) else None)
            if not isinstance(proof, str):  # a kit that carries none: fingerprinted
                store.verify(manifest.name)
        except (OSError, LexiconError) as exc:
            problems.append(f"Lexicon {manifest.name} did not come across: {exc}")
            continue
        changed = [
            tournament_pins.in_english(phrase)
            for t in using
            if t.lexicon == manifest.name
            and (phrase := tournament_pins.pin_change(t, manifest)) is not None
        ]
        problems += changed
        installed.append(manifest.name)
    return tuple(installed), tuple(problems)


def _record_kit(
    folder: KitFolder, header: dict[str, Any], core: _Core, found: manifest.Manifest, primary: str
) -> None:
    """This data home now keeps the kit current (to the same public half): the kit as found
    (whole, as its manifest lists it) and what was restored from it, so it is current now."""
    db = SqliteDatabase(primary, create_folder=False)
    try:
        wanted = refresh.wanted(db, LexiconStore())
    finally:
        db.close()
    refresh.write_record(
        {
            "dir": str(folder.dir.resolve()),
            "kit": core.kit,
            "public": header["public"],
            "key": core.key.id,
            "items": wanted.digests(),
            "lexicons": wanted.lexicon_files(),
            "proofs": sorted(wanted.proofs()),
            "files": found.files,
            "header": file_sha256(folder.header_path),
            "sealed_at": header.get("sealed_at", ""),
            "mirror": header.get("mirror"),
            "journal": found.head.to_json() if found.head is not None else None,
            "manifest": file_sha256(folder.manifest_path),
        }
    )


def _pem(key: SigningKey) -> bytes:
    return key.private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
