"""The director's overview: a verified backup to download, and a mirrored journal running on
one copy ("degraded: one copy", which copy, what to do) while kiosks see nothing different."""

from __future__ import annotations

import json
import sqlite3

import pytest

from adjudicator.hall import kiosks
from adjudicator.hall.hall import Hall
from adjudicator.record.copies import resync
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal, rollbacks

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
    hall, app, director, primary, mirror = mirrored_hall(staffed, tmp_path)
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


def mirrored_hall(staffed, tmp_path):
    """The staffed hall's journal with a mirror on a "stick"; the app and a signed-in director."""
    primary = str(staffed.setup.db_path)
    (tmp_path / "usb").mkdir()
    mirror = str(tmp_path / "usb" / "journal.sqlite3")
    resync.rebuild(primary, mirror)
    key = staffed.setup.hall.key_path  # the hall's own key: it seals the staff's hashes too
    hall = Hall(staffed.store, MirroredDatabase(primary, mirror), key_path=key)
    app = make_app(hall)
    director = signed_in(app.test_client(), "director", DIRECTOR_PASSWORD, "/director/login")
    return hall, app, director, primary, mirror


def test_a_copy_rolled_back_in_place_is_named_on_the_overview_in_the_directors_language(
    staffed, tmp_path
):
    hall, app, director, primary, mirror = mirrored_hall(staffed, tmp_path)
    table = kiosks.get(hall.db, "table-1")
    for _ in range(4):
        hall.adjudicate(table, ["QI"])
    with sqlite3.connect(mirror) as connection:
        connection.execute("DELETE FROM adjudications WHERE id >= 3")
    connection.close()
    assert hall.adjudicate(table, ["QI"]).id == 5
    page = director.get("/director/").get_data(as_text=True)
    assert 'id="journal-copy-disagrees"' in page
    assert "the mirror (second disk) disagrees at row 3" in page
    french = director.get("/director/", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "le miroir (second disque) diverge à la ligne 3" in french
    assert app.test_client().get("/healthz").get_json()["journal"] == (
        "degraded: one copy (the mirror disagrees at row 3)"
    )


def test_a_forged_marker_is_a_warning_on_the_overview_and_nothing_else(staffed, tmp_path):
    hall, _, director, primary, mirror = mirrored_hall(staffed, tmp_path)
    marker = tmp_path / "usb" / "journal.sqlite3.copy-lost"
    marker.write_text(json.dumps({"lost": primary, "role": "primary", "reason": "forged"}))
    hall.adjudicate(kiosks.get(hall.db, "table-1"), ["QI"])
    page = director.get("/director/").get_data(as_text=True)
    assert "Journal: recording verdicts." in page
    assert "is not signed with this hall" in page and str(marker) in page
    polish = director.get("/director/", headers={"Accept-Language": "pl"}).get_data(as_text=True)
    assert "nie jest podpisany kluczem tej sali" in polish


def test_rows_missing_are_named_on_the_overview(staffed, tmp_path):
    hall, _, director, primary, mirror = mirrored_hall(staffed, tmp_path)
    table = kiosks.get(hall.db, "table-1")
    for _ in range(5):
        hall.adjudicate(table, ["QI"])
    for path in (primary, mirror):  # both copies rolled back alike
        with sqlite3.connect(path) as connection:
            connection.execute("DELETE FROM adjudications WHERE id >= 3")
        connection.close()
    other = Hall(staffed.store, MirroredDatabase(primary, mirror), key_path=hall.key_path)
    with pytest.raises(rollbacks.JournalRolledBack):
        other.adjudicate(kiosks.get(other.db, "table-1"), ["QI"])
    app = make_app(other)
    director = signed_in(app.test_client(), "director", DIRECTOR_PASSWORD, "/director/login")
    page = director.get("/director/").get_data(as_text=True)
    assert 'id="journal-rows-missing"' in page and "Rows 3 to 5 of the journal are missing" in page
    spanish = director.get("/director/", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert "Faltan las filas 3 a 5 del registro" in spanish
