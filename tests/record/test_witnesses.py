"""Kiosks as witnesses: the status poll carries the kiosk's newest receipt; one the journal no
longer bears out raises an alarm on the director's overview (naming kiosk and row) and in the
log; junk and forged receipts raise nothing; the director downloads the newest receipts.
The same with a real browser and server is in test_witness_browser.py."""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import replace

import pytest

from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal
from adjudicator.record.proofs import audit, witnesses

from support.director import build_staffed, csrf_token
from support.hall import pair_browser


@pytest.fixture
def staffed(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    return build_staffed(tmp_path)


def poll(kiosk, receipt):
    response = kiosk.post("/api/v1/kiosk", json={"witness": receipt})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def rewrite_row(db_path, row_id: int, verdict: str) -> None:
    """Flip a verdict and re-hash that row (someone with the file and the project's code)."""
    reader = SqliteDatabase(str(db_path))
    entry = replace(journal.get(reader, row_id), verdict=verdict)
    reader.close()
    with sqlite3.connect(db_path) as connection:
        connection.execute(
            "UPDATE adjudications SET verdict = ?, row_hash = ? WHERE id = ?",
            (verdict, entry.compute_hash(), row_id),
        )
    connection.close()


def test_a_receipt_the_journal_holds_raises_nothing_and_is_kept(staffed):
    kiosk = pair_browser(staffed.app, staffed.setup.nwl)
    first = kiosk.post("/api/v1/adjudications", json={"words": ["QI"]}).get_json()["receipt"]
    second = kiosk.post("/api/v1/adjudications", json={"words": ["ZA"]}).get_json()["receipt"]
    poll(kiosk, second)
    poll(kiosk, first)  # an older one does not replace the newest kept
    db = staffed.setup.hall.db
    assert witnesses.alarms(db) == []
    assert witnesses.newest_receipts(db) == [second]
    downloaded = staffed.director().get("/director/receipts.jsonl")
    assert (
        downloaded.status_code == 200 and "attachment" in downloaded.headers["Content-Disposition"]
    )
    lines = downloaded.get_data(as_text=True).splitlines()
    assert [json.loads(line) for line in lines] == [second]
    result = audit.audit(db, lines, staffed.setup.hall.signing_key().public)
    assert result.ok and result.checked == 1


def test_a_receipt_the_journal_no_longer_bears_out_raises_an_alarm(staffed, caplog):
    kiosk = pair_browser(staffed.app, staffed.setup.nwl)
    receipt = kiosk.post("/api/v1/adjudications", json={"words": ["QX"]}).get_json()["receipt"]
    assert receipt["verdict"] == "UNACCEPTABLE"
    rewrite_row(staffed.setup.db_path, receipt["id"], "ACCEPTABLE")
    with caplog.at_level(logging.ERROR, logger="adjudicator.witness"):
        poll(kiosk, receipt)
        poll(kiosk, receipt)  # the same alarm once, in the table and in the log
    (alarm,) = witnesses.alarms(staffed.setup.hall.db)
    assert (alarm.kiosk, alarm.row_id) == ("table-1", receipt["id"])
    logged = [r.getMessage() for r in caplog.records if "WITNESS ALARM" in r.getMessage()]
    assert len(logged) == 1 and "kiosk table-1" in logged[0] and f"row {receipt['id']}" in logged[0]

    director = staffed.director()
    page = director.get("/director/").get_data(as_text=True)
    assert f"ALARM: kiosk table-1, journal row {receipt['id']}." in page
    response = director.post(
        "/director/alarms/acknowledge",
        data={
            "kiosk": "table-1",
            "row_id": receipt["id"],
            "csrf_token": csrf_token(director, "/director/"),
        },
    )
    assert response.status_code == 302
    assert witnesses.alarms(staffed.setup.hall.db) == []
    assert "ALARM:" not in director.get("/director/").get_data(as_text=True)
    (kept,) = witnesses.alarms(staffed.setup.hall.db, include_acknowledged=True)
    assert kept.acknowledged_by == "director"


def test_an_alarm_is_acknowledged_only_by_its_row_id_in_ascii_digits(staffed):
    kiosk = pair_browser(staffed.app, staffed.setup.nwl)
    receipt = kiosk.post("/api/v1/adjudications", json={"words": ["QX"]}).get_json()["receipt"]
    rewrite_row(staffed.setup.db_path, receipt["id"], "ACCEPTABLE")
    poll(kiosk, receipt)
    director = staffed.director()
    token = csrf_token(director, "/director/")
    arabic = "".join(chr(0x0660 + int(d)) for d in str(receipt["id"]))  # int() would take it
    for odd, told in (
        (arabic, "Choose an alarm to acknowledge."),
        ("²", "Choose an alarm to acknowledge."),
        ("-1", "Choose an alarm to acknowledge."),
        ("", "Choose an alarm to acknowledge."),
        ("9" * 20, "No open alarm like that."),  # a number, beyond any row
        (str(2**63), "No open alarm like that."),
    ):
        response = director.post(
            "/director/alarms/acknowledge",
            data={"kiosk": "table-1", "row_id": odd, "csrf_token": token},
            follow_redirects=True,
        )
        assert response.status_code == 200, odd
        assert told in response.get_data(as_text=True), odd
    assert len(witnesses.alarms(staffed.setup.hall.db)) == 1


def test_a_vanished_row_raises_an_alarm(staffed):
    kiosk = pair_browser(staffed.app, staffed.setup.csw)
    receipt = kiosk.post("/api/v1/adjudications", json={"words": ["CH"]}).get_json()["receipt"]
    with sqlite3.connect(staffed.setup.db_path) as connection:
        connection.execute("DELETE FROM adjudications WHERE id = ?", (receipt["id"],))
    connection.close()
    poll(kiosk, receipt)
    (alarm,) = witnesses.alarms(staffed.setup.hall.db)
    assert alarm.kiosk == "table-2" and "no row" in alarm.problem


def test_junk_and_forged_receipts_raise_no_alarm(staffed, caplog):
    kiosk = pair_browser(staffed.app, staffed.setup.nwl)
    receipt = kiosk.post("/api/v1/adjudications", json={"words": ["QI"]}).get_json()["receipt"]
    with caplog.at_level(logging.WARNING, logger="adjudicator.witness"):
        for junk in ("hello", 7, [], {"id": 1}, {**receipt, "id": 99}, {**receipt, "verdict": "X"}):
            poll(kiosk, junk)
    assert witnesses.alarms(staffed.setup.hall.db) == []
    assert sum("does not verify" in r.getMessage() for r in caplog.records) == 2
    assert kiosk.post("/api/v1/kiosk", data="not json").status_code == 200


def test_the_overview_shows_the_record_and_makes_a_checkpoint(staffed):
    kiosk = pair_browser(staffed.app, staffed.setup.nwl)
    kiosk.post("/api/v1/adjudications", json={"words": ["QI"]})
    director = staffed.director()
    page = director.get("/director/").get_data(as_text=True)
    assert (
        "Journal: recording verdicts." in page and "No checkpoint yet: making one verifies" in page
    )
    made = director.post(
        "/director/checkpoint", data={"csrf_token": csrf_token(director, "/director/")}
    )
    assert made.status_code == 201
    text = made.get_data(as_text=True)
    row = journal.get(staffed.setup.hall.db, 1)
    assert "Row <strong>1</strong>" in text and row.row_hash[:16] in text
    page = director.get("/director/").get_data(as_text=True)
    assert "Last checkpoint: row 1" in page
    assert "when the whole chain up to it was verified intact" in page
    downloaded = director.get("/director/checkpoint.json")
    checkpoint = json.loads(downloaded.get_data(as_text=True))
    assert (checkpoint["id"], checkpoint["row_hash"]) == (1, row.row_hash)
    key = director.get("/director/receipt-key.pem").get_data(as_text=True)
    assert key == staffed.setup.hall.signing_key().public_pem()


def test_the_overview_says_why_the_journal_is_lost(staffed):
    kiosk = pair_browser(staffed.app, staffed.setup.nwl)
    director = staffed.director()  # signed in while the journal was there
    kiosk.post("/api/v1/adjudications", json={"words": ["QI"]})
    staffed.setup.db_path.with_name("journal.sqlite3-wal").unlink()
    assert kiosk.post("/api/v1/adjudications", json={"words": ["QI"]}).status_code == 503
    page = director.get("/director/").get_data(as_text=True)
    assert "Journal LOST" in page and "journal.sqlite3-wal was deleted" in page


def test_a_receipt_whose_row_has_another_hash_stops_judging_as_a_fork(staffed):
    """Issue 41: the alarm, and judging stops, exactly as for a row missing; named a fork."""
    from adjudicator.record.journal import rollbacks

    kiosk = pair_browser(staffed.app, staffed.setup.nwl)
    receipt = kiosk.post("/api/v1/adjudications", json={"words": ["QX"]}).get_json()["receipt"]
    kiosk.post("/api/v1/adjudications", json={"words": ["QI"]})  # a row after it: not missing
    rewrite_row(staffed.setup.db_path, receipt["id"], "ACCEPTABLE")
    poll(kiosk, receipt)
    found = rollbacks.current(staffed.setup.hall.db)
    assert found is not None and found.fork == receipt["id"]
    assert "FORK: kiosk table-1's receipt for row 1 names another row there" in found.detail()
    refused = kiosk.post("/api/v1/adjudications", json={"words": ["QI"]})
    assert refused.status_code == 503 and "verdict" not in refused.get_json()


def test_a_receipt_of_a_row_whose_loss_was_accepted_only_raises_the_alarm(staffed):
    """A number the director recorded as lost (`journal accept-loss`): the receipt is news to
    the director (an alarm), not a fork."""
    from adjudicator.record.journal import rollbacks

    kiosk = pair_browser(staffed.app, staffed.setup.nwl)
    receipt = kiosk.post("/api/v1/adjudications", json={"words": ["QI"]}).get_json()["receipt"]
    with sqlite3.connect(staffed.setup.db_path) as connection:
        connection.execute(
            "UPDATE adjudications SET kind = 'void', consequence = ? WHERE id = ?",
            (rollbacks.LOST_TEXT, receipt["id"]),
        )
    connection.close()
    poll(kiosk, receipt)
    assert rollbacks.current(staffed.setup.hall.db) is None
    assert [alarm.row_id for alarm in witnesses.alarms(staffed.setup.hall.db)] == [receipt["id"]]


def test_a_drills_receipt_is_practice_and_raises_nothing(staffed):
    """A receipt the hall's key signed for a drill's journal (`kit open --drill`), for a row
    this journal does not hold yet: ignored, never a rollback."""
    from adjudicator.record.journal import rollbacks

    kiosk = pair_browser(staffed.app, staffed.setup.nwl)
    receipt = kiosk.post("/api/v1/adjudications", json={"words": ["QI"]}).get_json()["receipt"]
    key = staffed.setup.hall.signing_key()
    fields = {name: value for name, value in receipt.items() if name != "signature"}
    drill = key.sign({**fields, "id": 7, "journal": "drill-" + "ab" * 16})
    poll(kiosk, drill)
    assert rollbacks.current(staffed.setup.hall.db) is None
    assert witnesses.alarms(staffed.setup.hall.db) == []
    assert kiosk.post("/api/v1/adjudications", json={"words": ["ZA"]}).status_code == 201
    # the same receipt naming this journal proves row 7 missing: judging stops
    own = key.sign({**fields, "id": 7})
    poll(kiosk, own)
    assert rollbacks.current(staffed.setup.hall.db).row_id == 7
