"""Readers: plain text, Zyzzyva text and .dwg; messy input, bad lines with numbers, gzip."""

from __future__ import annotations

import gzip
import hashlib
import struct
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.errors import ImportRefused
from adjudicator.words import importers
from adjudicator.words.alphabet import ENGLISH
from adjudicator.words.alphabet_files import builtin
from adjudicator.words.importers import BadLine, detect_format, read_dwg, read_source

from support.words import encode_dwg

WORDS = ["AA", "QI", "ZA", "CAT", "ZEBRA"]


def _write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


class TestPlainText:
    def test_messy_list_reads_every_word(self, tmp_path):
        data = (
            "\ufeff# a comment line\r\n"
            "zebra\r\n"
            "\r\n"
            "  Cat  \r\n"
            "   # an indented comment\r\n"
            "QI\r\n"
            "qi\r\n"
            "aa\r\n"
            "ZA"  # no final newline
        ).encode("utf-8")
        result = read_source(_write(tmp_path, "messy.txt", data))
        assert result.format == "text"
        assert result.words == [
            "ZEBRA",
            "CAT",
            "QI",
            "QI",
            "AA",
            "ZA",
        ]  # duplicates kept for counting
        assert result.bad_lines == []
        assert result.source_sha256 == hashlib.sha256(data).hexdigest()

    def test_gzip_is_read_transparently(self, tmp_path):
        plain = "\n".join(WORDS).encode()
        path = _write(tmp_path, "list.txt.gz", gzip.compress(plain))
        result = read_source(path)
        assert result.words == WORDS
        assert result.source_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()  # of the file

    def test_bad_lines_are_reported_with_number_and_text(self, tmp_path):
        data = "AA\nQI2\n\nZA\nCO-OP\nCAFÉ\nDON'T\nICE CREAM\nCAT\n".encode()
        result = read_source(_write(tmp_path, "bad.txt", data), "text")
        assert result.words == ["AA", "ZA", "CAT"]
        assert result.bad_lines == [
            BadLine(2, "QI2"),
            BadLine(5, "CO-OP"),
            BadLine(6, "CAFÉ"),
            BadLine(7, "DON'T"),
            BadLine(8, "ICE CREAM"),
        ]
        assert str(result.bad_lines[0]) == "line 2: 'QI2'"

    def test_latin1_file_reports_the_accented_line(self, tmp_path):
        result = read_source(
            _write(tmp_path, "l1.txt", "AA\nNA\u00cfVE\n".encode("latin-1")), "text"
        )
        assert result.words == ["AA"]
        assert result.bad_lines == [BadLine(2, "NA\u00cfVE")]

    def test_a_stray_two_word_line_in_a_plain_list_is_reported_not_truncated(self, tmp_path):
        # Regression: auto-detection took this for Zyzzyva text and silently imported "ICE".
        data = b"CAT\nDOG\nICE CREAM\nBIRD\n"
        result = read_source(_write(tmp_path, "list.txt", data))
        assert result.format == "text"
        assert result.bad_lines == [BadLine(3, "ICE CREAM")]
        assert "ICE" not in result.words

    def test_words_over_fifteen_letters_are_kept(self, tmp_path):
        long_word = "ANTIDISESTABLISHMENTARIANISM"
        result = read_source(_write(tmp_path, "long.txt", f"AA\n{long_word}\n".encode()))
        assert result.words == ["AA", long_word]


