"""TSH's own event folder: config.tsh and one .t file per division, read as TSH reads them
(support.tsh_files writes them as TFile::FormatLine and TSH's documentation do)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.hall.tsh import config_tsh, event, event_folder, tfile, tourney_js
from adjudicator.hall.tsh.event import TshError

from support import tsh_files


def test_a_folder_reads_as_the_same_event_as_its_tourney_js(tmp_path):
    made = tsh_files.make_event(
        {"A": 7, "B": 6}, 4, 2, tables={"A": [1, 2, 3], "B": [4, 5, 6]}, xt=True
    )
    folder = tsh_files.write_folder(tmp_path / "event", made)
    from_folder = event_folder.read(folder)
    from_js = tourney_js.read(tsh_files.tourney_js(made))
    assert from_folder.name == from_js.name == "Spring Open"
    for mine, theirs in zip(from_folder.divisions, from_js.divisions, strict=True):
        assert event.games(mine) == event.games(theirs)
        assert [p.name for p in mine.players] == [p.name for p in theirs.players]
        assert mine.tables == theirs.tables


def test_t_file_lines_as_tfile_reads_them():
    data = (
        "\ufeff# a comment line\r\n"
        "Lee, Ann               1500 2 0 00; 400 50; board 1 0; p12 1 0; note a\\;b\\\\c\r\n"
        "\r\n"
        "  Park, Ben:XT001234     1400+2 1 3 4; 350 -50 ; p12 2 1 2 ; board 1 2 2\n"
        "Novak, Cleo 2,   0 00 2; ; board 00 2\n"
        "Ueda, Dev 1 0 00 2\n"
    ).encode("utf-8")
    division = tfile.read(data, "A", "a.t", "utf-8")
    lee, park, novak, ueda = division.players
    assert (lee.number, lee.name, lee.pairings, lee.scored) == (
        1,
        "Lee, Ann",
        (2, 0, None),
        (True, True),
    )
    assert (park.name, park.xtid, park.pairings) == ("Park, Ben", "XT001234", (1, 3, 4))
    assert park.boards == (1, 2, 2) and park.p12 == (2, 1, 2)
    assert (novak.name, novak.pairings, novak.boards) == ("Novak, Cleo 2", (None, 2), (None, 2))
    assert ueda.pairings == (0, None, 2) and ueda.scored == ()


def test_t_files_are_latin_1_unless_tsh_is_told_otherwise(tmp_path):
    made = tsh_files.make_event({"A": 2}, 1, 0, names={"A": ["Müller, Jürgen", "Çelik, Ayşe"]})
    folder = tmp_path / "event"
    folder.mkdir()
    (folder / "config.tsh").write_text("division a a.t\nconfig realm = 'pol'\n")
    (folder / "a.t").write_bytes(tsh_files.t_file(made["divisions"][0]["players"][1:], "utf-8"))
    assert event_folder.read(folder).divisions[0].players[1].name == "Çelik, Ayşe"
    (folder / "config.tsh").write_text("division a a.t\n")
    (folder / "a.t").write_bytes("Müller, Jürgen 1500 2;\nSmith, Al 1400 1;\n".encode("latin-1"))
    assert event_folder.read(folder).divisions[0].players[0].name == "Müller, Jürgen"


def test_config_tsh_as_tsh_reads_it():
    config = config_tsh.read(
        b"\xef\xbb\xbf# tsh configuration file\n"
        b"encoding utf8\n"
        b"division a a.t\n"
        b"Division B  b.t\n"
        b"config event_name = 'Open \\'24';\n"
        b"config max_rounds = 7\n"
        b"config tables{'a'} = [1..3, 7]\n"
        b"config tables{B} = [ 'X1', \"X2\" ]\n"
        b"config player_photos = 1\n"
        b"config prize_bands = {'A' => [1, 2]}\n"
        b"perl $config'reserved{'A'}[13] = 4;\n"
        b"autopair A 1 2 rr 1\n"
        b"prize rank 1 A 100\n"
    )
    assert config.divisions == [("A", "a.t"), ("B", "b.t")]
    assert config.options["event_name"] == "Open '24"
    assert config.options["tables"] == {"A": [1, 2, 3, 7], "B": ["X1", "X2"]}
    assert config_tsh.division_tables(config, {"A": 8, "B": 4}) == {
        "A": [1, 2, 3, 7],
        "B": ["X1", "X2"],
    }


def test_consecutive_tables_are_numbered_across_divisions_as_tsh_does():
    config = config_tsh.read(
        b"division b b.t\ndivision a a.t\nconfig table_method = 'consecutive'\n"
    )
    assert config_tsh.division_tables(config, {"A": 6, "B": 5}) == {
        "A": [1, 2, 3, 4],  # int(6/2)+1 tables from 1 (TSH::Config::AssignTables)
        "B": [4, 5, 6],  # from where A's boards left off
    }


def test_an_archive_carries_its_t_files_inside_config_tsh(tmp_path):
    folder = tmp_path / "archive"
    folder.mkdir()
    (folder / "config.tsh").write_text(
        "division a a.t\n#begin_file name=a.t\nLee, Ann 1500 2; 400\nXu, Wei 1400 1; 380\n"
        "#end_file name=a.t\n"
    )
    division = event_folder.read(folder).divisions[0]
    assert [p.name for p in division.players] == ["Lee, Ann", "Xu, Wei"]
    assert event_folder.files(folder) == [folder / "config.tsh"]


@pytest.mark.parametrize(
    "config, t_file, says",
    [
        ("division a a.t\nthis is not tsh\n", "", "not a line TSH reads"),
        ("config event_name = 'x'\n", "", "names no division"),
        ("division a ../../outside.t\n", "", "outside the event folder"),
        ("division a missing.t\n", "", "missing"),
        ("division a a.t\n", "Lee Ann no rating here\n", "not a TSH player line"),
        (
            "division a a.t\nconfig tables = { 'A' => system('rm') }\n",
            "Lee, A 1 0;",
            "cannot read .*system",
        ),
        ("division a a.t\nconfig tables = [1..999999999]\n", "Lee, A 1 0;", "too long"),
    ],
)
def test_a_folder_tsh_would_not_read_is_refused_saying_why(tmp_path, config, t_file, says):
    folder = tmp_path / "event"
    folder.mkdir()
    (folder / "config.tsh").write_text(config)
    (folder / "a.t").write_text(t_file)
    with pytest.raises(TshError, match=says):
        event_folder.read(folder)


def test_a_folder_without_config_tsh_says_what_to_link(tmp_path):
    with pytest.raises(TshError, match="neither config.tsh nor tsh.config"):
        event_folder.read(tmp_path)


def test_the_file_list_is_read_again_only_when_config_tsh_changed(tmp_path, monkeypatch):
    folder = tsh_files.write_folder(tmp_path / "event", tsh_files.make_event({"A": 4}, 1, 0))
    parsed = []
    real_read = config_tsh.read

    def counting_read(data, name="config.tsh"):
        parsed.append(name)
        return real_read(data, name)

    monkeypatch.setattr(config_tsh, "read", counting_read)
    first = event_folder.files(folder)
    assert event_folder.files(folder) == first == [folder / "config.tsh", folder / "a.t"]
    assert len(parsed) == 1  # the second look is a stat
    config = folder / "config.tsh"
    config.write_bytes(config.read_bytes() + b"division b b.t\n")
    assert event_folder.files(folder) == first + [folder / "b.t"]
    assert len(parsed) == 2


# TFile.pm's line pattern as TSH writes it: tfile reads lines as it does, in one pass.
TFILE_PATTERN = re.compile(r"^(.+?\S)\s+(\d+(?:[.+]\d+)*)\s*([\d\s]*);\s*([-\d\s]*)((?:;[^;]*)*)$")


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="ab ;.+-12\t,\\", max_size=40))
def test_a_line_is_split_as_tfile_pm_splits_it(line):
    found = TFILE_PATTERN.match(line)
    fields = tfile._fields(line)
    if found is None:
        assert fields is None
    else:
        name, _rating, pairings, scores, extras = found.groups()
        assert fields is not None
        assert (fields[0], fields[1].split(), fields[2].split(), fields[3]) == (
            name,
            pairings.split(),
            scores.split(),
            extras,
        )


def test_a_long_malformed_line_is_refused_at_once_saying_which(tmp_path):
    """TFile.pm's pattern, tried at each end of the name, took seconds on such a line (0.6 s
    for 4,000 numbers, growing with the square): the hall reads it in one pass."""
    line = "Lee, Ann " + "1 " * 20_000 + "x; 400\n"
    with pytest.raises(TshError, match=r"a.t, line 2 is not a TSH player line"):
        tfile.read(b"Xu, Wei 1400 0; 380\n" + line.encode(), "A", "a.t")
