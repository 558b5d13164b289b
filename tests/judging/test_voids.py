"""Voids and reissues (issue 11, item 5): a challenge that counts for nothing, as a linked row.

NSA IV.I.2 and NASPA 4.10 (a challenge withdrawn once a blank is cleared up), NASPA 5.4 (an
outplay challenge rescinded), WESPA 3.10.12 and MSA 13 (a slip that did not match the board,
reissued). The original row never changes; views and exports show the effective outcome.
"""

from __future__ import annotations

import csv
import io
import json
import threading

import pytest

from adjudicator.hall import kiosks
from adjudicator.judging.corrections import voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.judging.corrections.voids import VoidRefused
from adjudicator.judging.reasons import ReasonRequired
from adjudicator.record.journal import journal

from support.director import Staffed, give_opinion, outcome, page_after, post_form, press
from support.hall import refused

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


def void(staffed: Staffed, entry_id: int, reason: str = "entered at the wrong kiosk"):
    return voids.void(staffed.db, entry_id, reason, actor="director", station="director")


def test_nsa_iv_i_2_a_withdrawn_challenge_is_void_with_no_penalty(staffed):
    original = staffed.challenge(["QI", "ZA"])  # 5-per-word: the player would add 10
    row = void(staffed, original.id, "blank misheard: withdrawn (NSA IV.I.2)")
    assert (row.kind, row.refers_to, row.verdict, row.words, row.actor) == (
        "void",
        original.id,
        "VOID",
        (),
        "director",
    )
    assert row.note == "blank misheard: withdrawn (NSA IV.I.2)"
    assert row.penalty_numbers() == {
        "play_stands": None,
        "points_to_player": 0,
        "challenger_loses_turn": False,
        "points_to_challenger": 0,
    }
    assert journal.get(staffed.db, original.id) == original  # the original row is untouched
    found = outcome(staffed, original.id)
    assert (found.verdict, found.decided_by) == ("VOID", row.id)
    assert found.how == f"void #{row.id}: blank misheard: withdrawn (NSA IV.I.2)"
    assert journal.verify(staffed.db).ok


def test_voiding_again_is_refused(staffed):
    original = staffed.challenge(["QI"])
    void(staffed, original.id)
    with pytest.raises(VoidRefused, match=f"#{original.id} is already void"):
        void(staffed, original.id)


def test_only_a_challenge_can_be_void_and_the_reason_is_required(staffed):
    original = staffed.challenge(["QI"])
    opinion = give_opinion(staffed, original.id, ["QI"])
    with pytest.raises(VoidRefused, match="is a second-opinion, not a challenge"):
        void(staffed, opinion.entry.id)
    with pytest.raises(VoidRefused, match="No adjudication #99"):
        void(staffed, 99)
    with pytest.raises(ReasonRequired, match="reason for the void"):
        void(staffed, original.id, "  ")


