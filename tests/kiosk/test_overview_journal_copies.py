"""The director's overview: a verified backup to download, and a mirrored journal running on
one copy ("degraded: one copy", which copy, what to do) while kiosks see nothing different."""

from __future__ import annotations

import sqlite3

import pytest

from adjudicator.hall import kiosks
from adjudicator.hall.hall import Hall
from adjudicator.record import journal, journal_copies
from adjudicator.record.db_mirror import MirroredDatabase
from adjudicator.record.db_sqlite import SqliteDatabase

from support.director import DIRECTOR_PASSWORD, build_staffed, signed_in
from support.hall import make_app

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


@pytest.fixture
def staffed(tmp_path):
    return build_staffed(tmp_path)


def test_the_overview_offers_a_verified_backup(staffed, tmp_path):
    for _ in range(3):
        staffed.challenge(["QI"])
    director = staffed.director()
    page = director.get("/director/").get_data(as_text=True)
    assert 'id="journal-backup"' in page and "/director/journal-backup.sqlite3" in page
    response = director.get("/director/journal-backup.sqlite3")
    assert response.status_code == 200
    assert "attachment" in response.headers["Content-Disposition"]
    assert response.headers["X-Journal-Rows"] == "3"
    copy = tmp_path / "downloaded.sqlite3"
    copy.write_bytes(response.get_data())
    result = journal.verify(SqliteDatabase(str(copy)))
    assert result.ok and result.rows == 3
    anonymous = staffed.client().get("/director/journal-backup.sqlite3")
    assert anonymous.status_code in (302, 303) and "login" in anonymous.headers["Location"]


def test_a_mirrored_journal_on_one_copy_is_the_directors_business(staffed, tmp_path):
    primary = str(staffed.setup.db_path)
    (tmp_path / "usb").mkdir()
    mirror = str(tmp_path / "usb" / "journal.sqlite3")
    journal_copies.rebuild(primary, mirror)
    hall = Hall(staffed.store, MirroredDatabase(primary, mirror), key_path=tmp_path / "k.pem")
    app = make_app(hall)
    director = signed_in(app.test_client(), "director", DIRECTOR_PASSWORD, "/director/login")
    assert "Journal: recording verdicts." in director.get("/director/").get_data(as_text=True)

    for suffix in ("", "-wal", "-shm"):
        (tmp_path / "usb" / f"journal.sqlite3{suffix}").unlink(missing_ok=True)
    kiosk = hall.adjudicate(kiosks.get(hall.db, "table-1"), ["QI"])
    assert kiosk.id >= 1  # judged on, from the primary alone
    page = director.get("/director/").get_data(as_text=True)
    assert "Journal degraded: one copy" in page
    assert "mirror copy" in page and mirror in page and "adjudicator journal resync" in page
    healthz = app.test_client().get("/healthz").get_json()
    assert healthz["journal"] == "degraded: one copy (the mirror is lost)"
    assert mirror not in str(healthz)  # no file names to the hall's network
    with sqlite3.connect(primary) as connection:
        assert connection.execute("SELECT MAX(id) FROM adjudications").fetchone()[0] == kiosk.id
    connection.close()