class TestZyzzyvaText:
    SAMPLE = (
        b"AA rough, cindery lava [n -S]\nQI vital force [n -S]\nZA pizza [n -S]\n"
        b"CAT\nZEBRA a horse\n"
    )

    def test_words_are_taken_from_the_start_of_each_line(self, tmp_path):
        result = read_source(_write(tmp_path, "owl.txt", self.SAMPLE))
        assert result.format == "zyzzyva"
        assert result.words == ["AA", "QI", "ZA", "CAT", "ZEBRA"]

    def test_forced_format_and_bad_first_word(self, tmp_path):
        data = b"AA lava\nA4 paper size\nqi vital force\n"
        result = read_source(_write(tmp_path, "z.txt", data), "zyzzyva")
        assert result.words == ["AA", "QI"]
        assert result.bad_lines == [BadLine(2, "A4 paper size")]

    def test_a_one_line_file_without_final_newline_is_detected(self, tmp_path):
        # Regression: the last line of the sample was always dropped, so this read as `text`
        # and failed with a bad line.
        result = read_source(_write(tmp_path, "one.txt", b"AA rough, cindery lava [n -S]"))
        assert result.format == "zyzzyva"
        assert result.words == ["AA"]

    def test_gzip(self, tmp_path):
        result = read_source(_write(tmp_path, "owl.txt.gz", gzip.compress(self.SAMPLE)))
        assert (result.format, len(result.words)) == ("zyzzyva", 5)


class TestDwg:
    def test_round_trip_of_an_encoded_graph(self, tmp_path):
        words = ["AA", "AAH", "AB", "QI", "QIS", "ZA", "ZEBRA", "ZEBRAS"]
        result = read_source(_write(tmp_path, "lex.dwg", encode_dwg(words)))
        assert result.format == "dwg"
        assert sorted(result.words) == words

    def test_gzipped_graph(self, tmp_path):
        result = read_source(_write(tmp_path, "lex.dwg.gz", gzip.compress(encode_dwg(WORDS))))
        assert sorted(result.words) == sorted(WORDS)

    def test_forced_dwg_on_a_text_file_is_refused(self, tmp_path):
        with pytest.raises(ImportRefused, match="Not a Zyzzyva word graph"):
            read_source(_write(tmp_path, "list.txt", b"AA\nQI\n"), "dwg")

    def _graph(self, *nodes):
        return struct.pack(f"<I{len(nodes)}I", len(nodes), *nodes)

    def test_link_out_of_range_is_refused(self):
        node = ord("A") << 24 | 1 << 22 | 5  # child points to node 5 of 1
        with pytest.raises(ImportRefused, match="a link points to node 5 of 1"):
            list(read_dwg(self._graph(node)))

    def test_node_without_letter_is_refused(self):
        first = ord("A") << 24 | 1 << 22 | 2
        with pytest.raises(ImportRefused, match="node 2 holds no letter"):
            list(read_dwg(self._graph(first, ord(" ") << 24 | 1 << 23 | 1 << 22)))

    def test_loop_is_refused(self):
        node = ord("A") << 24 | 1 << 23 | 1 << 22 | 1  # its own child
        with pytest.raises(ImportRefused, match="loop"):
            list(read_dwg(self._graph(node)))

    def test_missing_last_sibling_flag_runs_off_the_end(self):
        with pytest.raises(ImportRefused, match="node 2 of 1"):
            list(read_dwg(self._graph(ord("A") << 24 | 1 << 23)))


class TestDetection:
    def test_detects_each_format(self):
        assert detect_format(encode_dwg(WORDS)) == "dwg"
        assert detect_format(b"AA lava\nQI force\n") == "zyzzyva"
        assert detect_format(b"AA\nQI\n") == "text"
        assert detect_format(b"# only a comment\n") == "text"
        assert detect_format(b"") == "text"

    def test_text_whose_size_fits_a_graph_is_not_taken_for_one(self):
        assert detect_format(b"AA\nQI\nZA\n") == "text"  # 9 bytes: not a multiple of 4 anyway
        assert detect_format(b"AAAA\nQI\nZA\n") == "text"


