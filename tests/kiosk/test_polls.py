"""Polls that cost next to nothing (issue 36), in-process: the kiosk's status, its table's game
and /healthz carry ETags; a poll that holds the current one gets an empty 304, still let in by
its token or pairing and still recorded as seen; any change (the tournament, its TSH games,
its lexicon, the kiosk revoked or moved) gives a new answer. Held polls over a real server:
tests/kiosk/test_polls_live.py."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.network import connection_caps
from adjudicator.hall.tsh import follow, links
from adjudicator.words.wordlist import WordSet

from support import tsh_files
from support.hall import NWL

EVENT = tsh_files.make_event({"A": 8}, 4, 2)


def poll(client, headers, tag=None, path="/api/v1/kiosk"):
    return client.get(path, headers={**headers, **({"If-None-Match": tag} if tag else {})})


def test_an_unchanged_status_is_an_empty_304_that_still_checks_and_records(client, setup):
    headers = setup.headers()
    first = poll(client, headers)
    tag = first.headers["ETag"]
    assert first.status_code == 200 and tag.startswith('"')
    with setup.hall.db.transaction() as cur:  # seen long ago
        cur.execute("UPDATE kiosks SET last_seen_at = ?", ("2020-01-01T00:00:00+00:00",))
    again = poll(client, headers, tag)
    assert again.status_code == 304 and again.get_data() == b"" and again.headers["ETag"] == tag
    seen = datetime.fromisoformat(kiosks.get(setup.hall.db, "table-1").last_seen_at)
    assert datetime.now(UTC) - seen < timedelta(minutes=1)  # the 304 recorded it as seen
    assert "X-Adjudicator-Hold" not in again.headers
    held_asked = poll(client, headers, tag, "/api/v1/kiosk?wait=20")  # no loop to hold it here
    assert held_asked.status_code == 304 and "X-Adjudicator-Hold" not in held_asked.headers
    for wrong in ({"Authorization": "Bearer k_not-a-token"}, {}):
        refused = poll(client, wrong, tag)  # the tag alone lets nobody in
        assert refused.status_code == 401 and refused.is_json
    kiosks.revoke(setup.hall.db, "table-1")
    assert poll(client, headers, tag).status_code == 401


def test_a_paired_browser_gets_the_304_too_until_it_is_paired_elsewhere(staffed):
    browser = staffed.kiosk_browser()
    tag = browser.get("/api/v1/kiosk").headers["ETag"]
    assert browser.get("/api/v1/kiosk", headers={"If-None-Match": tag}).status_code == 304
    staffed.kiosk_browser(kiosks.new_pairing(staffed.db, "table-1"))  # paired again elsewhere
    assert browser.get("/api/v1/kiosk", headers={"If-None-Match": tag}).status_code == 401


@pytest.mark.parametrize(
    "change",
    ["language", "rule", "lexicon damaged", "moved"],
)
def test_every_change_a_kiosk_must_learn_gives_a_new_status(client, setup, change):
    headers = setup.headers()
    tag = poll(client, headers).headers["ETag"]
    db, store = setup.hall.db, setup.store
    if change == "language":
        tournaments.update(db, store, NWL, language="pl")
    elif change == "rule":
        tournaments.update(db, store, NWL, rule="escalating")
    elif change == "lexicon damaged":
        store.save("TINY-NWL", WordSet.of(["QI", "QX"]))  # re-imported with other words
    else:
        kiosks.move(db, "table-1", "spring-csw")
    fresh = poll(client, headers, tag)
    assert fresh.status_code == 200 and fresh.headers["ETag"] != tag
    body = fresh.get_json()
    expected = {
        "language": lambda: body["tournament"]["language"] == "pl",
        "rule": lambda: body["rule"]["name"] == "escalating",
        "lexicon damaged": lambda: body["lexicon"]["available"] is False,
        "moved": lambda: body["tournament"]["slug"] == "spring-csw",
    }
    assert expected[change]()


def test_a_new_round_from_tsh_changes_the_status_and_the_table(client, setup, tmp_path):
    path = tsh_files.write_tourney_js(tmp_path / "tourney.js", EVENT)
    links.link(setup.hall.db, NWL, str(path))
    seated = kiosks.add(setup.hall.db, "board-2", NWL, table=2)
    headers = {"Authorization": f"Bearer {seated.token}"}
    status = poll(client, headers)
    game = status.get_json()["table_game"]
    table = poll(client, headers, path="/api/v1/table")
    assert table.status_code == 200 and table.get_json()["round"] == 3
    table_tag = table.headers["ETag"]
    assert poll(client, headers, table_tag, "/api/v1/table").status_code == 304
    assert poll(client, headers, status.headers["ETag"]).status_code == 304
    for number in (3, 4):
        tsh_files.score_round(EVENT, "A", number)
    tsh_files.pair_round(EVENT, "A")
    tsh_files.write_tourney_js(path, EVENT)  # TSH writes round 5
    follow.Follower(setup.hall.db, 1, 30).run_once()
    fresh = poll(client, headers, status.headers["ETag"])
    assert fresh.status_code == 200 and fresh.get_json()["table_game"] not in (None, game)
    table = poll(client, headers, table_tag, "/api/v1/table")
    assert table.status_code == 200 and table.get_json()["round"] == 5


def test_a_kiosk_with_nothing_to_ask_of_the_table_is_told_so(client, setup, tmp_path):
    """No TSH link, or no table of its own: `table_game` is null, and the page asks nothing."""
    assert poll(client, setup.headers()).get_json()["table_game"] is None  # not linked
    links.link(setup.hall.db, NWL, str(tsh_files.write_tourney_js(tmp_path / "t.js", EVENT)))
    assert poll(client, setup.headers()).get_json()["table_game"] is None  # no table
    kiosks.set_table(setup.hall.db, "table-1", 4)
    assert poll(client, setup.headers()).get_json()["table_game"]


def test_the_table_answer_in_another_language_has_another_tag(client, setup):
    headers = setup.headers()
    english = poll(client, headers, path="/api/v1/table")
    asked = {**headers, "Accept-Language": "pl", "If-None-Match": english.headers["ETag"]}
    polish = client.get("/api/v1/table", headers=asked)
    assert polish.status_code == 404 and polish.headers["ETag"] != english.headers["ETag"]
    assert polish.get_json()["shown_error"] != english.get_json()["shown_error"]


def test_healthz_is_a_304_while_the_hall_stays_as_it_was(client, setup):
    first = client.get("/healthz")
    closed = {kind: 0 for kind in connection_caps.KINDS}  # nothing refused: no worker here
    assert first.status_code == 200 and first.get_json() == {
        "ok": True, "status": 200, "journal": "ok", "warnings": [], "connections": closed
    }  # fmt: skip
    tag = first.headers["ETag"]
    again = client.get("/healthz", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.get_data() == b""
    for name in setup.store.names():  # nothing to judge with: the checks still run
        (setup.store.root / f"{name}.json").unlink()
    gone = client.get("/healthz", headers={"If-None-Match": tag})
    assert gone.status_code == 503 and "No lexicon is installed" in gone.get_json()["error"]


def test_a_witness_in_the_poll_is_checked_and_junk_in_it_changes_nothing(client, setup, caplog):
    headers = setup.headers()
    entry = setup.hall.adjudicate(kiosks.get(setup.hall.db, "table-1"), ["QI"])
    receipt = setup.hall.receipt(entry)
    tag = poll(client, headers).headers["ETag"]
    encoded = base64.urlsafe_b64encode(json.dumps(receipt).encode()).decode().rstrip("=")
    witnessed = poll(client, {**headers, "X-Kiosk-Witness": encoded}, tag)
    assert witnessed.status_code == 304
    with setup.hall.db.transaction() as cur:  # kept as the kiosk's newest receipt
        (row,) = cur.execute("SELECT row_id FROM kiosk_witnesses").tuples()
    assert row[0] == entry.id
    for junk in ("!!!", "e30", base64.urlsafe_b64encode(b'{"id": 1}').decode()):
        answer = poll(client, {**headers, "X-Kiosk-Witness": junk}, tag)
        assert answer.status_code == 304  # ignored (and logged), never a 500
    assert "sent a witness that is not a receipt" in caplog.text


def test_a_poll_asks_to_be_held_25_seconds_at_most_and_only_when_it_can_be(client, setup):
    headers = setup.headers()
    tag = poll(client, headers).headers["ETag"]
    can_hold = {"adjudicator.hold": True}  # what the loop worker's bridge says in the environ
    for wait, asked in (("999999", "25"), ("7", "7"), ("0", None), ("-3", None), ("x", None)):
        answer = client.get(f"/api/v1/kiosk?wait={wait}", headers={**headers, "If-None-Match": tag},
                            environ_overrides=can_hold)  # fmt: skip
        hold = answer.headers.get("X-Adjudicator-Hold")
        assert answer.status_code == 304 and (hold.split()[0] if hold else None) == asked, wait
    fresh = client.get("/api/v1/kiosk?wait=20", headers=headers, environ_overrides=can_hold)
    assert fresh.status_code == 200 and "X-Adjudicator-Hold" not in fresh.headers  # no tag held
    stranger = client.get("/api/v1/kiosk?wait=20", headers={"If-None-Match": tag},
                          environ_overrides=can_hold)  # fmt: skip
    assert stranger.status_code == 401 and "X-Adjudicator-Hold" not in stranger.headers


def test_a_kiosk_seen_under_a_clock_set_back_since_is_seen_anew_and_never_shown_as_ahead(
    client, setup
):
    """The laptop's clock ran an hour ahead and was set right: a kiosk's "last seen" an hour
    ahead must not keep it "online" for that hour after it stops, nor stop it being seen."""
    from adjudicator.hall.director import hall_map, hall_status

    ahead = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    with setup.hall.db.transaction() as cur:
        cur.execute("UPDATE kiosks SET last_seen_at = ? WHERE name = 'table-1'", (ahead,))
    kiosk = kiosks.get(setup.hall.db, "table-1")
    now = datetime.now(UTC)
    assert hall_status.kiosk_status(kiosk, now).state == "offline"  # not seen since
    assert hall_map.kiosk_state(kiosk, now).minutes == 0  # never "offline for -60 minutes"
    assert poll(client, setup.headers()).status_code == 200  # it polls: seen now
    seen = datetime.fromisoformat(kiosks.get(setup.hall.db, "table-1").last_seen_at)
    assert abs(datetime.now(UTC) - seen) < timedelta(minutes=1)
    assert hall_status.kiosk_status(kiosks.get(setup.hall.db, "table-1"), now).state == "online"
