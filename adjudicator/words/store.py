"""The store of compiled lexicons under the data home: build, save, list, open, verify.

Each lexicon is two files: `<NAME>.<sha12>.marisa` (content-addressed, never rewritten) and
`<NAME>.json`, its manifest, replaced atomically. A reader that loaded the old trie keeps it
while a new edition is installed beside it, so replacing a lexicon fails no request.

A serving process re-hashes each compiled file it has open every `lexicon_recheck_seconds`,
whatever its timestamps say, and reads its manifest again (an edit in place changes no folder
time). A file that no longer matches its manifest, or a manifest whose verdict fields no longer
match its pin (lexicon_pin.py), takes the lexicon out of service (a `<NAME>.out-of-service` note
in the store, seen by every process) until the director imports it again or verifies it.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import marisa_trie

from adjudicator import __version__, settings
from adjudicator.durable import fsync_path
from adjudicator.errors import LexiconCorrupt, LexiconError, LexiconNotFound
from adjudicator.words.lexicon import (
    CompiledLexicon,
    Manifest,
    file_sha256,
    file_signature,
    proof_of,
    proof_path,
    record_proof,
)
from adjudicator.words.wordlist import WordSet

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
OUT_OF_SERVICE = ".out-of-service"


@dataclass
class _Loaded:
    """A lexicon loaded in this process, the manifest it was loaded under, and when its file
    and manifest were last found unchanged."""

    manifest: Manifest
    signature: tuple | None
    lexicon: CompiledLexicon
    checked_at: float

    def serves(self, manifest: Manifest, signature: tuple | None) -> bool:
        """Whether this is still the lexicon `manifest` names: the same file, unchanged, and a
        manifest equal to the one it was loaded under (any change loads it afresh, and so
        checks it afresh, pin included)."""
        if signature != self.signature:
            return False
        if manifest is self.manifest:
            return True  # the folder's listing is unchanged: the same manifest object
        if manifest != self.manifest:
            return False
        self.manifest = manifest  # an equal manifest read again: compare by identity from now
        return True


def check_name(name: str) -> str:
    """A lexicon name is 1-64 letters, digits, dots, dashes or underscores."""
    if not _NAME.fullmatch(name or "") or name.endswith(".json"):
        raise LexiconError(
            f"Invalid lexicon name {name!r}: use letters, digits, '.', '-' or '_', "
            "such as NWL2023 or CSW24."
        )
    return name


class LexiconStore:
    """Compiled lexicons in one folder, by default `<data home>/lexicons`.

    The folder's manifests (and out-of-service notes) are read once and kept for as long as
    the folder is unchanged: each is only ever replaced by a rename or removed, which changes
    the folder's mtime. So a call costs one stat() of the folder, however many lexicons there
    are.
    """

    def __init__(self, root: Path | None = None, recheck_seconds: float | None = None):
        self.root = Path(root) if root else settings.data_home() / "lexicons"
        self.root.mkdir(parents=True, exist_ok=True)
        self.recheck_seconds = (
            settings.get_int("lexicon_recheck_seconds", 1)
            if recheck_seconds is None
            else recheck_seconds
        )
        self._root = str(self.root)
        self._open: dict[str, _Loaded] = {}
        self._recheck_lock = threading.Lock()
        self._listing: _Listing | None = None

    def manifest_path(self, name: str) -> Path:
        return self.root / f"{check_name(name)}.json"

    def names(self) -> list[str]:
        """Names of every lexicon with a manifest, sorted."""
        return list(self._current().names)

    def exists(self, name: str) -> bool:
        return self._current().get(name) is not None

    def manifest(self, name: str) -> Manifest:
        """The manifest of `name`, or LexiconNotFound saying which names exist."""
        return self._manifest_in(self._current(), name)

    def _manifest_in(self, listing: _Listing, name: str) -> Manifest:
        found = listing.get(name)
        if found is None:
            check_name(name)
            known = ", ".join(listing.names) or "none yet"
            raise LexiconNotFound(
                f"No lexicon named {name!r} (compiled lexicons: {known}). "
                "Import one with `adjudicator lexicon import`."
            )
        if isinstance(found, LexiconError):
            raise type(found)(str(found))  # a fresh one: re-raising one object grows its traceback
        return found

    def manifests(self) -> list[Manifest]:
        """Manifests of every lexicon that has a readable one."""
        return self._current().readable()

    def summaries(self) -> list[dict]:
        """Every readable manifest's summary (as the API lists them), computed once per change."""
        return self._current().summaries()

    def open(self, name: str) -> CompiledLexicon:
        """The lexicon `name`, loaded once per process and reloaded when its manifest changes.

        Refused while out of service. A compiled file changed since it was loaded (inode, size
        or mtime) is checked again at once; every `recheck_seconds` it is re-hashed anyway.
        """
        listing = self._current()  # one stat() of the folder: on every verdict's path
        manifest = self._manifest_in(listing, name)
        self._refuse_if_out_of_service(name, listing)
        file = os.path.join(self._root, manifest.compiled_file)
        signature = file_signature(file)
        loaded = self._open.get(name)
        if loaded and loaded.serves(manifest, signature):
            if time.monotonic() - loaded.checked_at < self.recheck_seconds:
                return loaded.lexicon
            if self._recheck(name, manifest, Path(file), loaded):
                return loaded.lexicon
            self._listing = None  # its manifest was edited in place: read the folder afresh
            return self.open(name)
        self._open.pop(name, None)
        path = Path(file)
        try:
            lexicon = CompiledLexicon.open(manifest, path)
        except LexiconCorrupt as exc:
            if path.exists():  # a missing file may be a new edition going in: not damage
                self._take_out_of_service(name, str(exc))
            raise
        self._open[name] = _Loaded(manifest, signature, lexicon, time.monotonic())
        return lexicon

    def _recheck(self, name: str, manifest: Manifest, path: Path, loaded: _Loaded) -> bool:
        """Read a loaded lexicon's manifest again and re-hash its file (one thread at a time;
        the others carry on). False when the manifest on disk is not the one in service (an
        edit in place): the caller reads it afresh, checking its pin."""
        if not self._recheck_lock.acquire(blocking=False):
            return True
        try:
            loaded.checked_at = time.monotonic()
            on_disk = _read_manifest(self.manifest_path(name))
            if not isinstance(on_disk, Manifest) or on_disk != manifest:  # edited, or gone
                self._open.pop(name, None)
                return False
            try:
                intact = file_sha256(path) == manifest.compiled_sha256
            except LexiconCorrupt:
                return True  # gone: replaced by a new edition, or caught by the next open
            if intact:
                # The words in service need no second look: they are a sealed copy, proven
                # when loaded, and a manifest or file that changes since is loaded afresh (and
                # its proof checked again) by `open`.
                return True
            self._open.pop(name, None)
            reason = (
                f"Lexicon {name} is damaged: its compiled file {path.name} no longer matches "
                "its manifest (found by the periodic re-check)."
            )
            self._take_out_of_service(name, reason)
            raise LexiconCorrupt(reason + " Import it again, or verify it.")
        finally:
            self._recheck_lock.release()

    def _current(self) -> _Listing:
        """The folder's lexicons as it holds them now: reread only when the folder changed."""
        try:
            info = os.stat(self._root)
        except OSError:
            info = None
        identity = (info.st_ino, info.st_mtime_ns, info.st_size) if info else None
        listing = self._listing
        if listing is not None and listing.identity == identity and listing.settled:
            return listing
        listing = _Listing(self._root, identity, info.st_mtime if info else 0.0)
        self._listing = listing
        return listing

    def out_of_service(self) -> dict[str, str]:
        """Lexicons taken out of service, with the reason each was found damaged."""
        found = {}
        for name in self._current().out_of_service:
            try:
                found[name] = json.loads(self._out_of_service_path(name).read_text())["reason"]
            except (OSError, ValueError, KeyError, TypeError):
                found[name] = "damaged (no reason recorded)"
        return found

    def _out_of_service_path(self, name: str) -> Path:
        return self.root / f"{check_name(name)}{OUT_OF_SERVICE}"

    def _refuse_if_out_of_service(self, name: str, listing: _Listing) -> None:
        if name in listing.out_of_service:
            raise LexiconCorrupt(
                f"Lexicon {name} is out of service: its compiled file did not match its "
                "manifest, or its manifest did not match its pin. The director must import it "
                "again or verify it."
            )

    def _take_out_of_service(self, name: str, reason: str) -> None:
        note = json.dumps({"reason": reason, "at": _now(timespec="auto")})
        _atomic_write(self._out_of_service_path(name), note.encode())
        self._open.pop(name, None)

    def _back_in_service(self, name: str) -> None:
        self._out_of_service_path(name).unlink(missing_ok=True)

    def save(self, name: str, words: WordSet, **details) -> Manifest:
        """Compile `words` into the store as `name`; `details` fill the manifest."""
        check_name(name)
        started = time.perf_counter()
        trie = marisa_trie.Trie(words.keys)
        compiled = self._write_trie(name, trie)
        manifest = Manifest(
            name=name,
            words=len(words),
            fingerprint=words.fingerprint,
            compiled_file=compiled.name,
            compiled_sha256=file_sha256(compiled),
            longest_word=words.longest,
            words_over_15=words.over_board_length,
            built_at=_now(),
            build_seconds=round(time.perf_counter() - started, 3),
            program_version=__version__,
            alphabet=words.alphabet.to_dict(),
            **details,
        ).with_pin()
        record_proof(manifest, compiled)  # the words fingerprinted are the words compiled
        previous = self._previous_file(name)
        _atomic_write(self.manifest_path(name), manifest.to_json().encode())
        self._back_in_service(name)
        if previous and previous != compiled.name:
            self._remove_compiled(previous)
        return manifest

    def install(self, manifest: Manifest, data: bytes, proof: str | None = None) -> None:
        """Put in a lexicon compiled elsewhere (carried by the hall's kit): `data` must be the
        compiled file its manifest names, by name and SHA-256. With `proof` (carried with it,
        as trusted as the file: the kit's signed list), the proof must be the one of this
        manifest, and of this very file, and the manifest must match its pin: the proof is
        then kept beside the file, and no word is read. Without one, `verify` checks the
        words."""
        import hashlib

        check_name(manifest.name)
        wanted = f"{manifest.name}.{manifest.compiled_sha256[:12]}.marisa"
        if manifest.compiled_file != wanted or (
            hashlib.sha256(data).hexdigest() != manifest.compiled_sha256
        ):
            raise LexiconCorrupt(
                f"Lexicon {manifest.name}: the compiled file is not the one its manifest names."
            )
        if proof is not None:
            self._check_carried(manifest, proof)
            manifest = manifest if manifest.pin else manifest.with_pin()  # as verify pins it
        _atomic_write(self.root / manifest.compiled_file, data)
        if proof is not None:
            record_proof(manifest, self.root / manifest.compiled_file)
        _atomic_write(self.manifest_path(manifest.name), manifest.to_json().encode())
        self._back_in_service(manifest.name)

    @staticmethod
    def _check_carried(manifest: Manifest, proof: str) -> None:
        """A carried proof vouches for exactly this manifest's file, count and fingerprint,
        and the manifest matches its pin; else LexiconCorrupt, nothing installed."""
        if proof.encode("utf-8") != proof_of(manifest):
            raise LexiconCorrupt(
                f"Lexicon {manifest.name}: the proof carried with it does not vouch for its "
                "compiled file (another file, count or fingerprint): it was not installed."
            )
        problem = manifest.pin_problem
        if problem:
            raise LexiconCorrupt(f"Lexicon {manifest.name} does not match its pin: {problem}.")

    def remove(self, name: str) -> None:
        """Delete `name` and its compiled file."""
        manifest = self.manifest(name)
        self.manifest_path(name).unlink()
        self._back_in_service(name)
        self._remove_compiled(manifest.compiled_file)

    def _remove_compiled(self, compiled_file: str) -> None:
        """Delete a compiled file and its proof."""
        path = self.root / compiled_file
        path.unlink(missing_ok=True)
        proof_path(path).unlink(missing_ok=True)

    def verify(self, name: str, apart: bool = False) -> Manifest:
        """Check `name` deeply: its pin, file checksum, word count and the fingerprint of its
        words, recomputed whatever its proof said (the proof is written afresh when they
        match). A manifest written before pins, and vouched for
        (lexicon_pin.legacy_problem), gets its pin written into it. With `apart` (a serving
        worker: the director's page), the words are read in a child process, whose finding is
        acted on here (`verify_apart`)."""
        manifest = self.manifest(name)
        path = self.root / manifest.compiled_file
        try:
            if not (apart and verify_apart(self.root, manifest)):
                CompiledLexicon.open(manifest, path, fingerprint_words=True)
        except LexiconCorrupt as exc:
            if path.exists():
                self._take_out_of_service(name, str(exc))
            raise
        if not manifest.pin:
            manifest = manifest.with_pin()
            _atomic_write(self.manifest_path(name), manifest.to_json().encode())
        self._back_in_service(name)  # the director verified it: judging may resume
        return manifest

    def _previous_file(self, name: str) -> str | None:
        try:
            return self.manifest(name).compiled_file
        except LexiconError:
            return None

    def _write_trie(self, name: str, trie: marisa_trie.Trie) -> Path:
        import tempfile  # only when saving: `judge` should not pay for it

        handle, temp = tempfile.mkstemp(dir=self.root, prefix=f".{name}.", suffix=".tmp")
        os.close(handle)
        try:
            trie.save(temp)
            _fsync_file(Path(temp))
            final = self.root / f"{name}.{file_sha256(Path(temp))[:12]}.marisa"
            os.replace(temp, final)
            fsync_path(self.root)
            return final
        finally:
            Path(temp).unlink(missing_ok=True)


