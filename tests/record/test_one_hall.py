"""One hall judges (issue 34), in one process with real files: a journal whose USB stick is
gone when it is opened holds judging until the stick is back or the director confirms it is
alone; a journal another laptop took over is neither judged on nor written to here."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from adjudicator.record import journal_status
from adjudicator.record.copies import one_hall, takeover
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database import migrations
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal, journal_holds, receipt_key

from support.journal import challenge_fields


class Laptop:
    """This laptop's journal, its mirror on a stick, and its key."""

    def __init__(self, tmp_path: Path):
        self.primary = tmp_path / "journal.sqlite3"
        self.stick = tmp_path / "stick"
        self.stick.mkdir()
        self.mirror = self.stick / "journal.sqlite3"
        self.key_path = tmp_path / "receipt_key.pem"
        self.away = tmp_path / "stick-away"

    def open(self) -> MirroredDatabase:
        """The journal opened to be written, as a command or a start opens it."""
        db = MirroredDatabase(str(self.primary), str(self.mirror), key_path=self.key_path)
        migrations.upgrade(db)
        self.note = one_hall.at_open(db, start=True)  # as a start does
        return db

    def pull_stick(self) -> None:
        self.stick.rename(self.away)

    def put_stick_back(self) -> None:
        self.away.rename(self.stick)


@pytest.fixture
def laptop(tmp_path, home) -> Laptop:
    found = Laptop(tmp_path)
    db = found.open()
    journal.append(db, **challenge_fields())
    db.close()
    return found


def rows(path: Path) -> int:
    db = SqliteDatabase(str(path), create_folder=False)
    try:
        return journal.newest_id(db)
    finally:
        db.close()


def test_a_journal_whose_stick_is_gone_holds_judging_until_the_stick_is_back(laptop):
    laptop.pull_stick()
    db = laptop.open()
    assert laptop.note.startswith("JUDGING HELD: The journal's mirror")
    assert "may be serving another laptop" in laptop.note
    assert "adjudicator journal confirm-alone --reason TEXT" in laptop.note
    held = journal_holds.current(db)
    assert held is not None and held.kind == journal_holds.MIRROR_MISSING
    with pytest.raises(journal_holds.JournalHeld, match="waits for the director"):
        journal.append(db, **challenge_fields())
    assert rows(laptop.primary) == 1  # no number issued
    db.close()
    laptop.put_stick_back()
    db = laptop.open()
    assert laptop.note is None and journal_holds.current(db) is None
    assert journal.append(db, **challenge_fields()).id == 2
    db.close()


def test_confirm_alone_is_recorded_and_the_laptop_judges_on_its_own_disk(laptop):
    laptop.pull_stick()
    db = laptop.open()
    one_hall.confirm_alone(db, "  the stick broke in round 4 ", "cli:td")
    assert journal.append(db, **challenge_fields()).id == 2
    with db.transaction() as cur:
        kept = cur.execute("SELECT kind, resolution FROM journal_holds").all()
    assert kept == [
        {
            "kind": "mirror-missing",
            "resolution": "confirmed alone by cli:td: the stick broke in round 4",
        }
    ]
    db.close()
    db = laptop.open()  # the stick is still gone: this laptop was confirmed alone
    assert laptop.note is None
    assert journal.append(db, **challenge_fields()).id == 3
    db.close()


def test_confirm_alone_needs_a_reason(laptop):
    db = laptop.open()
    with pytest.raises(journal_holds.HoldError, match="Say why with --reason"):
        one_hall.confirm_alone(db, "   ", "cli:td")
    db.close()


def test_a_stick_never_written_to_is_made_as_before_not_waited_for(tmp_path, home):
    fresh = Laptop(tmp_path)
    db = SqliteDatabase(str(fresh.primary))
    migrations.upgrade(db)
    journal.append(db, **challenge_fields())
    db.close()
    db = fresh.open()  # a mirror set for the first time, on an empty stick
    assert fresh.note is None
    assert journal.append(db, **challenge_fields()).id == 2
    db.close()


def test_a_stick_pulled_out_while_serving_is_degraded_not_held(laptop):
    db = laptop.open()
    laptop.pull_stick()
    assert journal.append(db, **challenge_fields()).id == 2
    assert db.lost_copy() is not None and db.lost_copy().role == "mirror"
    assert journal_holds.current(db) is None
    db.close()


def statement_by(laptop: Laptop, install: str, seq: int = 1, row: int = 1) -> dict:
    key = receipt_key.load_or_create(laptop.key_path)
    return takeover.statement(key, "j", row, "0" * 64, install, seq)


