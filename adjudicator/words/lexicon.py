"""A compiled lexicon: a marisa-trie file, and the manifest that vouches for it.

Opening copies the file once into a private, sealed memory file (Linux memfd: nobody can change
it after sealing), checks that copy's SHA-256 against the manifest, and only then has marisa
map the same copy (mmap: a sealed copy cannot shrink under the mapping, as a file can). marisa
never sees a byte that has not matched: there is no window between checking and mapping, and a
file damaged in place afterwards cannot reach the trie in use (a damaged trie can crash the
process). Where memfd is missing, the bytes are read into memory, checked and loaded from there.

Under `adjudicator serve` the sealed copies are made once, before gunicorn forks its workers
(adjudicator.words.sealed_lexicons); each worker maps the copy it inherited (checked when it was
sealed, and unchangeable since), so an edition's pages are held once per server, not once per
worker, and a worker's open costs no hashing unless the file changed since.

The words are vouched for by a proof beside the compiled file (`<compiled file>.proof`): its
SHA-256, the fingerprint of the words it holds and their count, written only where the program
had both from the same words (the import that compiled them, `lexicon verify` that read them
back, sorted and fingerprinted). Opening checks the proof against the manifest, at a cost
independent of the word count: a manifest that pairs one edition's file, checksum and count with
another's fingerprint finds that file's proof naming other words, and the words are then
fingerprinted (the old way) and refused. A compiled file with no proof (a store compiled before
proofs, a lexicon carried by a kit sealed before kits carried proofs) is fingerprinted once,
then proven. The takeover kit carries each proof in its signed list of lexicons, beside the
file it names (`vouching_proof`; store.install takes it), so a takeover reads no word.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path

import marisa_trie

from adjudicator.durable import read_regular, write_whole
from adjudicator.errors import LexiconCorrupt, LexiconError
from adjudicator.words import lexicon_pin
from adjudicator.words.alphabet import Alphabet
from adjudicator.words.alphabet_files import from_manifest
from adjudicator.words.sealed_lexicons import HANDOFF_VARIABLE, entry, inherited_copy, memfd_name
from adjudicator.words.wordlist import fingerprint, short_fingerprint

TYPE_CHECKING = False  # the typing module costs `adjudicator judge` several ms to import
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class Manifest:
    """Everything known about one compiled lexicon; stored as JSON beside the trie."""

    name: str
    words: int
    fingerprint: str
    compiled_file: str
    compiled_sha256: str
    description: str = ""
    source_file: str = ""
    source_sha256: str = ""
    source_format: str = ""
    longest_word: int = 0
    words_over_15: int = 0
    built_at: str = ""
    build_seconds: float = 0.0
    program_version: str = ""
    verified: bool = False  # the fingerprint matches the catalogue entry of this name
    catalogue_name: str = ""  # the catalogue edition whose fingerprint this is, if any
    tournament_list: bool = True
    refer_longer_than: int = 0
    refer_even_if_listed: bool = False  # every word over refer_longer_than goes to a person
    recipe: dict[str, Any] = field(default_factory=dict)
    alphabet: dict[str, Any] = field(default_factory=dict)  # its definition; empty: english
    pin: str = ""  # SHA-256 of `pinned` (lexicon_pin.py); empty: written before pins
    pinned: dict[str, Any] = field(default_factory=dict)  # the verdict fields, as pinned

    @property
    def short_fingerprint(self) -> str:
        return short_fingerprint(self.fingerprint)

    @cached_property
    def verdict_values(self) -> dict[str, Any]:
        """The fields that decide a verdict, as a pin covers them (lexicon_pin.values_of)."""
        return lexicon_pin.values_of(
            self.fingerprint, self.refer_longer_than, self.refer_even_if_listed, self.get_alphabet()
        )

    @cached_property
    def current_pin(self) -> str:
        """The pin of the verdict fields as this manifest has them now (what a tournament
        records); equal to `pin` unless the manifest was edited."""
        return lexicon_pin.pin_of(self.verdict_values)

    @cached_property
    def pin_problem(self) -> str | None:
        """Why the verdict fields are not what the pin vouches for (naming the field); None
        when they are."""
        return lexicon_pin.problem(self)

    def with_pin(self) -> Manifest:
        """This manifest carrying the pin of its verdict fields as they are."""
        return replace(self, pin=self.current_pin, pinned=self.verdict_values)

    def get_alphabet(self) -> Alphabet:
        """The alphabet the words are spelled in (from the recorded definition)."""
        return self._alphabet

    @cached_property
    def _alphabet(self) -> Alphabet:
        return from_manifest(self.alphabet)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a manifest must be a JSON object")
        known = {name for name in cls.__dataclass_fields__}
        manifest = cls(**{key: value for key, value in data.items() if key in known})
        for name in ("name", "fingerprint", "compiled_file", "compiled_sha256"):
            if not isinstance(getattr(manifest, name), str):
                raise ValueError(f"its field {name!r} is not text")
        if not isinstance(manifest.words, int):
            raise ValueError("its field 'words' is not a whole number")
        if type(manifest.refer_longer_than) is not int or manifest.refer_longer_than < 0:
            raise ValueError("its field 'refer_longer_than' is not a whole number")
        if not isinstance(manifest.refer_even_if_listed, bool):
            raise ValueError("its field 'refer_even_if_listed' is not true or false")
        if not isinstance(manifest.pin, str) or not isinstance(manifest.pinned, dict):
            raise ValueError("its pin is not text, or its pinned values are not an object")
        manifest.get_alphabet()  # an unusable alphabet makes the manifest unreadable
        return manifest

    def summary(self) -> dict[str, Any]:
        """The public description of this lexicon, as the API and `lexicon list --json` give it."""
        return {
            "name": self.name,
            "description": self.description,
            "alphabet": self.get_alphabet().name,
            "words": self.words,
            "fingerprint": self.fingerprint,
            "short_fingerprint": self.short_fingerprint,
            "verified": self.verified,
            "catalogue_name": self.catalogue_name,
            "tournament_list": self.tournament_list,
            "refer_longer_than": self.refer_longer_than,
            "refer_even_if_listed": self.refer_even_if_listed,
            "pin": self.current_pin,
            "longest_word": self.longest_word,
            "words_over_15": self.words_over_15,
            "built_at": self.built_at,
        }


class CompiledLexicon:
    """A read-only lexicon held in a marisa trie; `word in lexicon` looks a word up."""

    def __init__(self, manifest: Manifest, trie: marisa_trie.Trie, path: Path):
        self.manifest = manifest
        self.path = path
        self.trie = trie  # the verdict looks words up here directly: no Python call per word
        self.alphabet = manifest.get_alphabet()

    def __contains__(self, word: object) -> bool:
        """Whether the canonical spelling `word` is in the lexicon."""
        return isinstance(word, str) and self.alphabet.key_of(word) in self.trie

    def __len__(self) -> int:
        return len(self.trie)

    def __iter__(self):
        """The canonical spellings, in the trie's order (not sorted)."""
        if self.alphabet.keys_are_canonical:
            return iter(self.trie.iterkeys())
        return map(self.alphabet.canonical_of_key, self.trie.iterkeys())

    @property
    def name(self) -> str:
        return self.manifest.name

    @classmethod
    def open(
        cls, manifest: Manifest, path: Path, fingerprint_words: bool = False
    ) -> CompiledLexicon:
        """Load the trie at `path` from a sealed copy that matched `manifest` first; refused
        when the manifest's verdict fields are not what its pin vouches for, or its words are
        not the ones its fingerprint names (by the proof beside the file; fingerprinted when
        there is none, or `fingerprint_words`, and proven when they match)."""
        problem = manifest.pin_problem
        if problem:
            raise LexiconCorrupt(
                f"Lexicon {manifest.name} does not match its pin: {problem}. A deliberate "
                "change is a new import; otherwise put the manifest back and verify it."
            )
        try:
            trie = _load_verified(manifest, path)
        except LexiconCorrupt:
            raise
        except Exception as exc:  # marisa raises plain RuntimeError/ValueError on bad files
            raise LexiconCorrupt(f"Lexicon {manifest.name} cannot be opened: {exc}.") from None
        if len(trie) != manifest.words:
            raise LexiconCorrupt(
                f"Lexicon {manifest.name} is damaged: it holds {len(trie):,} words, "
                f"its manifest says {manifest.words:,}. Import it again."
            )
        lexicon = cls(manifest, trie, path)
        vouched = proven(manifest, path)
        if fingerprint_words or not vouched:
            try:
                lexicon.check_fingerprint()  # no proof, or one naming other words: the old way
            except LexiconCorrupt:
                if vouched:  # a false proof: it named words the file does not hold
                    _remove_quietly(proof_path(path))
                raise
            record_proof(manifest, path, quietly=True)  # once: from now on the proof says it
        return lexicon

    def check_fingerprint(self) -> None:
        """The words in service must be those the fingerprint names (the one a tournament pins
        and every verdict records), recomputed from the trie itself (0.2 s for CSW24's 280,000
        words, 4 s for the Polish list's 4 million): done when no proof vouches for them, and
        by `lexicon verify`."""
        if fingerprint(sorted(self)) != self.manifest.fingerprint:
            raise LexiconCorrupt(
                f"Lexicon {self.manifest.name} is damaged: the words of its compiled file "
                f"{self.path.name} do not have the fingerprint its manifest names "
                f"({self.manifest.short_fingerprint}). Import it again."
            )


