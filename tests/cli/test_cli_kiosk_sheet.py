"""`adjudicator kiosk sheet` in-process: the file it writes, what it says, and its refusals
(exit 2, a message saying what to type, nothing written)."""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta

import pytest

from adjudicator.hall import kiosks


@pytest.fixture
def tournament(run, tiny, monkeypatch, tmp_path):
    monkeypatch.delenv("ADJUDICATOR_PUBLIC_URL", raising=False)
    monkeypatch.delenv("ADJUDICATOR_BIND", raising=False)
    monkeypatch.chdir(tmp_path)
    created = run("tournament", "create", "open", "--lexicon", "TINY", "--rule", "double")
    assert created.exit_code == 0, created.stderr
    return "open"


def test_the_sheet_is_written_here_by_default_and_says_it_is_not_https(run, tournament, tmp_path):
    done = run("kiosk", "sheet", "--tournament", tournament, "--tables", "1-3,5")
    assert done.exit_code == 0, done.stderr
    path = tmp_path / "pairing-sheet-open.html"
    assert f"Wrote {path.name}: 4 table(s) of open (4 kiosk(s) enrolled, 0 given a new code)" in (
        done.stdout
    )
    assert "not HTTPS" in done.stdout and "adjudicator hall" in done.stdout
    assert os.stat(path).st_mode & 0o777 == 0o600
    page = path.read_text()
    assert re.findall(r'id="table-(\d+)"', page) == ["1", "2", "3", "5"]
    listed = run("kiosk", "list").stdout
    assert "open table 5" in listed and "not paired" in listed
    again = run("kiosk", "sheet", "--tournament", tournament, "--tables", "5-6", "-o", "b.html")
    assert "(1 kiosk(s) enrolled, 1 given a new code)" in again.stdout
    pair = run("kiosk", "pair", "open table 5")
    assert "until" in pair.stdout and "UTC" in pair.stdout  # a code by hand: 24 hours


def _expiry_shown(page: str) -> datetime:
    """The one expiry time every card of a sheet prints (the hall's local time)."""
    shown = set(re.findall(r'<p class="expires">Valid until (\d{4}-\d\d-\d\d \d\d:\d\d) ', page))
    assert len(shown) == 1, shown
    return datetime.strptime(shown.pop(), "%Y-%m-%d %H:%M").astimezone()


@pytest.mark.parametrize("hours", [None, "1", "720"])
def test_each_card_prints_when_its_code_expires(run, tournament, tmp_path, hours):
    before = datetime.now().astimezone().replace(second=0, microsecond=0)
    argv = ["kiosk", "sheet", "--tournament", tournament, "--tables", "1-5"]
    if hours:
        argv += ["--valid-hours", hours]
    done = run(*argv)
    assert done.exit_code == 0, done.stderr
    page = (tmp_path / "pairing-sheet-open.html").read_text()
    assert page.count('<p class="expires">') == 5
    expected = before + timedelta(hours=int(hours or 72))
    assert expected <= _expiry_shown(page) <= expected + timedelta(minutes=2)
    said = _expiry_shown(page).strftime("%Y-%m-%d %H:%M")
    assert f"Each code pairs once, until {said} (this computer's clock)." in done.stdout
    assert "No hall certificate yet: the sheet has no fingerprint to compare." in done.stdout
    assert page.count("No hall certificate yet, so no fingerprint to compare") == 2  # 2 pages


@pytest.mark.parametrize(
    "hours", ["0", "-1", "-72", "721", "100000000000000000000", "1.5", "x", ""]
)
def test_valid_hours_out_of_range_are_refused_with_what_to_type(run, tournament, tmp_path, hours):
    done = run(
        "kiosk", "sheet", "--tournament", tournament, "--tables", "1-2", "--valid-hours", hours
    )
    if hours == "":  # empty: the default, 72
        assert done.exit_code == 0, done.stderr
        return
    assert done.exit_code == 2, done.stdout
    assert "a sheet's codes last from 1 to 720 whole hours (30 days), such as 72" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.glob("*.html"))
    assert "open table 1" not in run("kiosk", "list").stdout  # nothing enrolled


def test_the_sheet_shows_the_hall_certificates_fingerprint(run, tournament, tmp_path):
    from adjudicator.hall import sheet_page
    from adjudicator.hall.network import hall_tls

    made = hall_tls.ensure("club", ["192.168.1.20"])
    done = run("kiosk", "sheet", "--tournament", tournament, "--tables", "1-9")
    assert done.exit_code == 0, done.stderr
    # printed as the sheet shows it: two lines of four groups of four pairs (issue 36, item 4)
    lines = hall_tls.fingerprint_lines(made.ca_fingerprint)
    assert "fingerprint (SHA-256):\n" + "".join(f"  {line}\n" for line in lines) in done.stdout
    assert [len(line.split(" ")) for line in lines] == [4, 4]
    assert all(re.fullmatch(r"([0-9A-F]{2}:){3}[0-9A-F]{2}", g) for g in " ".join(lines).split())
    assert " ".join(lines).replace(" ", ":") == made.ca_fingerprint
    page = (tmp_path / "pairing-sheet-open.html").read_text()
    shown = sheet_page.fingerprint_html(made.ca_fingerprint)
    assert page.count(f"<code>{shown}</code>") == 3  # each of the 3 pages
    assert re.fullmatch(r"([0-9A-F]{2}:){31}[0-9A-F]{2}", made.ca_fingerprint)


def test_a_moved_kiosks_card_no_longer_pairs(run, tournament, tmp_path, home):
    from adjudicator.hall.hall import Hall

    created = run("tournament", "create", "autumn", "--lexicon", "TINY", "--rule", "double")
    assert created.exit_code == 0, created.stderr
    assert run("kiosk", "sheet", "--tournament", tournament, "--tables", "1-2").exit_code == 0
    codes = re.findall(
        r'<p class="code">([A-Z0-9]+)</p>', (tmp_path / "pairing-sheet-open.html").read_text()
    )
    moved = run("kiosk", "move", "open table 1", "--tournament", "autumn")
    assert moved.exit_code == 0, moved.stderr
    assert "Its pairing code and paired screens no longer work: pair it again" in moved.stdout
    again = run("kiosk", "move", "open table 1", "--tournament", "autumn")
    assert again.exit_code == 2 and "already judges for autumn" in again.stderr
    revoked = run("kiosk", "revoke", "open table 2")
    assert "pairing code and paired screens no longer work" in revoked.stdout
    hall = Hall()
    assert [kiosks.redeem_pairing(hall.db, code) for code in codes] == [None, None]


@pytest.mark.parametrize(
    "args, says",
    [
        (("--tables", "3-1"), "the smaller number first"),
        (("--tables", "one"), "such as 1-20"),
        (("--tables", "1-2", "--tournament", "nope"), "No tournament 'nope'"),
    ],
)
def test_refusals_exit_2_and_write_nothing(run, tournament, tmp_path, args, says):
    argv = ["kiosk", "sheet", *args]
    if "--tournament" not in args:
        argv += ["--tournament", tournament]
    done = run(*argv)
    assert done.exit_code == 2
    assert says in done.stderr
    assert not list(tmp_path.glob("*.html"))