def test_a_journal_another_laptop_took_over_is_not_written_here(laptop):
    takeover.write([str(laptop.mirror)], statement_by(laptop, "b" * 32))
    db = MirroredDatabase(str(laptop.primary), str(laptop.mirror), key_path=laptop.key_path)
    stick_before = sorted(p.name for p in laptop.stick.iterdir())
    with pytest.raises(takeover.TakenOver, match="THIS HALL WAS TAKEN OVER") as refused:
        journal.append(db, **challenge_fields())
    assert "(install bbbbbbbb)" in str(refused.value) and "after row 1" in str(refused.value)
    # named by install id wherever it is named, not by a host name laptops often share
    host = takeover.host_name()
    assert f"Leave the USB stick with {host!r} (install bbbbbbbb)." in str(refused.value)
    assert sorted(p.name for p in laptop.stick.iterdir()) == stick_before  # not even a marker
    db.close()


def test_a_statement_the_halls_key_did_not_sign_counts_for_nothing(laptop):
    forged = statement_by(laptop, "b" * 32)
    forged["install"] = "c" * 32  # edited after signing
    takeover.write([str(laptop.mirror)], forged)
    db = laptop.open()
    assert journal.append(db, **challenge_fields()).id == 2
    db.close()


def test_the_newest_statement_decides_and_this_laptops_own_lets_it_judge(laptop, home):
    mine = takeover.install_id()
    takeover.write([str(laptop.primary)], statement_by(laptop, "b" * 32, seq=1))
    takeover.write([str(laptop.mirror)], statement_by(laptop, mine, seq=2))  # taken back
    db = laptop.open()
    assert journal.append(db, **challenge_fields()).id == 2
    db.close()
    takeover.write([str(laptop.mirror)], statement_by(laptop, "b" * 32, seq=3))
    with pytest.raises(takeover.TakenOver):
        laptop.open()


