"""Issue 20, items 1 to 3: a ruling no kiosk can undo, REFER that tells nothing, penalties that
follow every later ruling and void, tried as a director would (API, command line, library).

- WESPA 3.10.13, NSA X.G: a ruling is final. A reissue of a ruled challenge is refused (409,
  naming the ruling); `void` of it exits 2 unless `--over-ruling`, and the journal keeps both.
- NSA X.E: nothing may reveal which word failed. REFER whenever a missing word is past the
  recipe's limit; the word judge's dictionary check closes it (NSA I.B), UNACCEPTABLE if a
  shorter word is missing. The check and the flag reasons are fields of the row.
- WESPA 3.10.15(c): under dingle and 5-then-10 each penalty counts the challenger's earlier
  unsuccessful challenges in the game as they now stand, after every ruling and void; a changed
  penalty the players were shown goes on the director's flags.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.director import export
from adjudicator.judging import director_flags, outcomes
from adjudicator.judging.corrections import second_opinion, voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.record.journal import journal
from adjudicator.record.journal.tallies import is_flagged
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.recipe import import_recipe

from support.director import Staffed, give_opinion, outcome
from support.hall import NWL
from support.paths import SHARED_LEXICONS

EVE = {"round": "1", "table": "3", "challenger": "Eve"}


pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


def rule(staffed: Staffed, entry_id: int, verdict: str, reason: str = "misadjudicated", **kw):
    return record_ruling(staffed.db, entry_id, verdict, reason, actor="td", station="td", **kw)


def void(staffed: Staffed, entry_id: int, reason: str = "entered by mistake", **kw):
    return voids.void(staffed.db, entry_id, reason, actor="td", station="td", **kw)


def points(found: outcomes.Outcome) -> tuple[int, bool]:
    return found.penalty["points_to_player"], found.penalty["challenger_loses_turn"]


# ---------- item 1: a ruling is final (WESPA 3.10.13, NSA X.G) ----------


def test_wespa_3_10_13_a_kiosks_reissue_cannot_undo_the_directors_ruling(staffed):
    """5-per-word: QI ZA judged ACCEPTABLE, ruled UNACCEPTABLE; the kiosk's reissue is 409."""
    browser = staffed.kiosk_browser()
    first = browser.post("/api/v1/adjudications", json={"words": ["QI", "ZA"]}).get_json()
    assert first["verdict"] == "ACCEPTABLE"
    ruling = rule(staffed, first["id"], "unacceptable")
    answer = browser.post("/api/v1/adjudications", json={"words": ["QI"], "replaces": first["id"]})
    assert answer.status_code == 409
    error = answer.get_json()["error"]
    assert f"#{first['id']} has the director's final ruling (journal row #{ruling.id})" in error
    assert journal.newest_id(staffed.db) == ruling.id  # nothing judged, nothing recorded
    found = outcome(staffed, first["id"])
    assert (found.verdict, found.decided_by) == ("UNACCEPTABLE", ruling.id)


def test_nsa_x_g_void_of_a_ruled_challenge_exits_2_unless_over_ruling(staffed, staffed_cli):
    original = staffed.challenge(["QI", "ZA"])
    ruling = rule(staffed, original.id, "unacceptable")
    refused = staffed_cli("void", str(original.id), "--reason", "withdrawn")
    assert refused.exit_code == 2 and refused.stdout == ""
    assert f"final ruling (journal row #{ruling.id})" in refused.stderr
    assert "--over-ruling" in refused.stderr
    done = staffed_cli("void", str(original.id), "--reason", "withdrawn", "--over-ruling")
    assert done.exit_code == 0, done.stderr
    assert f"Adjudication #{original.id} is void" in done.stdout
    rows = journal.follow_ups(staffed.db, original.id)
    assert [r.kind for r in rows] == ["ruling", "void"]  # both kept
    assert rows[1].note == f"withdrawn [void over the director's ruling #{ruling.id}]"
    assert outcome(staffed, original.id).verdict == "VOID"
    assert journal.verify(staffed.db).ok


def test_wespa_3_10_12_a_reissue_only_for_the_most_recent_turn(staffed):
    """Not once a second opinion exists, nor once the game has moved on (a later challenge at
    that table, a later round at that kiosk): 409, and those go to the director."""
    browser = staffed.kiosk_browser()

    def post(words, **details):
        return browser.post("/api/v1/adjudications", json={"words": words, **details})

    opined = post(["QI"], table="4", round="1").get_json()
    give_opinion(staffed, opined["id"], ["QI"])
    answer = post(["ZA"], table="4", round="1", replaces=opined["id"])
    assert answer.status_code == 409 and "has a second opinion" in answer.get_json()["error"]

    old = post(["QI"], table="5", round="1").get_json()
    post(["JO"], table="6", round="2")  # the kiosk went on to round 2
    answer = post(["ZA"], table="5", round="1", replaces=old["id"])
    assert answer.status_code == 409 and "has moved on" in answer.get_json()["error"]
    assert outcome(staffed, old["id"]).verdict == "ACCEPTABLE"


# ---------- item 2: REFER that tells nothing (NSA X.E, I.B) ----------