def test_two_voids_at_once_record_one(staffed):
    original = staffed.challenge(["QI"])
    start = threading.Barrier(4)
    done, refusals = [], []

    def try_void():
        start.wait(10)
        try:
            done.append(void(staffed, original.id))
        except VoidRefused as exc:
            refusals.append(exc)

    threads = [threading.Thread(target=try_void) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert (len(done), len(refusals)) == (1, 3)


def test_a_void_challenge_takes_no_second_opinion_and_no_ruling(staffed):
    original = staffed.challenge(["QI"])
    void(staffed, original.id)
    with pytest.raises(VoidRefused, match="already void"):
        give_opinion(staffed, original.id, ["QI"])
    with pytest.raises(VoidRefused, match="already void"):
        record_ruling(staffed.db, original.id, "acceptable", "review", actor="d", station="d")


def test_a_void_challenge_leaves_the_flags(staffed, run, home, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", staffed.db.url)
    original = staffed.challenge(["QI", "ZA"], table="3")
    give_opinion(staffed, original.id, "QI ZAX")
    assert f"#{original.id} |" in run("flags").stdout
    void(staffed, original.id, "typed for the wrong game")
    assert run("flags").stdout == "No second opinion is waiting for a ruling.\n"
    page = staffed.director().get("/director/flags").get_data(as_text=True)
    assert f'id="case-{original.id}"' not in page


def test_a_ruling_then_a_void_only_over_the_ruling(staffed):
    """A ruling is final (WESPA 3.10.13, NSA X.G): a plain void is refused; the director may
    still void it over the ruling (NASPA 5.4: rescinded), and the journal keeps both rows."""
    original = staffed.challenge(["QI", "QX"])
    ruling = record_ruling(
        staffed.db, original.id, "acceptable", "QX misread", actor="d", station="d"
    )
    assert outcome(staffed, original.id).verdict == "ACCEPTABLE"
    with pytest.raises(voids.RulingIsFinal, match=f"final ruling \\(journal row #{ruling.id}\\)"):
        void(staffed, original.id, "rescinded: tiles found (NASPA 5.4)")
    assert outcome(staffed, original.id).verdict == "ACCEPTABLE"
    row = voids.void(
        staffed.db,
        original.id,
        "rescinded: tiles found (NASPA 5.4)",
        actor="director",
        station="director",
        over_ruling=True,
    )
    assert row.note.endswith(f"[void over the director's ruling #{ruling.id}]")
    assert outcome(staffed, original.id).verdict == "VOID"
    kinds = [e.kind for e in journal.follow_ups(staffed.db, original.id)]
    assert kinds == ["ruling", "void"]


# ---------- reissues (WESPA 3.10.12, MSA 13) ----------


def reissue(staffed: Staffed, replaces, words=("QI", "JO"), enrolment=None, **details):
    kiosk = kiosks.get(staffed.db, (enrolment or staffed.setup.nwl).kiosk.name)
    return staffed.setup.hall.adjudicate(kiosk, list(words), replaces=replaces, **details)


def test_wespa_3_10_12_a_reissued_slip_replaces_the_one_that_did_not_match(staffed):
    slip = staffed.challenge(["QI", "ZO"])
    corrected = reissue(staffed, slip.id)
    assert corrected.kind == "challenge" and corrected.refers_to == slip.id
    assert corrected.verdict == "ACCEPTABLE"
    replaced = outcome(staffed, slip.id)
    assert (replaced.verdict, replaced.decided_by) == ("VOID", corrected.id)
    assert replaced.how == f"reissued as #{corrected.id}"
    assert outcome(staffed, corrected.id).verdict == "ACCEPTABLE"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing", "There is no challenge #99"),
        ("other kiosk", "was not made here"),
        ("already void", "already void"),
        ("already reissued", "already reissued"),
        ("other table", "was for table 4"),
        ("an earlier one", "not the latest one made here"),
    ],
)
def test_a_reissue_must_replace_a_live_challenge_of_the_same_kiosk_and_game(
    staffed, target, message
):
    if target == "missing":
        replaces = 99
    elif target == "other kiosk":
        replaces = staffed.challenge(["CH"], enrolment=staffed.setup.csw).id
    elif target == "other table":
        replaces = staffed.challenge(["QI"], table="4").id
    elif target == "an earlier one":
        replaces = staffed.challenge(["QI"]).id
        staffed.challenge(["ZA"])  # the next turn's challenge at the same kiosk
    else:
        replaces = staffed.challenge(["QI"]).id
        if target == "already void":
            void(staffed, replaces)
        else:
            reissue(staffed, replaces)
    before = list(journal.entries(staffed.db))
    with pytest.raises(VoidRefused, match=message):
        reissue(staffed, replaces, table="5" if target == "other table" else None)
    assert list(journal.entries(staffed.db)) == before  # nothing judged, nothing recorded


def test_wespa_3_10_12_the_latest_challenge_of_that_game_may_be_reissued(staffed):
    """At a shared kiosk another table's challenge in between does not block the reissue."""
    slip = staffed.challenge(["QI", "ZO"], table="4")
    staffed.challenge(["CAT"], table="9")
    corrected = reissue(staffed, slip.id, table="4")
    assert corrected.refers_to == slip.id
    again = reissue(staffed, corrected.id, ["QI", "ZA"], table="4")  # the reissue, reissued
    assert again.refers_to == corrected.id


def test_the_api_takes_replaces_and_refuses_a_bad_one_with_no_verdict(staffed):
    browser = staffed.kiosk_browser()
    first = browser.post("/api/v1/adjudications", json={"words": ["QI", "ZO"]}).get_json()
    response = browser.post(
        "/api/v1/adjudications", json={"words": ["QI", "JO"], "replaces": first["id"]}
    )
    assert response.status_code == 201 and response.get_json()["refers_to"] == first["id"]
    for bad, status, text in (
        (first["id"], 400, "already reissued"),
        ("seven", 400, "replaces must be the number"),
        (True, 400, "replaces must be the number"),
        (-3, 400, "replaces must be the number"),
    ):
        answer = browser.post("/api/v1/adjudications", json={"words": ["QI"], "replaces": bad})
        body = answer.get_json()
        assert answer.status_code == status and text in body["error"], body
        assert "verdict" not in body and body["ok"] is False