# A folder's mtime ticks coarsely (a few ms): a change in the same tick as the listing would
# not move it. A listing made this long after the folder's mtime is trusted; until then each
# call reads the folder again.
SETTLE_SECONDS = 1.0


class _Listing:
    """The folder's lexicon names at one moment; each manifest is read on first use."""

    def __init__(self, root: str, identity: tuple | None, mtime: float):
        self.root = root
        self.identity = identity
        self.settled = identity is not None and time.time() - mtime > SETTLE_SECONDS
        try:
            files = os.listdir(root)
        except OSError:
            files = []
        self.names = sorted(name[:-5] for name in files if name.endswith(".json"))
        self.out_of_service = frozenset(
            name.removesuffix(OUT_OF_SERVICE) for name in files if name.endswith(OUT_OF_SERVICE)
        )
        self._known = set(self.names)
        self._manifests: dict[str, Manifest | LexiconError] = {}
        self._summaries: list[dict] | None = None

    def get(self, name: str) -> Manifest | LexiconError | None:
        """The manifest of `name` (or the error reading it); None if there is no such lexicon."""
        if name not in self._known:
            return None
        found = self._manifests.get(name)
        if found is None:
            found = _read_manifest(Path(self.root, name + ".json"))
            self._manifests[name] = found
        return found

    def readable(self) -> list[Manifest]:
        return [m for m in map(self.get, self.names) if isinstance(m, Manifest)]

    def summaries(self) -> list[dict]:
        if self._summaries is None:
            self._summaries = [manifest.summary() for manifest in self.readable()]
        return self._summaries


