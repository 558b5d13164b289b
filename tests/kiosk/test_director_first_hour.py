"""A new director's first hour: the sign-in form names the director's account, and a fault on
the director's pages says where to look, not "call the director"; the journal shows round,
table and challenger."""

from __future__ import annotations

import re

import pytest

from adjudicator.hall.director import hall_status

from support.director import post_form
from support.hall import NWL, submit_pairing_code


def test_the_directors_sign_in_is_filled_with_director_and_says_so(staffed):
    page = staffed.client().get("/director/login").get_data(as_text=True)
    assert 'id="name" name="name" value="director"' in page
    assert "the director's is <code>director</code>" in page
    assert "adjudicator director set-password" in page
    judge = staffed.client().get("/judge/login").get_data(as_text=True)
    assert 'id="name" name="name" value=""' in judge  # a word judge types their own name


def test_a_fault_on_the_directors_page_does_not_tell_the_director_to_call_the_director(
    staffed, monkeypatch
):
    director = staffed.director()

    def broken(hall):
        raise RuntimeError("an unexpected fault")

    monkeypatch.setattr(hall_status, "build", broken)
    reply = director.get("/director/")
    page = reply.get_data(as_text=True)
    assert reply.status_code == 500
    assert "call the director" not in page.lower()
    assert "adjudicator hall" in page and "log" in page
    assert "an unexpected fault" not in page and "Traceback" not in page


def test_a_fault_on_a_kiosk_still_says_call_the_director(staffed, monkeypatch):
    from kiosk import pages

    monkeypatch.setattr(pages, "current_kiosk", lambda: 1 / 0)
    reply = staffed.client().get("/")
    assert reply.status_code == 500
    assert "Call the director" in reply.get_data(as_text=True)


def test_the_journal_has_round_table_and_challenger_columns(staffed):
    staffed.challenge(["QI"], round="3", table="14", challenger="Ada")
    page = staffed.director().get("/director/journal").get_data(as_text=True)
    assert "<th>Round</th><th>Table</th><th>Challenger</th>" in page
    assert '<td data-label="Round">3</td><td data-label="Table">14</td>' in page
    assert '<td data-label="Challenger">Ada</td>' in page


def test_the_kiosks_page_prints_a_pairing_sheet_whose_codes_pair_once(staffed):
    director = staffed.director()
    page = director.get("/director/kiosks").get_data(as_text=True)
    assert 'id="sheet-form"' in page and "Links point at <code>http://localhost</code>" in page
    token = re.search(
        r'id="sheet-form">\s*<input type="hidden" name="csrf_token" value="([^"]+)"', page
    ).group(1)
    reply = director.post(
        "/director/kiosks/sheet",
        data={"tournament": NWL, "tables": "1-5", "csrf_token": token},
    )
    assert reply.status_code == 200 and reply.headers["Cache-Control"] == "no-store"
    sheet = reply.get_data(as_text=True)
    assert sheet.count('<article class="table-card"') == 5 and sheet.count("<svg") == 5
    assert "This code works once" in sheet
    codes = re.findall(r'<p class="code">([A-Z0-9]+)</p>', sheet)
    assert len(set(codes)) == 5
    assert "http://localhost/pair" in sheet  # no hall recorded: the address asked
    tablet = staffed.client()
    assert submit_pairing_code(tablet, codes[0]).status_code == 302
    assert submit_pairing_code(staffed.client(), codes[0]).status_code == 400  # used once
    listed = director.get("/director/kiosks").get_data(as_text=True)
    assert f"{NWL[:28]} table 5" in listed


def test_bad_tables_on_the_kiosks_page_flash_what_to_type(staffed):
    reply = post_form(
        staffed.director(),
        "/director/kiosks/sheet",
        {"tournament": NWL, "tables": "20-1"},
        page="/director/kiosks",
        follow_redirects=True,
    )
    assert reply.status_code == 200
    assert "the smaller number first" in reply.get_data(as_text=True)


@pytest.mark.parametrize("hours", ["0", "-3", "721", "99999999999999999999", "two"])
def test_bad_hours_on_the_kiosks_page_flash_what_to_type_and_enrol_nothing(staffed, hours):
    director = staffed.director()
    page = director.get("/director/kiosks").get_data(as_text=True)
    assert 'id="sheet-hours" name="valid_hours" type="number"' in page and 'value="72"' in page
    reply = post_form(
        director,
        "/director/kiosks/sheet",
        {"tournament": NWL, "tables": "1-2", "valid_hours": hours},
        page="/director/kiosks",
        headers={"Accept-Language": "pl"},
        follow_redirects=True,
    )
    assert reply.status_code == 200
    said = reply.get_data(as_text=True)
    assert "Kody arkusza są ważne od 1 do 720 pełnych godzin (30 dni), np. 72" in said
    assert f"{NWL} table 1" not in said  # nothing enrolled


def test_the_kiosks_page_prints_codes_valid_for_the_hours_asked(staffed):
    from datetime import datetime, timedelta

    director = staffed.director()
    before = datetime.now().astimezone().replace(second=0, microsecond=0)
    sheet = post_form(
        director,
        "/director/kiosks/sheet",
        {"tournament": NWL, "tables": "1-3", "valid_hours": "5"},
        page="/director/kiosks",
    ).get_data(as_text=True)
    shown = set(re.findall(r'<p class="expires">Valid until ([\d-]+ [\d:]+) ', sheet))
    assert len(shown) == 1
    expires = datetime.strptime(shown.pop(), "%Y-%m-%d %H:%M").astimezone()
    assert before + timedelta(hours=5) <= expires <= before + timedelta(hours=5, minutes=2)
    assert '<link rel="stylesheet" href="/director/kiosks/sheet.css">' in sheet
    assert "<style" not in sheet and " style=" not in sheet
    style = director.get("/director/kiosks/sheet.css")
    assert style.status_code == 200 and style.mimetype == "text/css"
    assert ".table-card" in style.get_data(as_text=True)
    assert staffed.client().get("/director/kiosks/sheet.css").status_code in (302, 303, 401)


def test_pairing_links_on_the_directors_pages_point_at_the_hall(staffed, home, monkeypatch):
    from adjudicator.hall.network import hall_url

    monkeypatch.delenv("ADJUDICATOR_PUBLIC_URL", raising=False)
    hall_url.record(
        hall_url.HallRecord("https://club.local:8443", "club", 8443, ("10.0.0.5",), True)
    )
    director = staffed.director()  # on the hall laptop, at 127.0.0.1 (here: localhost)
    page = director.get("/director/kiosks").get_data(as_text=True)
    assert "Links point at <code>https://club.local:8443</code>" in page
    name = staffed.setup.nwl.kiosk.name
    reply = post_form(director, f"/director/kiosks/{name}/pair", page="/director/kiosks")
    assert 'id="pairing-link">https://club.local:8443/pair#' in reply.get_data(as_text=True)
