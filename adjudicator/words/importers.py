"""Readers for the word lists tournament directors have: plain text, Zyzzyva text, Zyzzyva .dwg.

A file is streamed (gunzipped and hashed as it is read, decoded a megabyte at a time) and its
lines are read in the lexicon's alphabet by word_lines.py; a line that is not a word is
collected as a BadLine with its number and text. The builder (store.py) is separate.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import io
import os
import re
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from adjudicator import settings
from adjudicator.errors import ImportRefused
from adjudicator.words.alphabet import ENGLISH, Alphabet
from adjudicator.words.word_graph import graph_character, graph_text
from adjudicator.words.word_lines import BadLine, WordLines

__all__ = [
    "FORMATS",
    "BadLine",
    "ReadResult",
    "read_dwg",
    "read_limited",
    "read_source",
    "read_words",
]

FORMATS = ("auto", "text", "zyzzyva", "dwg")
_WORD = re.compile(r"[A-Za-z]+")
_GZIP_MAGIC = b"\x1f\x8b"
_MAX_GRAPH_DEPTH = 64  # longer than any word in any dictionary: a loop in a corrupt graph
_HEAD = 65536  # bytes read before the format is decided
_CHUNK = 1 << 20  # bytes decoded and read at a time


@dataclass
class ReadResult:
    """What a reader found: the words, the lines it could not read, the source's checksum."""

    words: list[str]  # canonical spellings, file order, repeats kept
    format: str
    source_sha256: str
    bad_lines: list[BadLine] = field(default_factory=list)
    capitalised: int = 0  # entries left out because they hold a capital letter
    encoding: str = "utf-8"  # "latin-1" when the file was not valid UTF-8


def read_source(
    path: Path,
    fmt: str = "auto",
    alphabet: Alphabet = ENGLISH,
    *,
    drop_capitalised: bool = False,
) -> ReadResult:
    """Read a word list file (gzip or not) in `fmt` and `alphabet`, streaming it.

    `auto` detects the format from the first bytes. With `drop_capitalised`, entries holding
    a capital letter (proper nouns, abbreviations) are left out and counted.
    """
    if fmt not in FORMATS:
        raise ImportRefused(f"Unknown format {fmt!r}: choose one of {', '.join(FORMATS)}.")
    with _Source(Path(path)) as source:
        head = source.read(_HEAD)
        complete = len(head) < _HEAD
        if fmt == "dwg" or (fmt == "auto" and not complete and source.could_be_dwg(head)):
            head += source.read()  # a word graph is small and read whole
            complete = True
        if fmt == "auto":
            fmt = detect_format(head, complete=complete)
        lines = WordLines(alphabet, definitions=fmt == "zyzzyva", drop_capitalised=drop_capitalised)
        encoding = "utf-8"
        if fmt == "dwg":
            lines.feed(graph_text(read_dwg(head, max_bytes=source.limit), alphabet))
        else:
            encoding = _read_lines(head, source, lines)
        source.finish()
    return ReadResult(
        lines.words,
        fmt,
        source.sha256,
        lines.bad_lines,
        capitalised=lines.capitalised,
        encoding=encoding,
    )