# --- the proof beside each compiled file --------------------------------------------------

PROOF_SUFFIX = ".proof"
_PROOF_VERSION = 1
_PROOF_MOST = 4096  # a proof is about 200 bytes: a larger file is not one


def proof_path(path: Path) -> Path:
    """Where the proof of the compiled file at `path` is kept: beside it."""
    return path.with_name(path.name + PROOF_SUFFIX)


def proof_of(manifest: Manifest) -> bytes:
    """The proof that vouches for `manifest`'s words, as it is written (JSON, keys sorted)."""
    values = {
        "compiled_sha256": manifest.compiled_sha256,
        "fingerprint": manifest.fingerprint,
        "version": _PROOF_VERSION,
        "words": manifest.words,
    }
    return (json.dumps(values, sort_keys=True) + "\n").encode()


def proven(manifest: Manifest, path: Path) -> bool:
    """Whether the proof beside `path` vouches that the compiled file `manifest` names (by its
    SHA-256, which the bytes in service matched) holds `manifest.words` words with
    `manifest.fingerprint`: one small read, whatever the word count (compared as written: any
    other text is no proof)."""
    try:  # a regular file only: a FIFO put in its place would hold the open forever
        return read_regular(proof_path(path), _PROOF_MOST) == proof_of(manifest)
    except OSError:
        return False