OWL_TEXT = SHARED_LEXICONS / "zyzzyva" / "OWL.zyzzyva.txt"


@pytest.fixture
def nsa(staffed):
    """A tournament under the NSA 1998 recipe, on the real first-edition OWL, and its kiosk."""
    if not OWL_TEXT.exists():
        pytest.skip(f"the real OWL is not at {OWL_TEXT}")
    import_lexicon(staffed.store, OWL_TEXT, "OWL")
    import_recipe(staffed.store, "nsa-1998")
    tournaments.create(
        staffed.db, staffed.store, "nsa-98", "OWL-NSA1998", "double", rulebook="nsa-1998"
    )
    return kiosks.add(staffed.db, "nsa-table", "nsa-98")


def test_nsa_x_e_refer_is_the_same_whether_or_not_a_shorter_word_is_good(staffed, nsa):
    browser = staffed.kiosk_browser(nsa)
    good = browser.post("/api/v1/adjudications", json={"words": ["CAT", "EXTRAORDINARYX"]})
    bad = browser.post("/api/v1/adjudications", json={"words": ["CATX", "EXTRAORDINARYX"]})
    assert good.status_code == bad.status_code == 201
    a, b = good.get_json(), bad.get_json()
    assert a["verdict"] == b["verdict"] == "REFER"
    differ = {"id", "words", "recorded_at", "receipt"}
    assert {k: v for k, v in a.items() if k not in differ} == {
        k: v for k, v in b.items() if k not in differ
    }
    assert set(a["receipt"]) == set(b["receipt"])
    for name in set(a["receipt"]) - {"id", "words", "recorded_at", "row_hash", "signature"}:
        assert a["receipt"][name] == b["receipt"][name], name
    # the word judge's dictionary check closes each: UNACCEPTABLE if a shorter word is missing
    closed = [
        second_opinion.give(
            staffed.db,
            staffed.store,
            row["id"],
            words,
            actor="alice",
            station="judge:alice",
            dictionary="acceptable",
        )
        for row, words in ((a, "CAT EXTRAORDINARYX"), (b, "CATX EXTRAORDINARYX"))
    ]
    assert [c.entry.verdict for c in closed] == ["ACCEPTABLE", "UNACCEPTABLE"]
    assert [c.entry.dictionary for c in closed] == ["ACCEPTABLE", "ACCEPTABLE"]
    assert [c.entry.flag_reasons for c in closed] == ["[]", "[]"]
    assert all(c.closes_referral and not c.flagged for c in closed)
    assert [outcome(staffed, r["id"]).verdict for r in (a, b)] == ["ACCEPTABLE", "UNACCEPTABLE"]
    out = io.StringIO()
    export.write(staffed.db, out, "json")
    exported = {r["id"]: r for r in json.loads(out.getvalue())}
    check = exported[closed[1].entry.id]
    assert (check["dictionary"], check["flag_reasons"]) == ("ACCEPTABLE", [])


def test_the_check_and_the_flag_are_fields_a_reworded_note_cannot_change(staffed, nsa):
    browser = staffed.kiosk_browser(nsa)
    row = browser.post("/api/v1/adjudications", json={"words": ["EXTRAORDINARYX"]}).get_json()
    check = give_opinion(staffed, row["id"], ["EXTRAORDINARYX"], dictionary="unacceptable")
    original = journal.get(staffed.db, row["id"])
    for note in (None, "reworded by a later version", "flagged for the director: no"):
        reworded = dataclasses.replace(check.entry, note=note)
        assert second_opinion.closes_referral(reworded, original)
        assert not is_flagged(reworded)
    differing = give_opinion(
        staffed, row["id"], ["EXTRAORDINARYY"], judge="bob", dictionary="unacceptable"
    )
    assert json.loads(differing.entry.flag_reasons) == ["the words differ from the original's"]
    assert is_flagged(dataclasses.replace(differing.entry, note=None))


# ---------- item 3: penalties that follow every later ruling and void ----------