def _read_manifest(path: Path) -> Manifest | LexiconError:
    try:
        return Manifest.from_json(path.read_text())
    except OSError as exc:
        return LexiconNotFound(f"The manifest of lexicon {path.stem} cannot be read: {exc}.")
    except (ValueError, TypeError) as exc:
        return LexiconCorrupt(f"The manifest of lexicon {path.stem} is unreadable: {exc}.")


# -- a lexicon verified in a child process -------------------------------------------------

APART_SECONDS = 600  # a child still reading words after this is stopped (then: verified here)


def verify_apart(root: Path, manifest: Manifest) -> bool:
    """Whether a child process (`python -P -m adjudicator.words.store ROOT NAME FILE`) opened
    the lexicon of `manifest` with its words fingerprinted, and they are the ones it names.
    Fingerprinting the Polish list's 4 million words is 4 s of pure Python: on a thread of a
    serving worker it held the interpreter from that worker's verdicts (adjudicator/children.py).
    Raises LexiconCorrupt as the open in the child did; False when no child could say (none
    started, it failed, or the manifest changed meanwhile): verify here."""
    from adjudicator import children

    child = children.start(__name__, str(root), manifest.name, manifest.compiled_file, lowest=True)
    if child is None:
        return False
    try:
        out, _ = child.communicate(timeout=APART_SECONDS)
    except Exception:  # noqa: BLE001 - past its time, or interrupted: never left running
        child.kill()
        child.communicate()
        return False
    said = children.answer(out) if child.returncode == 0 else None
    if not isinstance(said, dict):
        return False
    if isinstance(said.get("corrupt"), str):
        raise LexiconCorrupt(said["corrupt"])
    return said.get("fingerprint") == manifest.fingerprint


def main(argv: list[str]) -> int:
    """The child's work: `python -m adjudicator.words.store ROOT NAME FILE` opens lexicon NAME
    of the store at ROOT with its words fingerprinted, if its manifest still names FILE, and
    says what it found as one JSON line."""
    if len(argv) != 3:
        return 2
    store = LexiconStore(Path(argv[0]))
    manifest = store.manifest(argv[1])
    if manifest.compiled_file != argv[2]:
        return 4  # imported again meanwhile: the caller verifies what it reads
    try:
        CompiledLexicon.open(manifest, store.root / manifest.compiled_file, fingerprint_words=True)
    except LexiconCorrupt as exc:
        print(json.dumps({"corrupt": str(exc)}))
    else:
        print(json.dumps({"fingerprint": manifest.fingerprint}))
    return 0


def _now(timespec: str = "seconds") -> str:
    from datetime import UTC, datetime  # only when saving: `judge` should not pay for it

    return datetime.now(UTC).isoformat(timespec=timespec)


def _atomic_write(path: Path, data: bytes) -> None:
    import tempfile

    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
        fsync_path(path.parent)
    finally:
        Path(temp).unlink(missing_ok=True)


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
