"""A player walks off with a copy of the hall's files: the data home, the mirror's stick and the
backups, taken while a real `adjudicator serve` judged and was then killed (its WAL left as a
crash leaves it). No file holds the SHA-256 of any code ever printed, in hex or raw: there is
nothing to test guesses against offline. And every journal file was mode 600 under umask 022,
so another user of the laptop could not have copied it in the first place."""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

import pytest

from support.servers import Server, cli, prepare_home

pytestmark = pytest.mark.slow  # real servers and CLI processes


def printed_codes(sheet: Path) -> list[str]:
    return re.findall(r'<p class="code">([A-Z0-9]+)</p>', sheet.read_text())


def test_a_copy_of_the_home_the_mirror_and_the_backups_holds_no_printed_codes_sha256(
    tmp_path, monkeypatch
):
    before = os.umask(0o022)
    try:
        stick = tmp_path / "stick"
        stick.mkdir()
        env = {"ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal-mirror.sqlite3")}
        home = prepare_home(tmp_path / "home", env=env)  # kiosk k1, with a code by hand
        codes = [home.pairing_code]
        server = Server(home, workers=2).start()
        try:
            for n, tables in enumerate(("1-6", "1-2")):  # the second replaces two codes
                sheet = tmp_path / f"sheet-{n}.html"  # printed, never in the data home
                argv = ("kiosk", "sheet", "-t", "hall", "--tables", tables, "-o", str(sheet))
                cli(home.path, *argv, env=env)
                codes += printed_codes(sheet)
            for words in (["QI"], ["ZA", "QI"], ["XX"]):
                assert server.adjudicate(words)[0] == 201
            cli(home.path, "journal", "backup", str(home.path / "backup.sqlite3"), env=env)
            cli(home.path, "journal", "backup", str(stick / "backup.sqlite3"), env=env)
        finally:
            server.kill()  # SIGKILL: the WAL stays as it is
        assert len(set(codes)) == 9
        files = [p for folder in (home.path, stick) for p in folder.rglob("*") if p.is_file()]
        names = {p.name for p in files}
        assert {"journal.sqlite3-wal", "journal-mirror.sqlite3-wal"} <= names, names
        held = {path: path.read_bytes() for path in files}
        for code in codes:
            digest = hashlib.sha256(code.encode())
            for needle in (
                digest.hexdigest().encode(),
                digest.hexdigest().upper().encode(),
                digest.digest(),
                code.encode(),  # nor the code itself
            ):
                found = [str(path) for path, data in held.items() if needle in data]
                assert not found, f"{code}: {needle!r} is in {found}"

        # The codes are there, keyed: the search above looks where they are kept.
        monkeypatch.setenv("ADJUDICATOR_HOME", str(home.path))
        from adjudicator.hall.pairing_key import code_hash

        unused = codes[3:]  # k1's, tables 3-6 of the first sheet, and the second sheet's
        keyed = [c for c in unused if any(code_hash(c).encode() in d for d in held.values())]
        assert len(keyed) >= 4, "no pairing code's keyed hash was found in the journal"

        journal_files = [
            p
            for p in files
            if p.name.startswith(("journal.sqlite3", "journal-mirror.sqlite3", "backup.sqlite3"))
        ]
        assert len(journal_files) >= 10, sorted(p.name for p in journal_files)
        modes = {str(p): oct(stat.S_IMODE(p.stat().st_mode)) for p in journal_files}
        assert modes == {str(p): "0o600" for p in journal_files}
    finally:
        os.umask(before)