def vouching_proof(manifest: Manifest, path: Path) -> str | None:
    """The proof beside `path`, as text, when it vouches for `manifest` (to carry it with the
    file, in the takeover kit's signed list of lexicons); None when no proof does."""
    return proof_of(manifest).decode() if proven(manifest, path) else None


def record_proof(manifest: Manifest, path: Path, quietly: bool = False) -> None:
    """Write the proof of the compiled file at `path`: only where its words were fingerprinted
    from the file itself, or the file compiled from the words fingerprinted. `quietly`: a store
    this process cannot write is no error (the words are fingerprinted again on the next open)."""
    data = proof_of(manifest)
    try:
        write_whole(proof_path(path), data)
    except OSError:
        if not quietly:
            raise


def _remove_quietly(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def _load_verified(manifest: Manifest, path: Path) -> marisa_trie.Trie:
    """The trie from a sealed copy of `path` whose SHA-256 matched the manifest.

    The server's own sealed copy (made and checked before its workers forked) is mapped when
    there is one, so every worker shares its pages; otherwise a private sealed copy is made,
    checked and mapped.
    """
    trie = marisa_trie.Trie()
    if not hasattr(os, "memfd_create"):  # not Linux: check and load the same bytes in memory
        data = _read(path, lambda handle: handle.read())
        _check(manifest, path, hashlib.sha256(data).hexdigest())
        trie.frombytes(data)
        return trie
    shared = inherited_copy(manifest.compiled_sha256)
    if shared is not None:
        fd, sealed_from = shared
        if file_signature(path) != sealed_from:  # the file changed since the server copied it
            _check(manifest, path, file_sha256(path))  # damaged: say so, as ever
        trie.mmap(f"/proc/self/fd/{fd}")  # pages shared with every sibling worker
        return trie
    copy = sealed_copy(manifest, path, inheritable=False)
    try:
        trie.mmap(f"/proc/self/fd/{copy}")  # marisa maps the very copy that was checked
    finally:
        os.close(copy)  # the mapping keeps the copy alive, and only this process holds it
    return trie


def sealed_copy(manifest: Manifest, path: Path, inheritable: bool) -> int:
    """A sealed memory file holding `path`'s bytes, checked against the manifest: its fd."""
    flags = os.MFD_ALLOW_SEALING | (0 if inheritable else os.MFD_CLOEXEC)
    copy = os.memfd_create(memfd_name(manifest.name, manifest.compiled_sha256), flags)
    try:
        _read(path, lambda handle: _copy_into(handle, copy))
        fcntl.fcntl(copy, fcntl.F_ADD_SEALS, _SEALS)  # from here on, the copy cannot change
        _check(manifest, path, _sealed_digest(copy))
    except BaseException:
        os.close(copy)
        raise
    return copy


def _sealed_digest(fd: int) -> str:
    """SHA-256 of a sealed memory file, read through a description of its own (the offset of
    an fd inherited by several workers is shared)."""
    with open(f"/proc/self/fd/{fd}", "rb") as sealed:
        return hashlib.file_digest(sealed, "sha256").hexdigest()


_SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL


def _copy_into(handle, target: int) -> None:
    size = os.fstat(handle.fileno()).st_size
    copied = 0
    while copied < size:
        sent = os.sendfile(target, handle.fileno(), copied, size - copied)
        if sent == 0:  # shrunk while copying: the hash will say so
            break
        copied += sent


def _check(manifest: Manifest, path: Path, actual: str) -> None:
    if actual != manifest.compiled_sha256:
        raise LexiconCorrupt(
            f"Lexicon {manifest.name} is damaged: its compiled file {path.name} does not "
            "match its manifest. Run `adjudicator lexicon verify` and import it again."
        )


def _read(path: Path, how):
    """Open a compiled file and apply `how` to it, with a clear error if it is missing.

    Read, never mmap: a file truncated by someone else while mapped would kill the process
    (SIGBUS) when the missing pages are touched.
    """
    try:
        with open(path, "rb") as handle:
            return how(handle)
    except FileNotFoundError:
        raise LexiconCorrupt(f"Compiled lexicon file {Path(path).name} is missing.") from None
    except OSError as exc:
        raise LexiconCorrupt(
            f"Compiled lexicon file {Path(path).name} cannot be read: {exc.strerror or exc}."
        ) from None


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in chunks (never mapped: see _read)."""
    return _read(path, lambda handle: hashlib.file_digest(handle, "sha256").hexdigest())


def file_signature(path: Path | str) -> tuple[int, int, int] | None:
    """What changes when a file is rewritten or edited in place: inode, size, mtime."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def seal_for_workers(store) -> int:
    """Make an inheritable sealed copy of every intact lexicon in `store` and name them in the
    environment the workers will inherit; returns how many. Words no proof vouches for yet (a
    store compiled before proofs) are fingerprinted here, once, before the workers fork.
    Damaged ones are left to the workers, which take them out of service with the reason."""
    if not hasattr(os, "memfd_create"):
        return 0
    entries = []
    for manifest in store.manifests():
        path = store.root / manifest.compiled_file
        signature = _settled_signature(path)
        try:
            fd = sealed_copy(manifest, path, inheritable=True)
        except LexiconError:
            continue
        if signature is None or not _proven_or_proved(manifest, path, fd):
            os.close(fd)
            continue
        entries.append(entry(manifest.compiled_sha256, fd, signature))
    os.environ[HANDOFF_VARIABLE] = ",".join(entries)
    return len(entries)


# A file's mtime ticks coarsely (a few ms): an edit in the same tick as its last write would
# leave its signature unchanged. A file written this recently is hashed by each worker instead.
SETTLE_SECONDS = 1.0


def _settled_signature(path: Path) -> tuple[int, int, int] | None:
    """The file's signature if it was last written long enough ago for any later edit to
    change it; (0, 0, 0), which matches no file, if not; None when it is missing."""
    signature = file_signature(path)
    if signature is not None and time.time() - signature[2] / 1e9 < SETTLE_SECONDS:
        return (0, 0, 0)
    return signature


def _proven_or_proved(manifest: Manifest, path: Path, fd: int) -> bool:
    """Whether the words of the sealed copy `fd` are vouched for by a proof, or, fingerprinted
    now, are the ones its manifest names (the proof is then written)."""
    if proven(manifest, path):
        return True
    trie = marisa_trie.Trie()
    trie.mmap(f"/proc/self/fd/{fd}")
    try:
        if len(trie) != manifest.words:
            return False
        CompiledLexicon(manifest, trie, path).check_fingerprint()
    except LexiconCorrupt:
        return False
    record_proof(manifest, path, quietly=True)
    return True
