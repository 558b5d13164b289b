"""The store of compiled lexicons under the data home: build, save, list, open, verify.

Each lexicon is two files: `<NAME>.<sha12>.marisa` (content-addressed, never rewritten) and
`<NAME>.json`, its manifest, replaced atomically. A reader that loaded the old trie keeps it
while a new edition is installed beside it, so replacing a lexicon fails no request.

A serving process re-hashes each compiled file it has open every `lexicon_recheck_seconds`,
whatever its timestamps say. A file that no longer matches its manifest takes the lexicon out
of service (a `<NAME>.out-of-service` note in the store, seen by every process) until the
director imports it again or verifies it.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import marisa_trie

from adjudicator import __version__, settings
from adjudicator.errors import LexiconCorrupt, LexiconError, LexiconNotFound
from adjudicator.lexicon import CompiledLexicon, Manifest, file_sha256
from adjudicator.wordlist import WordSet, fingerprint

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
OUT_OF_SERVICE = ".out-of-service"


@dataclass
class _Loaded:
    """A lexicon loaded in this process, and when its file was last found intact."""

    compiled_sha256: str
    signature: tuple | None
    lexicon: CompiledLexicon
    checked_at: float


def check_name(name: str) -> str:
    """A lexicon name is 1-64 letters, digits, dots, dashes or underscores."""
    if not _NAME.fullmatch(name or "") or name.endswith(".json"):
        raise LexiconError(
            f"Invalid lexicon name {name!r}: use letters, digits, '.', '-' or '_', "
            "such as NWL2023 or CSW24."
        )
    return name


class LexiconStore:
    """Compiled lexicons in one folder, by default `<data home>/lexicons`."""

    def __init__(self, root: Path | None = None, recheck_seconds: float | None = None):
        self.root = Path(root) if root else settings.data_home() / "lexicons"
        self.root.mkdir(parents=True, exist_ok=True)
        self.recheck_seconds = (
            settings.get_int("lexicon_recheck_seconds", 1)
            if recheck_seconds is None
            else recheck_seconds
        )
        self._open: dict[str, _Loaded] = {}
        self._recheck_lock = threading.Lock()
        self._manifests: dict[str, tuple[tuple[int, int, int], Manifest]] = {}

    def manifest_path(self, name: str) -> Path:
        return self.root / f"{check_name(name)}.json"

    def names(self) -> list[str]:
        """Names of every lexicon with a manifest, sorted."""
        return sorted(path.stem for path in self.root.glob("*.json"))

    def exists(self, name: str) -> bool:
        return self.manifest_path(name).exists()

    def manifest(self, name: str) -> Manifest:
        """The manifest of `name`, or LexiconNotFound saying which names exist.

        Manifests are replaced atomically (a new inode), so a cached copy is reused for as
        long as the file's identity is unchanged: one stat() on the verdict path, no parsing.
        """
        path = self.manifest_path(name)
        try:
            stat = path.stat()
            identity = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
            cached = self._manifests.get(name)
            if cached and cached[0] == identity:
                return cached[1]
            manifest = Manifest.from_json(path.read_text())
            self._manifests[name] = (identity, manifest)
            return manifest
        except FileNotFoundError:
            known = ", ".join(self.names()) or "none yet"
            raise LexiconNotFound(
                f"No lexicon named {name!r} (compiled lexicons: {known}). "
                "Import one with `adjudicator lexicon import`."
            ) from None
        except (ValueError, TypeError) as exc:
            raise LexiconCorrupt(f"The manifest of lexicon {name} is unreadable: {exc}.") from None

    def manifests(self) -> list[Manifest]:
        """Manifests of every lexicon that has a readable one."""
        found = []
        for name in self.names():
            try:
                found.append(self.manifest(name))
            except LexiconError:
                continue
        return found

    def open(self, name: str) -> CompiledLexicon:
        """The lexicon `name`, loaded once per process and reloaded when its manifest changes.

        Refused while out of service. A compiled file changed since it was loaded (inode, size
        or mtime) is checked again at once; every `recheck_seconds` it is re-hashed anyway.
        """
        manifest = self.manifest(name)
        self._refuse_if_out_of_service(name)
        path = self.root / manifest.compiled_file
        signature = _file_signature(path)
        loaded = self._open.get(name)
        if loaded and (loaded.compiled_sha256, loaded.signature) == (
            manifest.compiled_sha256,
            signature,
        ):
            if time.monotonic() - loaded.checked_at >= self.recheck_seconds:
                self._recheck(name, manifest, path, loaded)
            return loaded.lexicon
        self._open.pop(name, None)
        try:
            lexicon = CompiledLexicon.open(manifest, path)
        except LexiconCorrupt as exc:
            if path.exists():  # a missing file may be a new edition going in: not damage
                self._take_out_of_service(name, str(exc))
            raise
        self._open[name] = _Loaded(manifest.compiled_sha256, signature, lexicon, time.monotonic())
        return lexicon

    def _recheck(self, name: str, manifest: Manifest, path: Path, loaded: _Loaded) -> None:
        """Re-hash a loaded lexicon's file (one thread at a time; the others carry on)."""
        if not self._recheck_lock.acquire(blocking=False):
            return
        try:
            loaded.checked_at = time.monotonic()
            try:
                intact = file_sha256(path) == manifest.compiled_sha256
            except LexiconCorrupt:
                return  # gone: replaced by a new edition, or caught by the next open
            if intact:
                return
            self._open.pop(name, None)
            reason = (
                f"Lexicon {name} is damaged: its compiled file {path.name} no longer matches "
                "its manifest (found by the periodic re-check)."
            )
            self._take_out_of_service(name, reason)
            raise LexiconCorrupt(reason + " Import it again, or verify it.")
        finally:
            self._recheck_lock.release()

    def out_of_service(self) -> dict[str, str]:
        """Lexicons taken out of service, with the reason each was found damaged."""
        found = {}
        for path in sorted(self.root.glob(f"*{OUT_OF_SERVICE}")):
            try:
                found[path.name.removesuffix(OUT_OF_SERVICE)] = json.loads(path.read_text())[
                    "reason"
                ]
            except (OSError, ValueError, KeyError, TypeError):
                found[path.name.removesuffix(OUT_OF_SERVICE)] = "damaged (no reason recorded)"
        return found

    def _out_of_service_path(self, name: str) -> Path:
        return self.root / f"{check_name(name)}{OUT_OF_SERVICE}"

    def _refuse_if_out_of_service(self, name: str) -> None:
        if self._out_of_service_path(name).exists():
            raise LexiconCorrupt(
                f"Lexicon {name} is out of service: its compiled file did not match its "
                "manifest. The director must import it again or verify it."
            )

    def _take_out_of_service(self, name: str, reason: str) -> None:
        note = json.dumps({"reason": reason, "at": datetime.now(UTC).isoformat()})
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
            built_at=datetime.now(UTC).isoformat(timespec="seconds"),
            build_seconds=round(time.perf_counter() - started, 3),
            program_version=__version__,
            alphabet=words.alphabet.to_dict(),
            **details,
        )
        previous = self._previous_file(name)
        _atomic_write(self.manifest_path(name), manifest.to_json().encode())
        self._back_in_service(name)
        if previous and previous != compiled.name:
            (self.root / previous).unlink(missing_ok=True)
        return manifest

    def remove(self, name: str) -> None:
        """Delete `name` and its compiled file."""
        manifest = self.manifest(name)
        self.manifest_path(name).unlink()
        self._back_in_service(name)
        (self.root / manifest.compiled_file).unlink(missing_ok=True)

    def verify(self, name: str) -> Manifest:
        """Check `name` deeply: file checksum, word count and the fingerprint of its words."""
        manifest = self.manifest(name)
        path = self.root / manifest.compiled_file
        try:
            lexicon = CompiledLexicon.open(manifest, path)
            if fingerprint(sorted(lexicon)) != manifest.fingerprint:
                raise LexiconCorrupt(
                    f"Lexicon {name} is damaged: its words do not match its fingerprint. "
                    "Import it again."
                )
        except LexiconCorrupt as exc:
            if path.exists():
                self._take_out_of_service(name, str(exc))
            raise
        self._back_in_service(name)  # the director verified it: judging may resume
        return manifest

    def _previous_file(self, name: str) -> str | None:
        try:
            return self.manifest(name).compiled_file
        except LexiconError:
            return None

    def _write_trie(self, name: str, trie: marisa_trie.Trie) -> Path:
        handle, temp = tempfile.mkstemp(dir=self.root, prefix=f".{name}.", suffix=".tmp")
        os.close(handle)
        try:
            trie.save(temp)
            _fsync_file(Path(temp))
            final = self.root / f"{name}.{file_sha256(Path(temp))[:12]}.marisa"
            os.replace(temp, final)
            _fsync_dir(self.root)
            return final
        finally:
            Path(temp).unlink(missing_ok=True)


def _file_signature(path: Path) -> tuple | None:
    """What changes when a file is rewritten or edited in place: inode, size, mtime."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _atomic_write(path: Path, data: bytes) -> None:
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
        _fsync_dir(path.parent)
    finally:
        Path(temp).unlink(missing_ok=True)


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _fsync_dir(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