# ---------- the CLI and the director's journal page ----------


def test_cli_void(run, home, staffed, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", staffed.db.url)
    original = staffed.challenge(["QI"])
    out = run("void", str(original.id), "--reason", "entered by mistake")
    assert out.exit_code == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"Adjudication #{original.id} is void (journal row #")
    assert lines[2] == "Reason: entered by mistake"
    refused(run("void", str(original.id), "--reason", "again"), "already void")
    refused(run("void", "999", "--reason", "nothing"), "No adjudication #999")
    refused(run("void", str(original.id)), "Missing option '--reason'")
    refused(run("void", "x", "--reason", "r"), "'x' is not a valid integer")
    huge = "9" * 25  # more than any database integer: not found, never a traceback
    refused(run("void", huge, "--reason", "nothing"), f"No adjudication #{huge}")
    refused(run("ruling", huge, "--verdict", "acceptable", "--reason", "r1"), "No adjudication")
    refused(run("second-opinion", huge, "QI"), f"No adjudication #{huge}")


def test_exports_show_the_effective_outcome(run, home, staffed, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", staffed.db.url)
    kept = staffed.challenge(["QI"])
    dropped = staffed.challenge(["ZA"])
    void(staffed, dropped.id, "test challenge")
    rows = json.loads(run("journal", "export", "--format", "json").stdout)
    by_id = {row["id"]: row for row in rows}
    assert by_id[kept.id]["effective"]["verdict"] == "ACCEPTABLE"
    assert by_id[dropped.id]["effective"]["verdict"] == "VOID"
    assert by_id[dropped.id]["verdict"] == "ACCEPTABLE"  # as judged, kept in the record
    assert by_id[dropped.id + 1]["kind"] == "void" and by_id[dropped.id + 1]["effective"] is None
    table = list(csv.DictReader(io.StringIO(run("journal", "export").stdout)))
    dropped_row = next(row for row in table if row["id"] == str(dropped.id))
    assert dropped_row["effective_verdict"] == "VOID"
    assert dropped_row["effective_how"].endswith("test challenge")


def test_the_void_button_on_the_journal_page(staffed):
    original = staffed.challenge(["QI", "ZA"])
    director = staffed.director()
    button = f"/director/journal/{original.id}/void"
    form = {"reason": "withdrawn: blank misunderstood"}
    text = press(director, "/director/journal", button, form)
    assert f"Adjudication #{original.id} is void" in text
    assert "<strong>VOID</strong>" in text and "withdrawn: blank misunderstood" in text
    assert f'action="/director/journal/{original.id}/void"' not in text  # no second button
    again = page_after(director, button, {"reason": "again"}, page="/director/journal")
    assert "already void" in again
    csv_text = director.get("/director/journal.csv").get_data(as_text=True)
    assert "effective_verdict" in csv_text.splitlines()[0] and ",VOID," in csv_text


def test_an_id_beyond_any_row_is_not_found_on_the_pages(staffed):
    huge = "9" * 25
    director = staffed.director()
    done = post_form(
        director,
        f"/director/journal/{huge}/void",
        {"reason": "nothing"},
        page="/director/journal",
        follow_redirects=True,
    )
    assert done.status_code == 200 and f"No adjudication #{huge}" in done.get_data(as_text=True)
    assert staffed.judge().get(f"/judge/case?id={huge}").status_code == 404


def test_only_the_director_voids(staffed):
    original = staffed.challenge(["QI"])
    judge = staffed.judge()
    response = post_form(
        judge, f"/director/journal/{original.id}/void", {"reason": "x" * 5}, page="/judge/"
    )
    assert response.status_code == 403
    assert journal.get(staffed.db, original.id + 1) is None


def test_void_is_refused_without_a_csrf_token(staffed):
    original = staffed.challenge(["QI"])
    response = staffed.director().post(
        f"/director/journal/{original.id}/void", data={"reason": "no token"}
    )
    assert response.status_code == 400
    assert journal.get(staffed.db, original.id + 1) is None


def test_the_judge_page_refuses_a_second_opinion_on_a_void_challenge(staffed):
    original = staffed.challenge(["QI"])
    void(staffed, original.id)
    judge = staffed.judge()
    response = post_form(
        judge, "/judge/second-opinion", {"id": original.id, "words": "QI"}, page="/judge/"
    )
    assert response.status_code == 400 and "already void" in response.get_data(as_text=True)
