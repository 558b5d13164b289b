"""`adjudicator kit seal` on a laptop that may not judge writes nothing to the stick: another laptop
took the hall over, the stick this journal is mirrored to is away (or the mirror setting unset),
or judging is held because another laptop of the hall judged first. Each is refused (exit 2)
with the reason and the command that lifts it, before the passphrase is asked for, and the
folder given is left as it was; once lifted (`journal confirm-alone`), a kit is sealed on a new
stick.

Laptop A is the test's `home` with its mirror and kit on `stick/`; laptop B a fresh data home."""

from __future__ import annotations

import gc

import pytest

from adjudicator.hall import hall_peers
from adjudicator.hall.hall import Hall

from support.kit import PASSPHRASE, Laptops, files_of, sealed_laptops

pytestmark = pytest.mark.slow  # a seal derives a key over 256 MiB (Argon2id)


@pytest.fixture
def laptops(tmp_path, monkeypatch, run, tiny) -> Laptops:
    return sealed_laptops(tmp_path, monkeypatch, run)


def seal_refused(laptops: Laptops, folder, *says: str) -> str:
    """`kit seal FOLDER` on A exits 2 saying `says`, and FOLDER is left as it was."""
    folder.mkdir(exist_ok=True)
    gc.collect()  # the CLI's connections closed, as its own process would at exit
    before = files_of(folder)
    refused = laptops.on(laptops.a).run("kit", "seal", str(folder), "--passphrase-stdin",
                                        input=PASSPHRASE + "\n")  # fmt: skip
    assert refused.exit_code == 2, refused.stdout
    assert "Traceback" not in refused.stderr and refused.stdout == ""
    for text in says:
        assert text in refused.stderr, refused.stderr
    gc.collect()
    assert files_of(folder) == before
    return refused.stderr


def test_a_laptop_taken_over_seals_no_kit(laptops: Laptops, tmp_path):
    assert laptops.open(laptops.b).exit_code == 0
    assert laptops.on(laptops.b).judge("QI").exit_code in (0, 1)  # B judges row 4
    install = (laptops.b / "install-id").read_text().strip()
    said = seal_refused(laptops, laptops.stick, "THIS HALL WAS TAKEN OVER", install[:8])
    assert "`adjudicator kit open DIR`" in said
    # Away from the stick, A's mirror set where it was: held, and no kit on another stick.
    laptops.stick.rename(tmp_path / "stick-with-b")
    said = seal_refused(laptops, tmp_path / "new-stick", "JUDGING HELD", "is missing")
    assert "`adjudicator journal confirm-alone --reason TEXT`" in said


def test_a_laptop_whose_stick_is_away_seals_no_kit_until_the_director_says_it_is_alone(
    laptops: Laptops, tmp_path, monkeypatch
):
    laptops.stick.rename(tmp_path / "stick-away")
    new_stick = tmp_path / "new-stick"
    said = seal_refused(laptops, new_stick, "JUDGING HELD", "is missing")
    assert "Put the stick back" in said and "confirm-alone --reason TEXT" in said
    monkeypatch.setenv("ADJUDICATOR_JOURNAL_MIRROR", "")
    seal_refused(laptops, new_stick, "ADJUDICATOR_JOURNAL_MIRROR is not set")
    # The director says A is alone; the new stick becomes the mirror, and a kit is sealed there.
    assert laptops.run("journal", "confirm-alone", "--reason", "stick lost").exit_code == 0
    monkeypatch.setenv("ADJUDICATOR_JOURNAL_MIRROR", str(new_stick / "journal.sqlite3"))
    assert laptops.run("journal", "resync").exit_code == 0  # the new stick's copy made
    sealed = laptops.run("kit", "seal", str(new_stick), "--passphrase-stdin",
                         input=PASSPHRASE + "\n")  # fmt: skip
    assert sealed.exit_code == 0, sealed.stderr
    assert (new_stick / "hall-kit" / "manifest.json").is_file()


def test_a_laptop_held_because_another_judged_first_seals_no_kit(laptops: Laptops):
    hall = Hall()
    hall_peers.hold_for(hall.db, "192.0.2.11", {"install": "b" * 32, "host": "laptop-b"})
    hall.db.close()
    said = seal_refused(laptops, laptops.stick, "JUDGING HELD: Another laptop, 'laptop-b'")
    assert "`adjudicator journal confirm-alone --reason TEXT`" in said
