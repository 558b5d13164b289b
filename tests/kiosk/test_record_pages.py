"""Issue 46 on the director's pages: an event's challenge report (/director/report/SLUG, its
CSV and JSON), the season (/director/season, sortable, its CSV), closing an event from the
Tournaments page after a confirmation, and reopening it with a reason.

While an event runs, no page or answer of the app tells which word of a challenge was not in
the lexicon: every GET route of the app is asked, with every way of asking for the words, and
none names one; the report's `?words=1` is refused (409) citing the tournament's rulebook.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from adjudicator.hall import event_close, tournaments
from adjudicator.judging.corrections import voids

from support.director import page_after, post_form, press
from support.hall import NWL

PHONY = ["CAT", "DOGX"]  # one challenge whose play comes off: DOGX is not in TINY-NWL
WORD_MARKS = ("not_in_lexicon", "Not in the lexicon", "study list")


@pytest.fixture
def played(staffed):
    """Three challenges at the NWL event, one of them void."""
    staffed.challenge(["QI", "ZA"], challenger="Ann", player="Bob", round="1", table="1")
    phony = staffed.challenge(PHONY, challenger="Bob", player="Ann", round="1", table="1")
    wrong = staffed.challenge(["ZEBRA"], challenger="Bob", player="Ann", round="1", table="1")
    voids.void(staffed.db, wrong.id, "typed at the wrong table", actor="td", station="td")
    return staffed, phony


def test_the_report_page_shows_each_player_and_every_challenge(played):
    staffed, phony = played
    director = staffed.director()
    page = director.get(f"/director/report/{NWL}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Challenge report: Spring Open (NWL division)" in html
    assert "this report is the director&#x27;s alone" in html
    assert re.search(rf'<tr id="challenge-{phony.id}">.*?came off', html, re.S)
    made = html.split('id="players-made"')[1].split("</table>")[0]
    ann = re.search(r"<th scope=\"row\">Ann</th>(.*?)</tr>", made).group(1)
    assert re.findall(r">(\d+)<", ann)[:3] == ["1", "0", "1"]  # made, won, lost
    assert 'href="/director/report.css"' in html
    assert director.get("/director/report.css").mimetype == "text/css"
    rows = list(csv.DictReader(io.StringIO(
        director.get(f"/director/report/{NWL}.csv").get_data(as_text=True))))  # fmt: skip
    assert {row["name"]: row["voided"] for row in rows} == {"Ann": "0", "Bob": "1"}
    assert staffed.judge().get(f"/director/report/{NWL}").status_code in (302, 403)
    assert staffed.client().get(f"/director/report/{NWL}.json").status_code in (302, 401, 403)


@pytest.mark.parametrize("asked", ["words=1", "words=true", "words=yes", "words=on"])
def test_the_words_are_refused_while_the_event_runs(played, asked):
    staffed, _ = played
    director = staffed.director()
    for path in (f"/director/report/{NWL}", f"/director/report/{NWL}.json"):
        answer = director.get(f"{path}?{asked}")
        assert answer.status_code == 409, path
        text = answer.get_data(as_text=True)
        assert "is told to no one while the event runs" in text
        assert "DOGX" not in text and not any(mark in text for mark in WORD_MARKS)


def test_no_page_or_answer_of_the_open_event_names_a_word(played):
    """Every GET route of the app, asked as the director, a judge, a kiosk and anyone, with
    and without a request for the words: none says which word was not in the lexicon."""
    staffed, phony = played
    clients = {
        "director": staffed.director(),
        "judge": staffed.judge(),
        "kiosk": staffed.kiosk_browser(),
        "anyone": staffed.client(),
    }
    values = {"slug": NWL, "tournament": NWL, "entry_id": phony.id, "adjudication_id": phony.id,
              "case_id": phony.id, "name": "table-1", "kiosk": "table-1"}  # fmt: skip
    asked = 0
    for rule in staffed.app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint == "static":
            continue
        try:
            path = rule.build({k: v for k, v in values.items() if k in rule.arguments})[1]
        except Exception:  # noqa: BLE001 - a route whose arguments we do not know
            continue
        for client in clients.values():
            for query in ("", "?words=1", "?format=json&words=1"):
                answer = client.get(path + query)
                body = answer.get_data()  # some answers are files (a backup): bytes
                asked += 1
                assert not any(mark.encode() in body for mark in WORD_MARKS), (path, query)
                assert answer.status_code < 500, (path, query)
    assert asked > 100


def test_closing_asks_first_then_stops_judging_and_reopening_needs_a_reason(played):
    staffed, _ = played
    director = staffed.director()
    listed = director.get("/director/tournaments").get_data(as_text=True)
    assert f'href="/director/tournaments/{NWL}/close"' in listed
    confirm = director.get(f"/director/tournaments/{NWL}/close").get_data(as_text=True)
    assert "no challenge is judged for it" in confirm
    assert event_close.closing(staffed.setup.hall, NWL) is None  # asking closes nothing
    close = f"/director/tournaments/{NWL}/close"
    shown = press(director, close, close, {"reason": "the last round is in"})
    assert f"Tournament {NWL} is closed" in shown
    assert "the last round is in" in shown and "Reopen" in shown
    kiosk = staffed.kiosk_browser()
    answer = kiosk.post("/api/v1/adjudications", json={"words": ["QI"]})
    assert answer.status_code == 409 and NWL in answer.get_json()["error"]
    assert "verdict" not in answer.get_json()
    status = kiosk.get("/api/v1/kiosk").get_json()
    assert status["closed"]["message"].startswith("This event is over")
    other = staffed.kiosk_browser(staffed.setup.csw)  # another event judges on
    assert other.post("/api/v1/adjudications", json={"words": ["QI"]}).status_code == 201
    assert "The event" in listed

    again = page_after(director, f"/director/tournaments/{NWL}/close", {})
    assert "closed already" in again
    refused = page_after(director, f"/director/tournaments/{NWL}/reopen", {"reason": ""})
    assert "Give the reason for the reopening" in refused
    assert event_close.closing(staffed.setup.hall, NWL) is not None
    reopened = page_after(director, f"/director/tournaments/{NWL}/reopen",
                          {"reason": "one game to replay"})  # fmt: skip
    assert f"Tournament {NWL} is open again" in reopened
    assert kiosk.post("/api/v1/adjudications", json={"words": ["QI"]}).status_code == 201
    assert status["journal"]["ok"] is True


def test_the_words_are_given_only_once_the_event_is_closed(played):
    staffed, phony = played
    director = staffed.director()
    post_form(director, f"/director/tournaments/{NWL}/close", {"reason": ""})
    html = director.get(f"/director/report/{NWL}").get_data(as_text=True)
    assert 'id="report-words"' in html and "Not in the lexicon" not in html
    worded = director.get(f"/director/report/{NWL}?words=1").get_data(as_text=True)
    row = re.search(rf'<tr id="challenge-{phony.id}">(.*?)</tr>', worded, re.S).group(1)
    assert "Not in the lexicon" in worded and row.count("DOGX") == 2  # its words, and the list
    assert director.get(f"/director/report/{NWL}.json?words=1").get_json()["rounds"][0][
        "challenges"][1]["not_in_lexicon"] == ["DOGX"]  # fmt: skip


def test_the_season_sorts_by_any_column_and_downloads(played):
    staffed, _ = played
    hall = staffed.setup.hall
    tournaments.update(hall.db, hall.store, NWL, event_date="2025-03-01")
    director = staffed.director()
    page = director.get("/director/season?from=2025-01-01&to=2025-12-31&sort=challenges_made"
                        "&order=desc").get_data(as_text=True)  # fmt: skip
    assert 'aria-sort="descending"' in page and 'id="col-challenges_made"' in page
    names = re.findall(r'<th scope="row">([^<]+)</th>', page.split('id="season-players"')[1])
    assert names == ["Ann", "Bob"]  # one each (Bob's other is void), then by name
    by_void = director.get("/director/season?from=2025-01-01&to=2025-12-31&sort=voided"
                           "&order=desc").get_data(as_text=True)  # fmt: skip
    assert re.findall(r'<th scope="row">([^<]+)</th>', by_void)[0] == "Bob"
    download = director.get("/director/season.csv?from=2025-01-01&to=2025-12-31")
    assert download.mimetype == "text/csv"
    assert "attachment" in download.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(download.get_data(as_text=True))))
    assert {r["name"]: r["tournaments"] for r in rows} == {"Ann": "1", "Bob": "1"}
    outside = director.get("/director/season?from=2031-01-01&to=2031-12-31").get_data(as_text=True)
    assert "No tournament&#x27;s first day falls in this season." in outside
    bad = director.get("/director/season?from=2025-02-30&to=x", follow_redirects=True)
    assert bad.status_code == 200 and "YYYY-MM-DD" in bad.get_data(as_text=True)
    unknown = director.get("/director/season?sort=%3Cscript%3E").get_data(as_text=True)
    assert "<script>" not in unknown and "Sort by one of" in unknown


def test_a_name_a_spreadsheet_would_run_is_written_as_text(staffed):
    staffed.challenge(["QI"], challenger='=HYPERLINK("http://x")', player="Ann")
    text = staffed.director().get(f"/director/report/{NWL}.csv").get_data(as_text=True)
    assert "'=HYPERLINK" in text and "\n=HYPERLINK" not in text
