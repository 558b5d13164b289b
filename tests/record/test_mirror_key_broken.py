"""A mirrored journal whose signing key cannot be used (issue 27's head records are sealed with
it): the director can still sign in and see what is wrong, and no verdict is recorded."""

from __future__ import annotations

import pytest

from adjudicator.hall.hall import Hall
from adjudicator.hall.people import staff
from adjudicator.record.copies import resync
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.journal import journal, receipt_key

from support.director import DIRECTOR_PASSWORD, signed_in
from support.hall import build_setup, make_app, pair_browser
from support.journal import challenge_fields

pytestmark = pytest.mark.usefixtures("fast_hashes")


def test_a_key_readable_by_others_refuses_verdicts_but_not_the_director(tmp_path):
    setup = build_setup(tmp_path)
    staff.set_director_password(setup.hall.db, DIRECTOR_PASSWORD)
    (tmp_path / "usb").mkdir()
    mirror = tmp_path / "usb" / "journal.sqlite3"
    resync.rebuild(str(setup.db_path), str(mirror))  # both copies hold the same journal
    key = tmp_path / "receipt_key.pem"
    receipt_key.load_or_create(key)  # the hall's key, made at its first start
    key.chmod(0o644)  # readable by other users: the key is refused from now on
    db = MirroredDatabase(str(setup.db_path), str(mirror), key_path=key)
    app = make_app(Hall(setup.store, db, rate_limit=None, key_path=key))

    director = signed_in(app.test_client(), "director", DIRECTOR_PASSWORD, "/director/login")
    overview = director.get("/director/").get_data(as_text=True)
    assert "readable by other users" in overview and "chmod 600" in overview

    answer = pair_browser(app, setup.nwl).post("/api/v1/adjudications", json={"words": ["QI"]})
    assert answer.status_code == 503
    body = answer.get_json()
    assert "signing key cannot be used" in body["error"]
    assert "verdict" not in body
    rows = db.query_one("SELECT COUNT(*) AS n FROM adjudications")
    assert rows["n"] == 0
    # Any other write that would add a row is refused as well (its head record cannot be
    # sealed), rolled back on both copies, and the next sign-in still goes through.
    with pytest.raises(receipt_key.ReceiptKeyError, match="chmod 600"):
        journal.append(db, **challenge_fields())
    assert db.query_one("SELECT COUNT(*) AS n FROM adjudications")["n"] == 0
    signed_in(app.test_client(), "director", DIRECTOR_PASSWORD, "/director/login")
