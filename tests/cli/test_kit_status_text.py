"""What the hall's start and `journal status` say of the takeover kit is what is true: the stick
out ("is not here (is the USB stick in?)"), the stick in but no kit on it, and the journal's
mirror moved to a new stick (`journal confirm-alone`, a new mirror path) where no kit was sealed
yet: "no takeover kit on the stick at ...: run `adjudicator kit seal ...`", naming the stick
the mirror is on, never the old folder as if it were merely unplugged; and after `kit seal`
there, "current".

Laptop A is the test's `home` with its mirror and kit on `stick/`."""

from __future__ import annotations

import shutil

import pytest

from support.kit import PASSPHRASE, Laptops, sealed_laptops
from support.servers import PreparedHome, Server

pytestmark = pytest.mark.slow  # a seal derives a key over 256 MiB (Argon2id)


@pytest.fixture
def laptops(tmp_path, monkeypatch, run, tiny) -> Laptops:
    return sealed_laptops(tmp_path, monkeypatch, run)


def kit_line(laptops: Laptops) -> str:
    said = laptops.run("journal", "status")
    return next(line for line in said.stdout.splitlines() if line.startswith("Takeover kit:"))


def said_at_start(laptops: Laptops, mirror) -> str:
    """What `adjudicator serve` says of the kit as it starts (its log), on A."""
    env = {"ADJUDICATOR_JOURNAL_MIRROR": str(mirror)}
    with Server(PreparedHome(laptops.a, "", "", env), workers=1) as server:
        return server.read_log()


def test_the_kit_status_names_the_stick_the_mirror_is_on(laptops: Laptops, tmp_path, monkeypatch):
    old = laptops.stick
    assert "holds a current takeover kit" in kit_line(laptops)
    away = tmp_path / "stick-lost"
    old.rename(away)
    assert f"The takeover kit's folder {old} is not here (is the USB stick in?)" in kit_line(
        laptops
    )  # true: the stick is out
    assert laptops.run("journal", "confirm-alone", "--reason", "stick broken").exit_code == 0
    new = tmp_path / "new-stick"
    new.mkdir()
    mirror = new / "journal.sqlite3"
    monkeypatch.setenv("ADJUDICATOR_JOURNAL_MIRROR", str(mirror))
    assert laptops.run("journal", "resync").exit_code == 0  # the new stick's copy made

    wanted = (
        f"No takeover kit on the stick at {new}, where the journal's mirror is now (the last kit "
        f"was sealed at {old}): run `adjudicator kit seal {new}`"
    )
    line = kit_line(laptops)
    assert wanted in line and "is not here" not in line, line
    started = said_at_start(laptops, mirror)
    assert wanted in started and "is not here" not in started, started[-3000:]
    away.rename(old)  # the old stick found again: the kit there is not beside the mirror
    line = kit_line(laptops)
    assert wanted in line, line

    sealed = laptops.run("kit", "seal", str(new), "--passphrase-stdin", input=PASSPHRASE + "\n")
    assert sealed.exit_code == 0, sealed.stderr
    assert f"holds a current takeover kit ({new})" in kit_line(laptops)
    assert f"holds a current takeover kit ({new})" in said_at_start(laptops, mirror)

    # The stick in, but its kit gone: no kit there (not "not here").
    shutil.rmtree(new / "hall-kit")
    line = kit_line(laptops)
    assert f"No takeover kit on the stick at {new}: run `adjudicator kit seal {new}`" in line
    assert "is not here" not in line