def test_journal_status_says_taken_over_and_held_before_a_start(laptop, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", str(laptop.primary))
    monkeypatch.setenv("ADJUDICATOR_JOURNAL_MIRROR", str(laptop.mirror))
    monkeypatch.setenv("ADJUDICATOR_RECEIPT_KEY_FILE", str(laptop.key_path))
    laptop.pull_stick()
    report = journal_status.read()
    assert report.state == "held"
    assert "may be serving another laptop" in report.detail
    laptop.put_stick_back()
    takeover.write([str(laptop.mirror)], statement_by(laptop, "b" * 32))
    report = journal_status.read()
    assert (report.state, report.summary) == ("taken-over", journal_status.TAKEN_OVER)
    assert json.dumps(report.to_json())  # as `journal status --json` prints it


def test_resync_refuses_a_journal_another_laptop_took_over(laptop):
    from adjudicator.record.copies import resync

    takeover.write([str(laptop.mirror)], statement_by(laptop, "b" * 32))
    db = MirroredDatabase(str(laptop.primary), str(laptop.mirror), key_path=laptop.key_path)
    with pytest.raises(takeover.TakenOver, match="THIS HALL WAS TAKEN OVER"):
        resync.resync(db)
    db.close()


def test_a_fifo_in_place_of_the_statement_is_refused_not_waited_on(laptop):
    """Whoever holds the stick puts a FIFO where the statement goes: opening the journal must
    not wait on it for good (and it proves nothing)."""
    import os
    import threading

    os.mkfifo(takeover.beside(str(laptop.mirror)))
    opened: list[int] = []

    def open_and_judge() -> None:
        db = laptop.open()
        opened.append(journal.append(db, **challenge_fields()).id)
        db.close()

    worker = threading.Thread(target=open_and_judge, daemon=True)
    worker.start()
    worker.join(60)
    assert opened == [2], "opening the journal waited on a FIFO"


# -- issue 40: the journal knows its mirror by identity; rows say who wrote them -------------


def test_each_row_names_the_laptop_that_wrote_it_and_that_is_part_of_its_hash(laptop, home):
    from adjudicator.record.journal import writer

    db = SqliteDatabase(str(laptop.primary), create_folder=False)
    try:
        row = journal.get(db, 1)
        assert row.install == writer.install_id() and len(row.install) == 32
        assert journal.verify(db).ok
    finally:
        db.close()
    edit(laptop.primary, "UPDATE adjudications SET install = ? WHERE id = 1", ("b" * 32,))
    db = SqliteDatabase(str(laptop.primary), create_folder=False)
    try:
        assert journal.verify(db).first_bad_id == 1  # changed by hand: the chain breaks there
    finally:
        db.close()


def edit(path: Path, sql: str, params: tuple = ()) -> None:
    connection = sqlite3.connect(path)
    with connection:
        connection.execute(sql, params)
    connection.close()


def rows_by_another_laptop(laptop: Laptop, monkeypatch, count: int = 2) -> str:
    """Another laptop (another data home, the hall's key) writes `count` rows on the stick's
    copy alone, as B does after a takeover; its install id."""
    from adjudicator.record.journal import writer

    monkeypatch.setenv("ADJUDICATOR_HOME", str(laptop.primary.parent / "laptop-b"))
    monkeypatch.setenv("ADJUDICATOR_RECEIPT_KEY_FILE", str(laptop.key_path))
    b_install = writer.install_id()
    stick = SqliteDatabase(str(laptop.mirror), create_folder=False)
    try:
        for _ in range(count):
            assert journal.append(stick, **challenge_fields()).install == b_install
    finally:
        stick.close()
    monkeypatch.undo()  # back on laptop A
    return b_install


@pytest.fixture
def a_home(laptop, home, monkeypatch):
    """Laptop A's own data home and key, kept set while the test changes others."""
    monkeypatch.setenv("ADJUDICATOR_HOME", str(home))
    monkeypatch.setenv("ADJUDICATOR_RECEIPT_KEY_FILE", str(laptop.key_path))
    return home


def test_rows_another_laptop_wrote_past_this_ones_prove_a_takeover_with_no_statement(
    laptop, a_home, monkeypatch
):
    b_install = rows_by_another_laptop(laptop, monkeypatch)
    monkeypatch.setenv("ADJUDICATOR_HOME", str(a_home))
    monkeypatch.setenv("ADJUDICATOR_RECEIPT_KEY_FILE", str(laptop.key_path))
    assert not takeover.beside(str(laptop.mirror)).exists()  # no statement anywhere
    db = MirroredDatabase(str(laptop.primary), str(laptop.mirror), key_path=laptop.key_path)
    with pytest.raises(takeover.TakenOver) as refused:
        one_hall.refuse_if_taken_over(db, laptop.key_path)
    said = str(refused.value)
    assert "row 2 was written by another laptop" in said and f"install {b_install[:8]}" in said
    stick_before = {p.name: p.read_bytes() for p in laptop.stick.iterdir()}
    with pytest.raises(takeover.TakenOver):
        journal.append(db, **challenge_fields())  # and nothing is written, here or there
    db.close()
    assert rows(laptop.primary) == 1
    assert {p.name: p.read_bytes() for p in laptop.stick.iterdir()} == stick_before


@pytest.mark.parametrize("how", ["install-edited", "install-edited-chain-recomputed"])
def test_another_laptops_rows_edited_on_the_stick_still_refuse(laptop, a_home, monkeypatch, how):
    """Whoever holds the stick makes B's rows claim A wrote them: the chain breaks there, or,
    the hashes recomputed, the keyed hash (which needs the hall's key) does not verify."""
    from adjudicator.record.journal import journal_entry, writer

    rows_by_another_laptop(laptop, monkeypatch)
    monkeypatch.setenv("ADJUDICATOR_HOME", str(a_home))
    monkeypatch.setenv("ADJUDICATOR_RECEIPT_KEY_FILE", str(laptop.key_path))
    mine = writer.install_id()
    edit(laptop.mirror, "UPDATE adjudications SET install = ? WHERE id > 1", (mine,))
    if how == "install-edited-chain-recomputed":
        connection = sqlite3.connect(laptop.mirror)
        prev = connection.execute("SELECT row_hash FROM adjudications WHERE id = 1").fetchone()[0]
        later = f"{journal_entry.SELECT} WHERE id > 1 ORDER BY id"
        for row in connection.execute(later).fetchall():
            values = list(row)
            values[journal_entry.PREV_HASH] = prev
            values[journal_entry.WORDS] = values[journal_entry.WORDS].split()
            prev = journal_entry.hash_values(values)
            with connection:
                connection.execute(
                    "UPDATE adjudications SET prev_hash = ?, row_hash = ? WHERE id = ?",
                    (values[journal_entry.PREV_HASH], prev, row[0]),
                )
        connection.close()
    db = MirroredDatabase(str(laptop.primary), str(laptop.mirror), key_path=laptop.key_path)
    with pytest.raises(takeover.TakenOver, match="row 2 does not prove who wrote it"):
        one_hall.refuse_if_taken_over(db, laptop.key_path)
    db.close()


def test_rows_this_laptop_wrote_past_its_own_copy_are_its_own(laptop, a_home):
    """The laptop's copy missed a commit the stick holds (written by this laptop): no takeover."""
    db = laptop.open()
    journal.append(db, **challenge_fields())
    db.close()
    edit(laptop.primary, "DELETE FROM adjudications WHERE id = 2")
    db = MirroredDatabase(str(laptop.primary), str(laptop.mirror), key_path=laptop.key_path)
    one_hall.refuse_if_taken_over(db, laptop.key_path)  # no refusal
    db.close()


def test_the_laptops_journal_deleted_another_laptops_rows_still_refuse(laptop, a_home, monkeypatch):
    rows_by_another_laptop(laptop, monkeypatch)
    monkeypatch.setenv("ADJUDICATOR_HOME", str(a_home))
    monkeypatch.setenv("ADJUDICATOR_RECEIPT_KEY_FILE", str(laptop.key_path))
    for suffix in ("", "-wal", "-shm"):
        Path(f"{laptop.primary}{suffix}").unlink(missing_ok=True)
    db = MirroredDatabase(str(laptop.primary), str(laptop.mirror), key_path=laptop.key_path)
    with pytest.raises(takeover.TakenOver, match="written by another laptop"):
        one_hall.refuse_if_taken_over(db, laptop.key_path)
    db.close()


def test_a_journal_knows_its_mirror_unset_or_elsewhere_whatever_is_deleted_beside_it(
    laptop, tmp_path
):
    from adjudicator.record.copies import mirror_identity

    db = laptop.open()  # the copies stand together: each its own id, the mirror's recorded
    own, theirs = (mirror_identity.copy_id(str(p)) for p in (laptop.primary, laptop.mirror))
    assert own and theirs and own != theirs
    assert mirror_identity.recorded(str(laptop.primary)).copy_id == theirs
    db.close()
    for side in laptop.primary.parent.glob("journal.sqlite3.*"):
        side.unlink()  # nothing beside the journal says it had a mirror
    alone = SqliteDatabase(str(laptop.primary), create_folder=False)
    note = one_hall.at_open(alone, start=True)
    assert note and "ADJUDICATOR_JOURNAL_MIRROR is not set" in note
    with pytest.raises(journal_holds.JournalHeld):
        journal.append(alone, **challenge_fields())
    alone.close()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = MirroredDatabase(
        str(laptop.primary), str(elsewhere / "j.sqlite3"), key_path=laptop.key_path
    )
    assert one_hall.at_open(other, start=True).startswith(
        "JUDGING HELD: ADJUDICATOR_JOURNAL_MIRROR is"
    )
    with pytest.raises(journal_holds.JournalHeld):
        journal.append(other, **challenge_fields())
    other.close()
    assert list(elsewhere.iterdir()) == []  # never made there
    assert rows(laptop.primary) == 1


def test_a_command_run_without_the_mirror_set_holds_itself_not_the_hall(laptop):
    """The director's shell lacks ADJUDICATOR_JOURNAL_MIRROR (the hall runs as a service, with
    it): the command judges nothing, and the serving hall is not held by it."""
    alone = SqliteDatabase(str(laptop.primary), create_folder=False)
    assert one_hall.at_open(alone) is not None
    with pytest.raises(journal_holds.JournalHeld):
        journal.append(alone, **challenge_fields())
    assert journal_holds.current(alone) is None
    alone.close()
    db = laptop.open()
    assert journal.append(db, **challenge_fields()).id == 2
    db.close()


def test_confirm_alone_ends_the_hold_for_another_laptop_and_keeps_a_mirror_that_is_here(laptop):
    from adjudicator.record.copies import mirror_identity

    db = laptop.open()
    journal_holds.hold(db, journal_holds.ANOTHER_LAPTOP, "another laptop judged first")
    with pytest.raises(journal_holds.JournalHeld):
        journal.append(db, **challenge_fields())
    assert one_hall.confirm_alone(db, "the other laptop is switched off", "cli:td") == 1
    assert journal.append(db, **challenge_fields()).id == 2
    assert mirror_identity.recorded(str(laptop.primary)) is not None  # the stick is here: kept
    db.close()


def test_a_mirror_that_is_not_the_journals_is_refused_by_resync(laptop, tmp_path):
    from adjudicator.record.copies import resync

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    db = MirroredDatabase(
        str(laptop.primary), str(elsewhere / "j.sqlite3"), key_path=laptop.key_path
    )
    with pytest.raises(resync.ResyncError, match="Nothing was changed: ADJUDICATOR_JOURNAL_MIRROR"):
        resync.resync(db)
    db.close()
    assert list(elsewhere.iterdir()) == []
