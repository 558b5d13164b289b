"""What the kit holds of a data home, and how it goes back into one.

The sealed items, each a set of files of the data home: the CA (`hall/ca.crt`, `hall/ca.key`),
the server certificate and key, the session secret, and the hall's recorded name, port and URL
(`hall/hall.json`). The receipt key travels in the kit's core instead (it is what checks every
item). The lexicons the tournaments use travel beside them, in the clear.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from adjudicator import settings
from adjudicator.durable import write_whole
from adjudicator.hall import tournaments
from adjudicator.hall.kit.sealing import KitDamaged, b64, unb64
from adjudicator.hall.network import hall_tls, hall_url
from adjudicator.hall.people import session_secret
from adjudicator.record.database.db import Database
from adjudicator.words.lexicon import Manifest
from adjudicator.words.store import LexiconStore

# item name -> the files it holds, as functions of the data home (each made when it is needed)
ITEMS = {
    "ca": lambda: [hall_tls.ca_cert_path(), hall_tls.tls_folder() / "ca.key"],
    "server": lambda: [hall_tls.tls_folder() / "server.crt", hall_tls.tls_folder() / "server.key"],
    "secret": lambda: [session_secret.path()],
    "hall": lambda: [hall_url.record_path()],
}


def home() -> Path:
    """The data home, unmade: a read here must not create it."""
    return Path(settings.get("home")).expanduser()


def gather() -> dict[str, bytes]:
    """Each item's content now (its files, as the kit seals them); an item none of whose files
    exist yet (no server certificate before the first `hall`) is left out."""
    found = {}
    for name, files in ITEMS.items():
        content = {}
        for path in files():
            try:
                content[str(path.relative_to(home()))] = b64(path.read_bytes())
            except OSError:
                continue
        if content:
            found[name] = json.dumps({"files": content}, sort_keys=True).encode("utf-8")
    return found


def digest(content: bytes) -> str:
    """What the data home's kit record keeps of an item: whether it changed, nothing more."""
    return hashlib.sha256(content).hexdigest()


def restore(name: str, content: bytes) -> list[Path]:
    """Write an item's files back into this data home (owner-only); the files written."""
    try:
        files = json.loads(content.decode("utf-8"))["files"]
        assert isinstance(files, dict)
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AssertionError):
        raise KitDamaged(f"The kit's item {name!r} is not readable: the kit was damaged.") from None
    allowed = {str(path.relative_to(home())) for path in ITEMS[name]()}
    written = []
    for relative, data in files.items():
        if relative not in allowed:  # only the files this item is made of, never elsewhere
            raise KitDamaged(f"The kit's item {name!r} names a file it does not hold: {relative}.")
        target = home() / relative
        write_whole(target, unb64(data, f"item {name!r}"))
        written.append(target)
    return written


def lexicons_in_use(db: Database, store: LexiconStore) -> list[Manifest]:
    """The manifests of the lexicons the tournaments use (those compiled here)."""
    names = sorted({t.lexicon for t in tournaments.list_all(db)})
    return [store.manifest(name) for name in names if store.exists(name)]