class TestFailures:
    def test_unknown_format(self, tmp_path):
        with pytest.raises(ImportRefused, match="Unknown format 'csv'"):
            read_source(_write(tmp_path, "a.txt", b"AA\n"), "csv")

    def test_missing_file(self, tmp_path):
        with pytest.raises(ImportRefused, match="Cannot read .*nowhere.txt"):
            read_source(tmp_path / "nowhere.txt")

    def test_broken_gzip(self, tmp_path):
        data = gzip.compress(b"AA\nQI\n" * 100)[:30]
        with pytest.raises(ImportRefused, match="looks gzip-compressed but cannot be decompressed"):
            read_source(_write(tmp_path, "cut.txt.gz", data))


# --- lists in other alphabets, streamed a chunk at a time (issue 14) ---------------------------

POLISH, SPANISH, CATALAN = builtin("polish"), builtin("spanish"), builtin("catalan")


class TestAlphabets:
    def test_a_polish_list(self, tmp_path):
        data = "źdźbło\nŻÓŁĆ\nquiz\nkraków\nz\u0301le\n".encode()
        result = read_source(_write(tmp_path, "pl.txt", data), "text", POLISH)
        assert result.words == ["ŹDŹBŁO", "ŻÓŁĆ", "KRAKÓW", "ŹLE"]  # decomposed Ź is Ź (NFC)
        assert result.bad_lines == [BadLine(3, "quiz")]

    def test_capitalised_entries_are_dropped_when_asked(self, tmp_path):
        data = "kot\nKraków\nPKP\nżółw\n# A Comment\n  Warszawa  \nvoltaż\n".encode()
        path = _write(tmp_path, "pl.txt", data)
        result = read_source(path, "text", POLISH, drop_capitalised=True)
        assert result.words == ["KOT", "ŻÓŁW"]
        assert result.capitalised == 3  # Kraków, PKP, Warszawa; the comment is no entry
        assert result.bad_lines == [BadLine(7, "voltaż")]  # V is no Polish tile
        kept = read_source(path, "text", POLISH)
        assert "KRAKÓW" in kept.words and kept.capitalised == 0

    def test_spanish_digraphs_and_folds(self, tmp_path):
        data = "chico\nperro\ncamión\n[c][h]ico\nkilo\nAÑO\n".encode()
        result = read_source(_write(tmp_path, "es.txt", data), "text", SPANISH)
        assert sorted(result.words) == sorted(["[CH]ICO", "PE[RR]O", "CAMION", "CHICO", "AÑO"])
        assert result.bad_lines == [BadLine(5, "kilo")]

    def test_catalan_lone_letters_of_a_tile_are_bad_lines(self, tmp_path):
        data = "cel·la\nqatar\ncel·\ncanya\nyes\nl'home\nqüestió\n".encode()
        result = read_source(_write(tmp_path, "ca.txt", data), "text", CATALAN)
        assert result.words == ["CE[L·L]A", "CA[NY]A", "[QU]ESTIO"]
        assert [bad.number for bad in result.bad_lines] == [2, 3, 5, 6]

    def test_a_zyzzyva_style_list_in_another_alphabet(self, tmp_path):
        data = "źdźbło źdźbło trawy\nżółw zwierzę\n".encode()
        result = read_source(_write(tmp_path, "pl.txt", data), "zyzzyva", POLISH)
        assert result.words == ["ŹDŹBŁO", "ŻÓŁW"]

    def test_a_word_graph_is_checked_against_the_alphabet(self, tmp_path):
        path = _write(tmp_path, "lex.dwg", encode_dwg(["KOT", "QUIZ", "ZEBRA"]))
        result = read_source(path, "auto", POLISH)
        assert sorted(result.words) == ["KOT", "ZEBRA"]
        assert [bad.text for bad in result.bad_lines] == ["QUIZ"]


def _reference(text: str, alphabet) -> tuple[list[str], list[BadLine]]:
    """What a line-by-line reader gives: every line spelled on its own."""
    words, bad = [], []
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            words.append(alphabet.canonical(alphabet.spell(stripped)))
        except ValueError:
            bad.append(BadLine(number, unicodedata.normalize("NFC", stripped)))
    return words, bad