def test_wespa_3_10_15_c_ii_a_ruling_on_the_first_recounts_the_later_ones(staffed, staffed_cli):
    """5-then-10: Eve's three unsuccessful challenges cost 5, 10, 10; the director rules the
    first one successful: the others now say 5 and 10, and the changed one is flagged."""
    tournaments.update(staffed.db, staffed.store, NWL, rule="5-then-10")
    rows = [staffed.challenge([w], **EVE) for w in ("QI", "ZA", "JO")]
    assert [r.penalty_numbers()["points_to_player"] for r in rows] == [5, 10, 10]
    rule(staffed, rows[0].id, "unacceptable", "QI was not on the board", confirm_correction=True)
    assert [points(outcome(staffed, r.id)) for r in rows[1:]] == [(5, False), (10, False)]
    changed = outcome(staffed, rows[1].id)
    assert changed.consequence.startswith("The play stands; the challenger's first unsuccessful")
    (flag,) = [
        f
        for f in json.loads(staffed_cli("flags", "--json").stdout)
        if f["flag"] != "second-opinion"
    ]
    assert (flag["flag"], flag["id"]) == ("penalty-changed", rows[1].id)
    assert (flag["old_penalty"]["points_to_player"], flag["new_penalty"]["points_to_player"]) == (
        10,
        5,
    )
    text = staffed_cli("flags").stdout
    assert f"#{rows[1].id} |" in text and "was 10 points to the player, now 5" in text
    # the export, the CSV and the journal's JSON say the same
    out = io.StringIO()
    export.write(staffed.db, out, "csv")
    by_id = {int(r["id"]): r for r in csv.DictReader(io.StringIO(out.getvalue()))}
    assert json.loads(by_id[rows[1].id]["effective_penalty"])["points_to_player"] == 5
    assert json.loads(by_id[rows[2].id]["effective_penalty"])["points_to_player"] == 10
    out = io.StringIO()
    export.write(staffed.db, out, "json")
    exported = {r["id"]: r for r in json.loads(out.getvalue())}
    assert exported[rows[1].id]["effective"]["penalty"]["points_to_player"] == 5
    assert exported[rows[1].id]["penalty"]["points_to_player"] == 10  # as recorded and shown
    page = staffed.director().get("/director/flags").get_data(as_text=True)
    card = page.split(f'id="penalty-{rows[1].id}"')[1].split("</section>")[0]
    assert "Shown: 10 points" in card and "the player adds 5" in card
    # once the director has told the table, the flag is dismissed with a reason
    done = staffed_cli("flags", "--dismiss", str(rows[1].id), "--reason", "told table 3")
    assert done.exit_code == 0 and "penalty-changed" in done.stdout
    assert director_flags.penalty_changes(staffed.db) == []


def test_wespa_3_10_15_c_i_a_void_frees_the_next_challenge_under_dingle(staffed):
    tournaments.update(staffed.db, staffed.store, NWL, rule="dingle")
    first, second = (staffed.challenge([w], **EVE) for w in ("QI", "ZA"))
    assert second.penalty_numbers()["challenger_loses_turn"] is True
    void(staffed, first.id, "blank misheard: withdrawn (NSA IV.I.2)")
    found = outcome(staffed, second.id)
    assert points(found) == (0, False) and "no penalty" in found.consequence
    (change,) = director_flags.penalty_changes(staffed.db)
    assert change.challenge.id == second.id
    assert change.old["challenger_loses_turn"] and not change.new["challenger_loses_turn"]


def test_corrections_in_sequence_on_one_game(staffed):
    """Ruling, then void, then reissue, then second opinion, all in Eve's one game (5-then-10)."""
    tournaments.update(staffed.db, staffed.store, NWL, rule="5-then-10")
    one, two, three = (staffed.challenge([w], **EVE) for w in ("QI", "ZA", "JO"))
    rule(staffed, one.id, "unacceptable", confirm_correction=True)  # two: 10 -> 5, three: 10
    assert [points(outcome(staffed, r.id))[0] for r in (two, three)] == [5, 10]
    void(staffed, two.id)  # three: 10 -> 5
    assert points(outcome(staffed, three.id))[0] == 5
    assert [c.challenge.id for c in director_flags.penalty_changes(staffed.db)] == [three.id]
    kiosk = kiosks.get(staffed.db, staffed.setup.nwl.kiosk.name)
    four = staffed.setup.hall.adjudicate(kiosk, ["JO", "XI"], replaces=three.id, **EVE)
    assert four.penalty_numbers()["points_to_player"] == 5  # the first unsuccessful now
    assert outcome(staffed, three.id).verdict == "VOID"
    assert director_flags.penalty_changes(staffed.db) == []  # three is void, four as shown
    opinion = give_opinion(staffed, four.id, ["JO", "XI"])
    assert opinion.agrees and not opinion.flagged
    # WESPA 3.10.11(c): an agreeing re-adjudication is final; only the director goes on
    with pytest.raises(second_opinion.SecondOpinionRefused, match="final"):
        give_opinion(staffed, four.id, ["JO", "XU"], judge="bob")
    five = staffed.challenge(["AA"], **EVE)
    assert five.penalty_numbers()["points_to_player"] == 10  # one unsuccessful before it
    with pytest.raises(voids.ReissueRefused):
        staffed.setup.hall.adjudicate(kiosk, ["JO"], replaces=four.id, **EVE)
    assert journal.verify(staffed.db).ok


def test_the_judges_own_page_says_when_no_dictionary_look_up_is_needed(staffed, nsa):
    browser = staffed.kiosk_browser(nsa)
    good = browser.post("/api/v1/adjudications", json={"words": ["CAT", "EXTRAORDINARYX"]})
    bad = browser.post("/api/v1/adjudications", json={"words": ["CATX", "EXTRAORDINARYX"]})
    judge = staffed.judge()
    pages = [
        judge.get(f"/judge/case?id={r.get_json()['id']}").get_data(as_text=True)
        for r in (good, bad)
    ]
    assert 'id="no-lookup-needed"' not in pages[0]
    assert 'id="no-lookup-needed"' in pages[1]
    for page in pages:  # the judge's page names no word either way
        assert "CATX" not in page and "EXTRAORDINARYX" not in page
