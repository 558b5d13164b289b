"""A frozen laptop that resumes after a takeover (issue 40's follow-up), in network namespaces of
the test's own (support.netns): laptop A serves `adjudicator hall` as spring.local with its
journal mirrored to the USB stick, and judges; A freezes (SIGSTOP on its whole process group:
its lid closed); the stick moves to laptop B, which takes the hall over (`kit open`, `hall`) and
judges. Then A resumes (SIGCONT), its stick gone: it must stop judging as soon as it learns of
the takeover (B's signed statement, carried in the notes the laptops exchange), hold itself with
the refusal a restart gives, keep its kiosks paired (503, never 401), and write nothing more to
the stick, even once the stick is back in it; B judges on.

And the stick gone plus another laptop of the hall judging is, by itself, a takeover: A holds
itself even when the laptop it hears carries no takeover statement.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from test_takeover_network import NAME, PORT, SETTINGS, LaptopHall, judge, request
from test_two_laptops import wait_for

from support.kit import PASSPHRASE, files_of
from support.netns import HALL_ADDRESS, HallNetwork
from support.servers import prepare_home, run_cli

pytestmark = pytest.mark.slow

A_ADDRESS, B_ADDRESS = HALL_ADDRESS, "192.0.2.11"
REFRESH = {"ADJUDICATOR_KIT_REFRESH_SECONDS": "1"}  # a kit refresh would write the stick at once
PAUSE = {"ADJUDICATOR_HALL_PAUSE_SECONDS": "5"}  # each freeze below lasts longer
PAUSED = "checking its network after a pause"


def freeze(hall: LaptopHall) -> None:
    os.killpg(hall.process.pid, signal.SIGSTOP)


def resume(hall: LaptopHall) -> None:
    os.killpg(hall.process.pid, signal.SIGCONT)


def move(stick: Path, to: Path) -> None:
    """The stick pulled out of one laptop and plugged into another: its files at another
    mount point, as new files (the first laptop's open files no longer reach them)."""
    shutil.copytree(stick, to)
    shutil.rmtree(stick)


def newest_row(home: Path) -> int:
    connection = sqlite3.connect(f"file:{home / 'journal.sqlite3'}?mode=ro", uri=True)
    try:
        return connection.execute("SELECT COALESCE(MAX(id), 0) FROM adjudications").fetchone()[0]
    finally:
        connection.close()


def held(tablet, address: str, cafile: str) -> bool:
    health = request(tablet, address, cafile, "GET", "/healthz")
    return health["status"] == 503 and "waits for the director" in health["body"]["error"]


def test_a_frozen_laptop_that_resumes_after_a_takeover_stops_judging(
    hall_network: HallNetwork, tmp_path
):
    laptop_a, tablet = hall_network.hall, hall_network.devices
    laptop_b = hall_network.add_machine("b", B_ADDRESS)
    stick_a, stick_b = tmp_path / "stick-on-a", tmp_path / "stick-on-b"
    stick_a.mkdir()
    env_a = {**SETTINGS, **REFRESH, **PAUSE,
             "ADJUDICATOR_JOURNAL_MIRROR": str(stick_a / "journal.sqlite3")}  # fmt: skip
    env_b = {**SETTINGS, "ADJUDICATOR_JOURNAL_MIRROR": str(stick_b / "journal.sqlite3")}
    a = prepare_home(tmp_path / "a" / "home", env=env_a)
    assert run_cli(a.path, "hall", "--fingerprint", env=env_a, netns=laptop_a).returncode == 0
    cafile = str(a.path / "hall" / "ca.crt")
    hall_a = LaptopHall(laptop_a, a.path, env_a, "--name", NAME, "--port", str(PORT)).start()
    hall_b = None
    try:
        sealed = run_cli(a.path, "kit", "seal", str(stick_a), "--passphrase-stdin", env=env_a,
                         stdin=PASSPHRASE + "\n")  # fmt: skip
        assert sealed.returncode == 0, sealed.stderr
        judged = judge(tablet, A_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 1), judged

        freeze(hall_a)  # A's lid closed: its server, its workers, its mDNS, all stopped
        frozen_at = time.monotonic()
        move(stick_a, stick_b)
        b_home = tmp_path / "b" / "home"
        opened = run_cli(b_home, "kit", "open", str(stick_b), "--passphrase-stdin", env=env_b,
                         stdin=PASSPHRASE + "\n", netns=laptop_b)  # fmt: skip
        assert opened.returncode == 0, opened.stderr
        b_install = (b_home / "install-id").read_text().strip()
        hall_b = LaptopHall(laptop_b, b_home, env_b).start()
        judged = judge(tablet, B_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 2), judged

        time.sleep(max(0.0, frozen_at + 6 - time.monotonic()))  # longer than A's pause
        resume(hall_a)  # A comes back: its stick is on B now
        # At once, before A has heard B: no verdict (it would be B's number 3), but a pause.
        early = judge(tablet, A_ADDRESS, cafile, a.token)
        assert early["status"] == 503 and "verdict" not in early["body"], early
        assert PAUSED in early["body"]["shown_error"], early
        assert wait_for(lambda: held(tablet, A_ADDRESS, cafile))
        assert "The hall was paused for" in hall_a.stderr()
        said = wait_for(lambda: "THIS HALL WAS TAKEN OVER" in hall_a.stderr() and hall_a.stderr())
        assert f"install {b_install[:8]}" in said, said[-3000:]
        status = run_cli(a.path, "journal", "status", env=env_a)
        assert "THIS HALL WAS TAKEN OVER" in status.stdout, status.stdout
        assert f"install {b_install[:8]}" in status.stdout and "kit open" in status.stdout
        # A's kiosk stays paired (503 saying the hall waits, never 401), and gets no verdict.
        refused = judge(tablet, A_ADDRESS, cafile, a.token)
        assert refused["status"] == 503 and "verdict" not in refused["body"], refused
        assert "waits for the director" in refused["body"]["shown_error"], refused
        kiosk = request(tablet, A_ADDRESS, cafile, "GET", "/api/v1/kiosk", token=a.token)
        assert kiosk["status"] != 401 and "paired" not in str(kiosk["body"]).lower(), kiosk
        # B, which took the hall over, judges on; A's journal holds only its own row.
        judged = judge(tablet, B_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 3), judged
        assert newest_row(a.path) == 1

        # B stops; the stick goes back into A while A (held) still serves: A writes nothing to
        # it, not a row, not a kit refresh (one a second), not a marker.
        hall_b.kill()
        move(stick_b, stick_a)
        before = files_of(stick_a)
        refused = judge(tablet, A_ADDRESS, cafile, a.token)
        assert refused["status"] == 503 and "verdict" not in refused["body"], refused
        assert held(tablet, A_ADDRESS, cafile)
        time.sleep(3)  # three of A's kit refreshes
        assert files_of(stick_a) == before
    finally:
        if hall_b is not None:
            hall_b.kill()
        resume(hall_a)
        hall_a.kill()

    # Started again, with the stick in: A refuses, naming B (the statement it learned is kept
    # in its own copy, and B's rows on the stick say it too).
    refused = run_cli(a.path, "judge", "--tournament", "hall", "QI", env=env_a)
    assert refused.returncode == 2 and "THIS HALL WAS TAKEN OVER" in refused.stderr, refused
    assert f"install {b_install[:8]}" in refused.stderr
    assert files_of(stick_a) == before


def test_a_laptop_whose_stick_left_it_holds_when_another_laptop_of_the_hall_judges(
    hall_network: HallNetwork, tmp_path
):
    """No statement carried (the other laptop's version, or its note lost): the stick gone
    from A while it served, and another laptop serving the hall with its key and judging, is
    by itself what a takeover looks like. A holds itself (lifted by `confirm-alone`)."""
    laptop_a, tablet = hall_network.hall, hall_network.devices
    laptop_c = hall_network.add_machine("c", B_ADDRESS)
    stick = tmp_path / "stick"
    stick.mkdir()
    env_a = {**SETTINGS, **PAUSE, "ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3")}
    a = prepare_home(tmp_path / "a" / "home", env=env_a)
    assert run_cli(a.path, "hall", "--fingerprint", env=env_a, netns=laptop_a).returncode == 0
    cafile = str(a.path / "hall" / "ca.crt")
    c_home = tmp_path / "c" / "home"  # the hall's key and CA, a journal of its own, no stick
    shutil.copytree(a.path, c_home)
    for own in [*c_home.glob("journal.sqlite3*"), c_home / "install-id"]:
        own.unlink(missing_ok=True)
    hall_a = LaptopHall(laptop_a, a.path, env_a, "--name", NAME, "--port", str(PORT)).start()
    hall_c = None
    try:
        judged = judge(tablet, A_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 1), judged
        freeze(hall_a)
        shutil.rmtree(stick)  # the stick pulled out of A
        hall_c = LaptopHall(laptop_c, c_home, {**SETTINGS, "ADJUDICATOR_JOURNAL_MIRROR": ""},
                            "--name", NAME, "--port", str(PORT)).start()  # fmt: skip
        assert not held(tablet, B_ADDRESS, cafile)  # C judges: it heard no one as it started
        time.sleep(5)  # A stays frozen longer than its pause, C's start aside
        resume(hall_a)
        early = judge(tablet, A_ADDRESS, cafile, a.token)  # before A has heard C: a pause
        assert early["status"] == 503 and PAUSED in early["body"]["shown_error"], early
        assert wait_for(lambda: held(tablet, A_ADDRESS, cafile))
        assert wait_for(lambda: "mirrored to has left this laptop" in hall_a.stderr())
        refused = judge(tablet, A_ADDRESS, cafile, a.token)
        assert refused["status"] == 503 and "verdict" not in refused["body"], refused
        status = run_cli(a.path, "journal", "status", env=env_a)
        assert f"at {B_ADDRESS}" in status.stdout and "confirm-alone" in status.stdout, status
        assert newest_row(a.path) == 1
    finally:
        if hall_c is not None:
            hall_c.kill()
        resume(hall_a)
        hall_a.kill()


