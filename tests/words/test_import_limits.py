"""Imports read through a limited reader: a list that decompresses past the import limit
(ADJUDICATOR_IMPORT_LIMIT_MB) is refused with a message, never a MemoryError; so is a damaged
gzip stream, and a recipe's add or remove list."""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import pytest

from adjudicator.errors import ImportRefused
from adjudicator.words.importers import read_limited, read_source

from support.hall import refused
from support.paths import SHARED_LEXICONS


def bomb(path: Path, megabytes: int) -> Path:
    path.write_bytes(gzip.compress(b"\n" * (1024 * 1024), 9) * megabytes)
    return path


def test_a_gzip_bomb_stops_at_the_limit_with_exit_2(run, store, tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_IMPORT_LIMIT_MB", "4")
    source = bomb(tmp_path / "words.txt.gz", 5)
    assert source.stat().st_size < 64 * 1024
    refused(
        run("lexicon", "import", str(source), "--name", "BOMB"),
        "holds more than 4 MB once decompressed",
        "ADJUDICATOR_IMPORT_LIMIT_MB",
        "nothing was imported",
    )
    assert not store.exists("BOMB")


def test_a_plain_file_past_the_limit_is_refused_too(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_IMPORT_LIMIT_MB", "1")
    source = tmp_path / "words.txt"
    source.write_bytes(b"QI\n" * (400 * 1024))
    with pytest.raises(ImportRefused, match="holds more than 1 MB, the import limit"):
        read_limited(source)


def test_a_list_at_the_limit_is_read_whole_with_the_files_checksum(tmp_path, monkeypatch):
    import hashlib

    monkeypatch.setenv("ADJUDICATOR_IMPORT_LIMIT_MB", "4")
    source = bomb(tmp_path / "words.txt.gz", 4)
    data, sha = read_limited(source)
    assert data == b"\n" * (4 * 1024 * 1024)
    assert sha == hashlib.sha256(source.read_bytes()).hexdigest()


def test_damaged_gzip_data_is_refused_cleanly(tmp_path):
    good = gzip.compress(b"QI\nZA\n" * 1000)
    damaged = tmp_path / "damaged.txt.gz"
    damaged.write_bytes(good[:20] + bytes(b ^ 0x55 for b in good[20:40]) + good[40:])
    with pytest.raises(ImportRefused, match="looks gzip-compressed but cannot be decompressed"):
        read_limited(damaged)


def test_a_recipes_add_list_is_limited_too(run, tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_IMPORT_LIMIT_MB", "2")
    bomb(tmp_path / "add.txt.gz", 3)
    recipe = tmp_path / "r.toml"
    recipe.write_text('name = "R"\nsources = ["TINY"]\nadd = ["add.txt.gz"]\n')
    refused(run("lexicon", "import", "--recipe", str(recipe)), "holds more than 2 MB")


def graph_bomb(path: Path, levels: int) -> Path:
    """A word graph of `levels` rows of A-Z, each letter a word's end and each row linked to
    the next: 26**levels words from 26 * levels nodes (a graph shares its suffixes)."""
    nodes = []
    for level in range(levels):
        child = 26 * (level + 1) + 1 if level < levels - 1 else 0
        for letter in range(26):
            last = 1 << 22 if letter == 25 else 0
            nodes.append((65 + letter) << 24 | 1 << 23 | last | child)
    path.write_bytes(struct.pack(f"<I{len(nodes)}I", len(nodes), *nodes))
    return path


def test_a_word_graph_that_spells_past_the_limit_is_refused(run, store, tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_IMPORT_LIMIT_MB", "1")
    source = graph_bomb(tmp_path / "bomb.dwg", 7)  # 8 billion words from 728 bytes
    assert source.stat().st_size < 1024
    with pytest.raises(ImportRefused, match="spells more than 1 MB of words, the import limit"):
        read_source(source)
    refused(
        run("lexicon", "import", str(source), "--name", "GRAPH"),
        "ADJUDICATOR_IMPORT_LIMIT_MB",
        "nothing was imported",
    )
    assert not store.exists("GRAPH")
    small = read_source(graph_bomb(tmp_path / "small.dwg", 2))  # 26 + 676 words: well under
    assert len(small.words) == 26 + 26 * 26 and "QI" in small.words


def test_a_real_graph_is_measured_exactly_against_the_limit(tmp_path, monkeypatch):
    """CSW21.dwg (0.76 MB) spells 2,820,775 bytes of words, one a line (CSW21.txt's size)."""
    graph = SHARED_LEXICONS / "dwg" / "CSW21.dwg"
    if not graph.exists():
        pytest.skip(f"real word graphs not found in {graph.parent}")
    monkeypatch.setenv("ADJUDICATOR_IMPORT_LIMIT_MB", "2")
    with pytest.raises(ImportRefused, match="spells more than 2 MB of words"):
        read_source(graph)
    monkeypatch.setenv("ADJUDICATOR_IMPORT_LIMIT_MB", "3")
    words = read_source(graph).words
    assert sum(len(word) + 1 for word in words) == (SHARED_LEXICONS / "CSW21.txt").stat().st_size


def test_a_list_past_the_limit_is_refused_before_a_line_is_read(tmp_path, monkeypatch):
    """Gzip by one C-speed pass, a plain file by its size: no line of a bomb is read."""
    from adjudicator.words.word_lines import WordLines

    def no_line_may_be_read(self, text):
        raise AssertionError("a line of a list past the limit was read")

    monkeypatch.setenv("ADJUDICATOR_IMPORT_LIMIT_MB", "4")
    monkeypatch.setattr(WordLines, "feed", no_line_may_be_read)
    plain = tmp_path / "big.txt"
    plain.write_bytes(b"QI\n" * (2 * 1024 * 1024))  # 6 MB
    for source in (bomb(tmp_path / "words.txt.gz", 5), plain):
        with pytest.raises(ImportRefused, match="holds more than 4 MB"):
            read_source(source)


def test_the_import_child_never_imports_a_folder_named_like_the_program(
    store, tmp_path, monkeypatch
):
    """A folder named `adjudicator` in the server's working folder (a checkout, a hostile
    upload) is never run instead of the program by the web import's child (`-P`)."""
    from adjudicator.words.import_job import import_isolated

    fake = tmp_path / "cwd" / "adjudicator" / "words"
    fake.mkdir(parents=True)
    for folder in (fake.parent, fake):
        (folder / "__init__.py").write_text("")
    (fake / "import_job.py").write_text('print(\'{"ok": true, "report": "NOT THE PROGRAM"}\')\n')
    listed = tmp_path / "list.txt"
    listed.write_text("QI\nZA\n")
    monkeypatch.chdir(tmp_path / "cwd")
    report = import_isolated(store.root, listed, "TWO")
    assert "NOT THE PROGRAM" not in report and store.manifest("TWO").words == 2