class _Source:
    """A word-list file opened for streaming: gunzipped when compressed, hashed as it is read."""

    def __init__(self, path: Path):
        self.path = path
        self.limit = import_limit_bytes()
        self._content = 0  # bytes of content read so far
        self._digest = hashlib.sha256()
        try:
            self._raw = open(path, "rb")  # noqa: SIM115 - closed in __exit__
        except OSError as exc:
            raise ImportRefused(f"Cannot read {path}: {exc.strerror or exc}.") from None
        self._hashing = _HashingReader(self._raw, self._digest)
        self.gzipped = self._raw.peek(2)[:2] == _GZIP_MAGIC
        if self.gzipped:
            self._stream = gzip.GzipFile(fileobj=self._hashing, mode="rb")
        else:
            self._stream = io.BufferedReader(self._hashing)  # read(n) gives n bytes until EOF
        try:
            self._measure()
        except ImportRefused:
            self._raw.close()
            raise

    def _measure(self) -> None:
        """Refuse a list past the limit before a line of it is read: a plain file by its size,
        a gzip stream by gunzipping it once at C speed (1 GiB of newlines is refused in about
        1.5 s, not after reading 256 MB of empty lines). read() checks again as it goes."""
        if not self.gzipped:
            size = os.fstat(self._raw.fileno()).st_size
        else:
            size = 0
            try:
                with open(self.path, "rb") as raw, gzip.GzipFile(fileobj=raw, mode="rb") as stream:
                    while size <= self.limit and (chunk := stream.read(_CHUNK)):
                        size += len(chunk)
            except (OSError, EOFError, zlib.error) as exc:
                raise ImportRefused(
                    f"{self.path} looks gzip-compressed but cannot be decompressed: {exc}."
                ) from None
        if size > self.limit:
            raise _past_the_limit(self.path, self.limit, self.gzipped)

    def __enter__(self) -> _Source:
        return self

    def __exit__(self, *exc_info) -> None:
        self._raw.close()

    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes of the (decompressed) content; all the rest when `size` < 0.

        Never more than the import limit: past it, ImportRefused (a gzip bomb stops here)."""
        room = self.limit - self._content + 1
        try:
            data = self._stream.read(room if size < 0 else min(size, room))
        except (OSError, EOFError, zlib.error) as exc:
            raise ImportRefused(
                f"{self.path} looks gzip-compressed but cannot be decompressed: {exc}."
            ) from None
        self._content += len(data)
        if self._content > self.limit:
            raise _past_the_limit(self.path, self.limit, self.gzipped)
        return data

    def could_be_dwg(self, head: bytes) -> bool:
        """Whether the content's size is what the word-graph header in `head` says it is."""
        size = os.fstat(self._raw.fileno()).st_size
        if self.gzipped:  # the gzip trailer ends with the content's size (mod 2**32)
            size = struct.unpack("<I", os.pread(self._raw.fileno(), 4, size - 4))[0]
        (count, first) = struct.unpack_from("<II", head)
        return (4 * (count + 1)) % 2**32 == size and graph_character(chr(first >> 24))

    def finish(self) -> None:
        """Hash whatever is left of the file (the checksum is of the file as stored)."""
        while self._hashing.read(_CHUNK):
            pass

    @property
    def sha256(self) -> str:
        return self._digest.hexdigest()


class _HashingReader(io.RawIOBase):
    """Passes reads through, feeding every byte read to `digest`."""

    def __init__(self, raw, digest):
        self._raw = raw
        self._digest = digest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        count = self._raw.readinto(buffer)
        if count:
            self._digest.update(memoryview(buffer)[:count])
        return count or 0