def test_a_laptop_that_only_slept_judges_again_once_it_has_looked(
    hall_network: HallNetwork, tmp_path
):
    """No other laptop about: a hall paused longer than its pause (the lid closed) judges
    nothing as it wakes, says why, and judges again, its numbers following on, a moment later;
    a pause shorter than that is not noticed."""
    laptop_a, tablet = hall_network.hall, hall_network.devices
    env_a = {**SETTINGS, **PAUSE}
    a = prepare_home(tmp_path / "a" / "home", env=env_a)
    assert run_cli(a.path, "hall", "--fingerprint", env=env_a, netns=laptop_a).returncode == 0
    cafile = str(a.path / "hall" / "ca.crt")
    hall_a = LaptopHall(laptop_a, a.path, env_a, "--name", NAME, "--port", str(PORT)).start()
    try:
        judged = judge(tablet, A_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 1), judged
        freeze(hall_a)
        time.sleep(1)  # shorter than the pause: not one
        resume(hall_a)
        judged = judge(tablet, A_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 2), judged

        freeze(hall_a)
        time.sleep(8)
        resume(hall_a)
        early = judge(tablet, A_ADDRESS, cafile, a.token)
        assert early["status"] == 503 and "verdict" not in early["body"], early
        assert PAUSED in early["body"]["shown_error"], early
        health = request(tablet, A_ADDRESS, cafile, "GET", "/healthz")
        assert health["status"] == 503 and PAUSED in health["body"]["error"], health
        assert wait_for(lambda: request(tablet, A_ADDRESS, cafile, "GET", "/healthz")["status"]
                        == 200)  # fmt: skip
        judged = judge(tablet, A_ADDRESS, cafile, a.token)
        assert (judged["status"], judged["body"]["id"]) == (201, 3), judged
        said = hall_a.stderr()
        assert "The hall was paused for" in said and "judging resumes" in said, said[-2000:]
        assert said.count("The hall was paused for") == 1, said[-2000:]  # the short one: not
    finally:
        resume(hall_a)
        hall_a.kill()
    assert newest_row(a.path) == 3
