"""Another device answering for the hall's name: told apart from the hall's own answers, shared
with the workers through one file (read back cheaply, ignored once the hall that wrote it is
gone), and shown in /healthz's `warnings` and on the director's overview, in the page's
language, beside the CA's fingerprint."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from adjudicator.hall import sheet_page
from adjudicator.hall.network import hall_tls, name_claims

OWN = frozenset({"192.0.2.2", "127.0.0.1", "fd00::2"})


def claims(announced: bool = False, pid: int | None = None, *others: str):
    found = name_claims.others_from(
        {address: (1_700_000_000.0, 1_700_000_060.0) for address in others}, OWN
    )
    return name_claims.NameClaims(
        "club", announced, "https://192.0.2.2:8443", found, os.getpid() if pid is None else pid
    )


def test_answers_carrying_the_halls_own_addresses_are_not_another_device():
    heard = {
        "192.0.2.2": (10.0, 20.0),  # the hall's own answer
        "fd00::2": (10.0, 20.0),
        "192.0.2.77": (12.0, 19.0),
        "fd00::77": (11.0, 18.0),
    }
    found = name_claims.others_from(heard, OWN)
    assert [o.address for o in found] == ["fd00::77", "192.0.2.77"]  # first heard first
    assert found[1].first_heard == "1970-01-01T00:00:12+00:00"
    assert name_claims.others_from({"192.0.2.2": (1.0, 2.0)}, OWN) == ()


def test_a_flood_of_addresses_is_one_conflict_in_a_few_lines():
    heard = {f"10.9.{i // 250}.{i % 250}": (float(i), float(i)) for i in range(1000)}
    assert len(name_claims.others_from(heard, OWN)) == name_claims.MOST_SHOWN


def test_the_warnings_name_the_other_device_and_what_the_hall_did():
    before_start = claims(False, None, "192.0.2.77").warnings()
    assert before_start == [
        "Another device (192.0.2.77) answers for club.local (heard 2023-11-14 22:13:20 to "
        "2023-11-14 22:14:20 UTC), so the hall does not announce that name: pairing links and "
        "sheets point at https://192.0.2.2:8443. Find that device, or restart the hall with "
        "another --name."
    ]
    while_serving = claims(True, None, "192.0.2.77").warnings()
    assert "answers for club.local too" in while_serving[0]
    assert "may reach it instead of the hall" in while_serving[0]


def test_the_running_hall_shares_what_it_found_and_a_dead_halls_file_is_ignored(home):
    assert name_claims.current() is None  # no hall ran here
    name_claims.write(claims(True, None, "192.0.2.77"))
    found = name_claims.current()
    assert [o.address for o in found.others] == ["192.0.2.77"]
    name_claims.write(claims(True, None, "192.0.2.77", "192.0.2.78"))  # rewritten: read afresh
    assert [o.address for o in name_claims.current().others] == ["192.0.2.77", "192.0.2.78"]
    # a hall killed without its clean stop: its pid is gone, so its findings are not now's
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], text=True, capture_output=True
    ).stdout
    name_claims.write(claims(True, int(gone), "192.0.2.77"))
    assert name_claims.current() is None
    name_claims.state_path().write_text("{half a file")
    assert name_claims.current() is None
    name_claims.clear()
    name_claims.clear()  # twice: harmless
    assert not name_claims.state_path().exists()


def test_healthz_and_the_overview_show_another_device_and_the_fingerprint(staffed, home):
    client = staffed.app.test_client()
    assert client.get("/healthz").get_json()["warnings"] == []
    overview = staffed.director().get("/director/").get_data(as_text=True)
    assert "overview-name-warnings" not in overview and "overview-ca-fingerprint" not in overview

    tls = hall_tls.ensure("club", ["192.0.2.2"])
    name_claims.write(claims(False, None, "192.0.2.77"))
    health = client.get("/healthz")
    assert health.status_code == 200
    body = health.get_json()
    assert body["ok"] is True and len(body["warnings"]) == 1
    assert "Another device (192.0.2.77) answers for club.local" in body["warnings"][0]

    director = staffed.director()
    overview = director.get("/director/").get_data(as_text=True)
    assert 'id="overview-name-warnings"' in overview
    assert "Another device (192.0.2.77) answers for club.local" in overview
    shown = sheet_page.fingerprint_html(tls.ca_fingerprint)  # as the printed sheet shows it
    assert f'<code id="overview-ca-fingerprint">{shown}</code>' in overview
    part = director.get("/director/overview").get_data(as_text=True)  # the refresh has it too
    assert "192.0.2.77" in part and shown in part

    director.set_cookie("language", "pl")
    polish = director.get("/director/").get_data(as_text=True)
    assert "Inne urządzenie (192.0.2.77) odpowiada na nazwę club.local" in polish
    assert "Odcisk certyfikatu sali (SHA-256)" in polish
    assert client.get("/healthz").get_json()["warnings"] == body["warnings"]  # English, always


def test_healthz_reads_the_shared_file_only_when_it_changed(staffed, home, monkeypatch):
    name_claims.write(claims(False, None, "192.0.2.77"))
    client = staffed.app.test_client()
    assert client.get("/healthz").get_json()["warnings"]
    reads = []
    original = name_claims._read
    monkeypatch.setattr(name_claims, "_read", lambda path: reads.append(path) or original(path))
    for _ in range(5):
        assert client.get("/healthz").get_json()["warnings"]
    assert reads == []  # a stat per request, the file parsed once
    data = json.loads(name_claims.state_path().read_text())
    data["others"] = []
    name_claims.state_path().write_text(json.dumps(data) + "\n" * 3)
    assert client.get("/healthz").get_json()["warnings"] == []
    assert len(reads) == 1