def _read_lines(head: bytes, source: _Source, lines: WordLines) -> str:
    """Decode the text (UTF-8, else Latin-1 from the first bad byte on) and read its lines."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    encoding = "utf-8"
    carried: list[str] = []  # the start of a line that has not ended yet
    chunk = head
    while True:
        final = not chunk
        if encoding == "utf-8":
            state = decoder.getstate()
            try:
                text = decoder.decode(chunk, final=final)
            except UnicodeDecodeError:
                # Latin-1 decodes any byte, so a stray accented letter shows up as a bad line.
                encoding = "latin-1"
                text = (state[0] + chunk).decode("latin-1")
        else:
            text = chunk.decode("latin-1")
        if final:
            lines.feed("".join(carried) + text)
            return encoding
        cut = text.rfind("\n") + 1
        if cut:
            lines.feed("".join(carried) + text[:cut])
            carried = [text[cut:]]
        else:
            carried.append(text)
        chunk = source.read(_CHUNK)


def detect_format(data: bytes, *, complete: bool = True) -> str:
    """`dwg` for a word graph, `zyzzyva` when lines carry definitions, else `text`.

    `data` is the whole content, or only its first bytes when `complete` is false.
    """
    if complete and looks_like_dwg(data):
        return "dwg"
    sample = data[:65536].decode("utf-8", errors="replace").splitlines()
    if len(data) > 65536 or not complete:
        sample = sample[:-1]  # the last line of the sample may be cut short
    lines = [line.strip() for line in sample]
    lines = [line for line in lines if line and not line.startswith("#")]
    defined = 0
    for line in lines:
        parts = line.split(None, 1)
        defined += len(parts) == 2 and bool(_WORD.fullmatch(parts[0]))
    # Most lines of a Zyzzyva file carry a definition. A plain list with a stray "ICE CREAM"
    # line stays `text`, so that line is reported instead of silently becoming "ICE".
    return "zyzzyva" if lines and defined * 2 > len(lines) else "text"


def looks_like_dwg(data: bytes) -> bool:
    """True when `data` is a uint32 node count N followed by exactly N uint32 nodes."""
    if len(data) < 8 or len(data) % 4:
        return False
    (count,) = struct.unpack_from("<I", data)
    if 4 * (count + 1) != len(data):
        return False
    (first,) = struct.unpack_from("<I", data, 4)
    return graph_character(chr(first >> 24))


def read_words(text: str, alphabet: Alphabet = ENGLISH) -> WordLines:
    """A plain list already in memory: one word a line, blank lines and `#` comments skipped."""
    lines = WordLines(alphabet)
    lines.feed(text)
    return lines


def read_dwg(data: bytes, *, max_bytes: int | None = None) -> Iterator[str]:
    """Decode a Zyzzyva word graph (format in shared/lexicons/README.md) into its words, each
    letter the character of its byte (graph_text reads them in an alphabet's tiles).

    A graph shares its suffixes, so a small one can spell billions of words: past `max_bytes`
    of words (one line each), ImportRefused, like a gzip bomb."""
    if not looks_like_dwg(data):
        raise ImportRefused("Not a Zyzzyva word graph: its size does not match its node count.")
    nodes = struct.unpack_from(f"<{len(data) // 4 - 1}I", data, 4)
    count = len(nodes)
    if max_bytes is not None and (_spelled_bytes(nodes) or 0) > max_bytes:
        raise _graph_past_the_limit(max_bytes)  # known before a word is spelled
    spelled = 0
    stack: list[tuple[int, str]] = [(1, "")]
    while stack:
        index, prefix = stack.pop()
        while True:
            if not 1 <= index <= count:
                raise ImportRefused(
                    f"Corrupt word graph: a link points to node {index} of {count}."
                )
            node = nodes[index - 1]
            letter = chr(node >> 24)
            if not graph_character(letter):
                raise ImportRefused(f"Corrupt word graph: node {index} holds no letter.")
            word = prefix + letter
            if len(word) > _MAX_GRAPH_DEPTH:
                raise ImportRefused("Corrupt word graph: its links form a loop.")
            if node >> 23 & 1:
                spelled += len(word) + 1
                if max_bytes is not None and spelled > max_bytes:
                    raise _graph_past_the_limit(max_bytes)
                yield word
            child = node & 0x3FFFFF
            if child:
                stack.append((child, word))
            if node >> 22 & 1:
                break
            index += 1


def _spelled_bytes(nodes: tuple[int, ...]) -> int | None:
    """How many bytes the graph's words take one a line, counted without spelling them (each
    sibling list once, children first); None for a graph with a bad link or a loop, which the
    decoder then reports."""
    count = len(nodes)
    sizes: dict[int, tuple[int, int]] = {}  # list start -> (words, letters) below it
    pending, stack = set(), [1]
    while stack:
        start = stack[-1]
        if start in sizes:
            stack.pop()
            continue
        children, index = [], start
        while True:
            if not 1 <= index <= count:
                return None
            child = nodes[index - 1] & 0x3FFFFF
            if child:
                children.append(child)
            if nodes[index - 1] >> 22 & 1:
                break
            index += 1
        waiting = [child for child in children if child not in sizes]
        if waiting:
            if start in pending or any(child in pending for child in waiting):
                return None  # a loop
            pending.add(start)
            stack.extend(waiting)
            continue
        words = letters = 0
        for node in nodes[start - 1 : index]:
            below_words, below_letters = sizes.get(node & 0x3FFFFF, (0, 0))
            through = (node >> 23 & 1) + below_words
            words += through
            letters += through + below_letters
        sizes[start] = (words, letters)
        pending.discard(start)
        stack.pop()
    words, letters = sizes[1]
    return words + letters


def _graph_past_the_limit(max_bytes: int) -> ImportRefused:
    return ImportRefused(
        f"The word graph spells more than {max_bytes // (1024 * 1024):,} MB of words, the "
        "import limit (ADJUDICATOR_IMPORT_LIMIT_MB): nothing was imported. Real word lists are "
        "far smaller; if this one is real, raise the limit."
    )


def import_limit_bytes() -> int:
    """The most a list may hold once decompressed (ADJUDICATOR_IMPORT_LIMIT_MB)."""
    return settings.get_int("import_limit_mb", 1) * 1024 * 1024


def read_limited(path: Path) -> tuple[bytes, str]:
    """The list's bytes (gunzipped if need be, streamed, never past the import limit) and
    the SHA-256 of the file as it is: a gzip bomb stops at the limit, not at MemoryError."""
    with _Source(Path(path)) as source:
        data = source.read()
        source.finish()
    return data, source.sha256


def _past_the_limit(path: Path, limit: int, compressed: bool) -> ImportRefused:
    return ImportRefused(
        f"{path} holds more than {limit // (1024 * 1024):,} MB"
        f"{' once decompressed' if compressed else ''}, the import limit "
        "(ADJUDICATOR_IMPORT_LIMIT_MB): nothing was imported. Real word lists are far "
        "smaller; if this one is real, raise the limit."
    )
