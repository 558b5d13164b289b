"""How a kiosk shows its verdicts to a player who cannot see the screen well (issue 44, item 3),
in-process: the director sets it (`kiosk access`, the Kiosks page) and nobody else can; the
kiosk's status says it, under a new ETag, so a held poll is answered at once. The browser's
part (the speech, the large screen): tests/kiosk/test_kiosk_access_browser.py."""

from __future__ import annotations

import json

from adjudicator.hall import kiosks
from kiosk.kiosk_poll import EXTENSION, hold_key, shared, status_tag

from support.director import page_after, press
from support.hall import NWL, ok, refused


def test_the_cli_sets_and_says_a_kiosks_access(run, setup, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", str(setup.db_path))
    monkeypatch.setenv("ADJUDICATOR_HOME", str(setup.store.root.parent))
    assert ok(run("kiosk", "access", "table-1")) == (
        "Kiosk 'table-1' does not speak, on the usual screen.\n"
    )
    assert ok(run("kiosk", "access", "table-1", "--speak")) == (
        "Kiosk 'table-1' says each verdict aloud, on the usual screen.\n"
    )
    assert ok(run("kiosk", "access", "table-1", "--large")) == (  # speech stays on
        "Kiosk 'table-1' says each verdict aloud, on a large, high-contrast screen.\n"
    )
    listed = {row["name"]: row for row in json.loads(ok(run("kiosk", "list", "--json")))}
    assert (listed["table-1"]["speaks"], listed["table-1"]["large"]) == (True, True)
    assert (listed["table-2"]["speaks"], listed["table-2"]["large"]) == (False, False)
    ok(run("kiosk", "access", "table-1", "--no-speak", "--no-large"))
    assert kiosks.get(setup.hall.db, "table-1").access == ""
    refused(run("kiosk", "access", "nobody", "--speak"), "No kiosk named 'nobody'")


def test_the_status_says_it_under_a_new_tag_and_a_held_poll_is_asked_again(client, setup, app):
    headers = setup.headers()
    first = client.get("/api/v1/kiosk", headers=headers)
    assert first.get_json()["access"] == {"speak": False, "large": False}
    tag = first.headers["ETag"]
    with app.test_request_context():
        before = kiosks.get(setup.hall.db, "table-1")
        key = hold_key(before, status_tag(before, shared(setup.hall, NWL)))
    kiosks.set_access(setup.hall.db, "table-1", speak=True)
    assert app.extensions[EXTENSION].changed([key]) == {key}  # the held poll is run again
    fresh = client.get("/api/v1/kiosk", headers={**headers, "If-None-Match": tag})
    assert fresh.status_code == 200 and fresh.headers["ETag"] != tag
    assert fresh.get_json()["access"] == {"speak": True, "large": False}
    other = client.get("/api/v1/kiosk", headers=setup.headers(setup.csw)).get_json()
    assert other["access"] == {"speak": False, "large": False}  # one kiosk's, not the hall's


def test_the_kiosk_page_is_large_from_its_first_paint(staffed):
    kiosks.set_access(staffed.db, "table-1", large=True)
    page = staffed.kiosk_browser().get("/").get_data(as_text=True)
    assert '<html lang="en" class="access-large">' in page
    assert 'class="kiosk access-large"' in page


def test_only_the_director_sets_it_and_a_kiosk_cannot(staffed):
    kiosk = staffed.kiosk_browser()
    for client in (kiosk, staffed.judge()):
        answer = client.post("/director/kiosks/table-1/access", data={"speak": "1"})
        assert answer.status_code in (302, 400, 403)
    assert kiosks.get(staffed.db, "table-1").access == ""
    director = staffed.director()
    action = "/director/kiosks/table-1/access"
    page = press(director, "/director/kiosks", action, {"speak": "1"})
    assert "Kiosk table-1: saved how it shows its verdicts" in page
    assert kiosks.get(staffed.db, "table-1").speaks and not kiosks.get(staffed.db, "table-1").large
    page = press(director, "/director/kiosks", action, {"large": "1"})  # unticked: speech off
    assert kiosks.get(staffed.db, "table-1").access == "large"
    assert 'name="large" value="1" checked' in page
    missing = page_after(director, action.replace("table-1", "nobody"), {"speak": "1"})
    assert "No kiosk named &#39;nobody&#39;." in missing  # said, never a 500
