"""Readers for the word lists tournament directors have: plain text, Zyzzyva text, Zyzzyva .dwg.

Each reader streams its input and yields words; a line that is not a word is collected as a
BadLine with its number and text. The builder (store.py) is separate from these readers.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from adjudicator import settings
from adjudicator.errors import ImportRefused

FORMATS = ("auto", "text", "zyzzyva", "dwg")
_WORD = re.compile(r"[A-Za-z]+")
_GZIP_MAGIC = b"\x1f\x8b"
_MAX_GRAPH_DEPTH = 64  # longer than any word in any dictionary: a loop in a corrupt graph


@dataclass(frozen=True)
class BadLine:
    number: int
    text: str

    def __str__(self) -> str:
        return f"line {self.number}: {self.text!r}"


@dataclass
class ReadResult:
    """What a reader found: the words, the lines it could not read, the source's checksum."""

    words: list[str]
    format: str
    source_sha256: str
    bad_lines: list[BadLine] = field(default_factory=list)


def read_source(path: Path, fmt: str = "auto") -> ReadResult:
    """Read a word list file (gzip or not) in `fmt`, detecting the format for `auto`."""
    if fmt not in FORMATS:
        raise ImportRefused(f"Unknown format {fmt!r}: choose one of {', '.join(FORMATS)}.")
    data, source_sha256 = read_limited(Path(path))
    if fmt == "auto":
        fmt = detect_format(data)
    if fmt == "dwg":
        words = list(read_dwg(data))
        return ReadResult(words, fmt, source_sha256)
    text = _decode(data, path)
    reader = read_zyzzyva_text if fmt == "zyzzyva" else read_text
    result = ReadResult([], fmt, source_sha256)
    for number, word, bad in reader(text):
        if bad:
            result.bad_lines.append(BadLine(number, word))
        else:
            result.words.append(word)
    return result


def detect_format(data: bytes) -> str:
    """`dwg` for a word graph, `zyzzyva` when lines carry definitions, else `text`."""
    if looks_like_dwg(data):
        return "dwg"
    sample = data[:65536].decode("utf-8", errors="replace").splitlines()
    if len(data) > 65536:
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
    return 65 <= first >> 24 <= 90


def read_text(text: str) -> Iterator[tuple[int, str, bool]]:
    """Plain list: one word a line; blank lines and `#` comments skipped; any case."""
    for number, line in enumerate(io.StringIO(text), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if _WORD.fullmatch(stripped):
            yield number, stripped.upper(), False
        else:
            yield number, stripped, True


def read_zyzzyva_text(text: str) -> Iterator[tuple[int, str, bool]]:
    """Zyzzyva text: the word, then optionally a space and a definition."""
    for number, line in enumerate(io.StringIO(text), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        word = stripped.split(None, 1)[0]
        if _WORD.fullmatch(word):
            yield number, word.upper(), False
        else:
            yield number, stripped, True


def read_dwg(data: bytes) -> Iterator[str]:
    """Decode a Zyzzyva word graph (format in shared/lexicons/README.md) into its words."""
    if not looks_like_dwg(data):
        raise ImportRefused("Not a Zyzzyva word graph: its size does not match its node count.")
    nodes = struct.unpack_from(f"<{len(data) // 4 - 1}I", data, 4)
    count = len(nodes)
    stack: list[tuple[int, str]] = [(1, "")]
    while stack:
        index, prefix = stack.pop()
        while True:
            if not 1 <= index <= count:
                raise ImportRefused(
                    f"Corrupt word graph: a link points to node {index} of {count}."
                )
            node = nodes[index - 1]
            letter = node >> 24
            if not 65 <= letter <= 90:
                raise ImportRefused(f"Corrupt word graph: node {index} holds no letter A-Z.")
            word = prefix + chr(letter)
            if len(word) > _MAX_GRAPH_DEPTH:
                raise ImportRefused("Corrupt word graph: its links form a loop.")
            if node >> 23 & 1:
                yield word
            child = node & 0x3FFFFF
            if child:
                stack.append((child, word))
            if node >> 22 & 1:
                break
            index += 1


def import_limit_bytes() -> int:
    """The most a list may hold once decompressed (ADJUDICATOR_IMPORT_LIMIT_MB)."""
    return settings.get_int("import_limit_mb", 1) * 1024 * 1024


def read_limited(path: Path) -> tuple[bytes, str]:
    """The list's bytes (gunzipped if need be, streamed, never past the import limit) and
    the SHA-256 of the file as it is: a gzip bomb stops at the limit, not at MemoryError."""
    limit = import_limit_bytes()
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as source:
            for chunk in iter(lambda: source.read(1 << 20), b""):
                digest.update(chunk)
            source.seek(0)
            compressed = source.read(2) == _GZIP_MAGIC
            source.seek(0)
            stream = gzip.GzipFile(fileobj=source, mode="rb") if compressed else source
            data = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise ImportRefused(f"Cannot read {path}: {exc.strerror or exc}.") from None
        raise ImportRefused(
            f"{path} looks gzip-compressed but cannot be decompressed: {exc}."
        ) from None
    if len(data) > limit:
        raise ImportRefused(
            f"{path} holds more than {limit // (1024 * 1024):,} MB"
            f"{' once decompressed' if compressed else ''}, the import limit "
            "(ADJUDICATOR_IMPORT_LIMIT_MB): nothing was imported. Real word lists are far "
            "smaller; if this one is real, raise the limit."
        )
    return data, digest.hexdigest()


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Latin-1 decodes any byte, so a stray accented letter shows up as a bad line.
        return data.decode("latin-1")
