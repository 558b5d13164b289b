"""The hall's CA fingerprint has one format everywhere (issue 44): `hall --fingerprint`,
`kit seal`, `kit open`, `kiosk sheet` and the hall's start print the eight groups of four pairs,
on two lines, that the sheet, the trust page and the overview show (hall_tls.fingerprint_block),
never the 95-character string that a tablet's screen cannot be compared with group by group."""

from __future__ import annotations

import re

import pytest

from adjudicator.hall.network import hall_tls

from support.kit import PASSPHRASE

RAW = re.compile(r"(?:[0-9A-F]{2}:){31}[0-9A-F]{2}")  # AB:CD:...: 32 pairs in one string
GROUPED = re.compile(r"^  (?:[0-9A-F]{2}(?::[0-9A-F]{2}){3} ){3}[0-9A-F]{2}(?::[0-9A-F]{2}){3}$")


def assert_grouped(said: str, fingerprint: str) -> None:
    """`said` shows `fingerprint` as the block every command prints, and never in one piece."""
    assert not RAW.search(said), f"a fingerprint printed in one piece:\n{said}"
    assert hall_tls.fingerprint_block(fingerprint) in said, said


def test_the_block_is_a_heading_and_two_lines_of_four_groups_of_four_pairs():
    fingerprint = ":".join(f"{n:02X}" for n in range(32))
    heading, *lines = hall_tls.fingerprint_block(fingerprint).splitlines()
    assert heading == "The hall's CA fingerprint (SHA-256):"
    assert lines == ["  00:01:02:03 04:05:06:07 08:09:0A:0B 0C:0D:0E:0F",
                     "  10:11:12:13 14:15:16:17 18:19:1A:1B 1C:1D:1E:1F"]  # fmt: skip
    assert all(GROUPED.match(line) for line in lines)


def test_hall_fingerprint_prints_the_groups(run, home):
    said = run("hall", "--fingerprint")
    assert said.exit_code == 0, said.stderr
    assert not RAW.search(said.stdout), said.stdout
    lines = hall_tls.fingerprint_lines(hall_tls.read_ca_fingerprint())
    assert said.stdout == "\n".join(lines) + "\n"  # the groups alone, for a script to compare


def test_kiosk_sheet_prints_the_groups(run, home, tiny, tmp_path, monkeypatch):
    fingerprint, _ = hall_tls.ensure_ca("hall")
    assert run("tournament", "create", "t", "--lexicon", "TINY", "--rule", "single").exit_code == 0
    monkeypatch.chdir(tmp_path)
    said = run("kiosk", "sheet", "--tournament", "t", "--tables", "1-2")
    assert said.exit_code == 0, said.stderr
    assert not RAW.search(said.stdout)
    for line in hall_tls.fingerprint_lines(fingerprint):
        assert f"\n  {line}\n" in said.stdout


@pytest.mark.slow  # a seal and an open each derive a key over 256 MiB (Argon2id)
def test_kit_seal_and_kit_open_print_the_groups(run, home, tiny, tmp_path, monkeypatch):
    stick = tmp_path / "stick"
    stick.mkdir()
    monkeypatch.setenv("ADJUDICATOR_JOURNAL_MIRROR", str(stick / "journal.sqlite3"))
    created = run("tournament", "create", "hall", "--lexicon", "TINY", "--rule", "single")
    assert created.exit_code == 0, created.stderr
    assert run("judge", "--tournament", "hall", "QI").exit_code == 0
    fingerprint, _ = hall_tls.ensure_ca("hall")
    sealed = run("kit", "seal", str(stick), "--passphrase-stdin", input=PASSPHRASE + "\n")
    assert sealed.exit_code == 0, sealed.stderr
    assert_grouped(sealed.stdout, fingerprint)
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "laptop-b"))
    opened = run("kit", "open", str(stick), "--passphrase-stdin", input=PASSPHRASE + "\n")
    assert opened.exit_code == 0, opened.stderr
    assert_grouped(opened.stdout, fingerprint)