LINE = st.lists(
    st.sampled_from(
        [
            "a",
            "ch",
            "ll",
            "rr",
            "ñ",
            "Ó",
            "á",
            "k",
            "[",
            "]",
            "[ch]",
            " ",
            "#",
            "-",
            "\r",
            "l·l",
            "ny",
            "qu",
            "q",
            "ç",
            "ż",
            "ó",
            "\u0301",
            "é",
        ]
    ),
    max_size=6,
).map("".join)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(LINE, max_size=30), chunk=st.integers(1, 40))
def test_chunked_reading_equals_reading_line_by_line(tmp_path, monkeypatch, lines, chunk):
    """Whatever the chunk size (multi-byte letters cut in two), the fast chunk reader gives
    the words and the bad lines a line-by-line reader gives, in every alphabet."""
    monkeypatch.setattr(importers, "_CHUNK", chunk)
    monkeypatch.setattr(importers, "_HEAD", chunk)
    text = "\n".join(lines)
    path = _write(tmp_path, "list.txt", text.encode())
    for alphabet in (ENGLISH, POLISH, SPANISH, CATALAN):
        result = read_source(path, "text", alphabet)
        words, bad = _reference(text, alphabet)
        assert sorted(result.words) == sorted(words), alphabet.name
        assert result.bad_lines == bad, alphabet.name


def test_a_latin1_byte_after_the_first_chunk_is_a_bad_line(tmp_path, monkeypatch):
    monkeypatch.setattr(importers, "_CHUNK", 8)
    monkeypatch.setattr(importers, "_HEAD", 8)
    data = b"AA\nQI\nZA\nCAT\nNA\xcfVE\nDOG\n"
    result = read_source(_write(tmp_path, "l1.txt", data), "text")
    assert result.words == ["AA", "QI", "ZA", "CAT", "DOG"]
    assert result.bad_lines == [BadLine(5, "NA\u00cfVE")]
    assert result.encoding == "latin-1"


def test_a_large_gzipped_word_graph_is_detected_by_its_trailer(tmp_path, monkeypatch):
    monkeypatch.setattr(importers, "_HEAD", 4096)
    words = sorted({a + b + c for a in "ABCDEFGHIJKLMNOP" for b in "AEIOU" for c in "RSTLNMDK"})
    words += [w + "S" for w in words] + [w + "ED" for w in words]
    graph = encode_dwg(words)
    assert len(graph) > importers._HEAD  # detection cannot see the whole graph at first
    for name, data in (("big.dwg", graph), ("big.dwg.gz", gzip.compress(graph))):
        result = read_source(_write(tmp_path, name, data))
        assert result.format == "dwg" and sorted(result.words) == sorted(words)


def test_a_large_text_list_is_not_taken_for_a_graph(tmp_path):
    data = ("AAHED\n" * 20000).encode()  # its first bytes could start a graph header
    for name, content in (("big.txt", data), ("big.txt.gz", gzip.compress(data))):
        result = read_source(_write(tmp_path, name, content))
        assert result.format == "text" and len(result.words) == 20000


def test_a_gzip_file_cut_short_after_the_first_chunk_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(importers, "_CHUNK", 64)
    data = gzip.compress(("".join(f"W{i:06d}\n" for i in range(20000))).encode())
    with pytest.raises(ImportRefused, match="cannot be decompressed"):
        read_source(_write(tmp_path, "cut.txt.gz", data[: len(data) // 2]))


def test_a_huge_bad_line_is_reported_short(tmp_path):
    data = b"AA\n" + b"B" * 5_000_000 + b"?\nQI\n"
    result = read_source(_write(tmp_path, "huge.txt", data), "text")
    assert result.words == ["AA", "QI"]
    (bad,) = result.bad_lines
    assert bad.number == 2 and bad.text == "B" * 200 + "..."
