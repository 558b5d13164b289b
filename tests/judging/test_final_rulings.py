"""The director's final rulings and the word judges' limits (issue 11, items 1 and 6).

WESPA 3.10.11(c): when a re-adjudication differs, the director decides. NSA X.G: the director
may review any challenge again. WESPA 3.10.13: a misadjudication may be corrected. NSA
Guideline 11g: whoever researched the challenge does not research its second opinion.
A ruling's consequence counts the words ruled on.
"""

from __future__ import annotations

import re

import pytest

from adjudicator.errors import ChallengeInputError
from adjudicator.judging.corrections import second_opinion
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.judging.corrections.second_opinion import SecondOpinionRefused
from adjudicator.judging.reasons import ReasonRequired
from adjudicator.record.journal import journal

from support.director import Staffed, page_after, post_form, ruling
from support.hall import refused

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


def opinion(staffed: Staffed, original_id: int, words, actor: str = "alice"):
    return second_opinion.give(
        staffed.db, staffed.store, original_id, words, actor=actor, station=f"judge:{actor}"
    )


def rule(staffed: Staffed, original_id: int, verdict="acceptable", **kw):
    return record_ruling(
        staffed.db, original_id, verdict, "the slip was miscopied", actor="td", station="td", **kw
    )


def test_a_ruling_counts_the_words_of_the_corrected_slip(staffed):
    """Issue 11 item 1: QI ZA ZA (+15 under 5-per-word), corrected by a second opinion to QI ZA:
    the ruling charges 5 x 2 words, not 3."""
    original = staffed.challenge(["QI", "ZA", "ZA"])
    assert original.penalty_numbers()["points_to_player"] == 15
    corrected = opinion(staffed, original.id, "QI ZA")
    assert corrected.flag_reasons == ("the words differ from the original's",)
    # issue 20, item 13: the words differ, so the ruling must name them (never silently the
    # second opinion's, mistyped or not)
    with pytest.raises(SecondOpinionRefused, match="name the words you rule on"):
        rule(staffed, original.id)
    ruling = rule(staffed, original.id, words="QI ZA")
    assert ruling.words == ("QI", "ZA") and ruling.word_count == 2
    assert ruling.consequence == (
        "The play stands; 5 points x 2 words: the player adds 10; the challenger keeps the turn."
    )
    assert ruling.penalty_numbers()["points_to_player"] == 10


def test_a_ruling_with_words_counts_those(staffed):
    original = staffed.challenge(["QI", "ZA", "ZA"])
    opinion(staffed, original.id, "QI ZA")
    ruling = rule(staffed, original.id, words="qi za jo xi")
    assert ruling.words == ("QI", "ZA", "JO", "XI")
    assert ruling.penalty_numbers()["points_to_player"] == 20


def test_a_ruling_without_a_second_opinion_counts_the_originals_words(staffed):
    original = staffed.challenge(["QI", "ZA", "ZA"])
    ruling = rule(staffed, original.id)
    assert ruling.words == ("QI", "ZA", "ZA") and ruling.penalty_numbers()["points_to_player"] == 15


def test_bad_words_in_a_ruling_give_no_ruling(staffed):
    original = staffed.challenge(["QI"])
    with pytest.raises(ChallengeInputError):
        rule(staffed, original.id, words="Q1")
    assert journal.get(staffed.db, original.id + 1) is None


def test_nsa_x_g_the_director_may_rule_on_any_challenge(staffed):
    """No second opinion, nothing flagged: the director's third look is still allowed."""
    original = staffed.challenge(["QI", "QX"])
    assert not second_opinion.case_of(staffed.db, original).flagged
    ruling = rule(staffed, original.id, "ACCEPTABLE")
    assert (ruling.kind, ruling.refers_to, ruling.verdict, ruling.note) == (
        "ruling",
        original.id,
        "ACCEPTABLE",
        "the slip was miscopied",
    )
    with pytest.raises(SecondOpinionRefused, match="already given the final ruling"):
        rule(staffed, original.id, "UNACCEPTABLE")


def test_a_ruling_needs_a_reason(staffed):
    original = staffed.challenge(["QI"])
    with pytest.raises(ReasonRequired, match="reason for the ruling"):
        record_ruling(staffed.db, original.id, "acceptable", " ", actor="td", station="td")


def test_nsa_guideline_11g_no_judge_researches_the_same_challenge_twice(staffed):
    original = staffed.challenge(["QI", "ZA"])
    opinion(staffed, original.id, "QI ZAX")  # alice: differs, flagged
    with pytest.raises(SecondOpinionRefused, match="alice already judged.*Guideline 11g"):
        opinion(staffed, original.id, "QI ZA")
    third = opinion(staffed, original.id, "QI ZA", actor="bob")  # NSA X.G: a third opinion
    assert third.entry.actor == "bob"
    with pytest.raises(SecondOpinionRefused, match="bob already judged"):
        opinion(staffed, original.id, "QI ZA", actor="bob")


def test_nsa_guideline_11g_from_the_command_line(run, home, staffed, monkeypatch):
    """A challenge judged with `judge --tournament` by a person: that person gives no second
    opinion on it."""
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", staffed.db.url)
    monkeypatch.setenv("ADJUDICATOR_HOME", str(staffed.setup.store.root.parent))
    out = run("judge", "--tournament", "spring-nwl", "QI", "ZA")
    assert out.exit_code == 0, out.stderr
    adjudication = out.stdout.splitlines()[1].split("#")[1].split()[0]
    refused(run("second-opinion", adjudication, "QI", "ZA"), "already judged", "11g")


def test_cli_ruling_words_and_any_adjudication(run, home, staffed, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", staffed.db.url)
    monkeypatch.setenv("ADJUDICATOR_HOME", str(staffed.setup.store.root.parent))
    original = staffed.challenge(["QI", "ZA", "ZA"])
    refused(
        run("ruling", str(original.id), "QI", "--verdict", "acceptable", "--reason", "r1"),
        "Put --words before the words",
    )
    refused(
        run("ruling", str(original.id), "--words", "--verdict", "acceptable", "--reason", "r1"),
        "--words needs the words",
    )
    out = ruling(run, original.id, "acceptable", "the slip had ZA twice by mistake", "QI", "ZA")
    assert out.exit_code == 0, out.stderr
    assert "5 points x 2 words: the player adds 10" in out.stdout
    assert "Words ruled on (2): QI ZA" in out.stdout
    ruling_row = journal.get(staffed.db, int(re.search(r"Final ruling #(\d+)", out.stdout)[1]))
    code = ruling_row.row_hash[:8].upper()
    assert f"Receipt: {code[:4]}-{code[4:]}" in out.stdout  # signed like every verdict


def test_the_rule_on_any_form(staffed):
    original = staffed.challenge(["QI"])
    director = staffed.director()
    page = director.get("/director/flags").get_data(as_text=True)
    assert 'id="rule-any"' in page
    done = post_form(
        director,
        "/director/ruling",
        {"id": f"#{original.id}", "verdict": "UNACCEPTABLE", "reason": "QI misread on review"},
        page="/director/flags",
        follow_redirects=True,
    )
    assert f"Final ruling on #{original.id}: UNACCEPTABLE" in done.get_data(as_text=True)
    ruling_row = journal.get(staffed.db, original.id + 1)
    assert ruling_row.kind == "ruling"
    code = ruling_row.row_hash[:8].upper()
    assert f"Receipt {code[:4]}-{code[4:]}." in done.get_data(as_text=True)
    nothing = page_after(
        director,
        "/director/ruling",
        {"id": "abc", "verdict": "UNACCEPTABLE", "reason": "r"},
        page="/director/flags",
    )
    assert "Type the number of the adjudication" in nothing


def test_words_ruled_on_are_read_in_the_lexicons_tiles(run, home, tmp_path):
    """A Polish division: the words given with a ruling are spelled in Polish tiles."""
    words = tmp_path / "pl.txt"
    words.write_text("żółw\ngęś\nkot\n", encoding="utf-8")
    assert run("lexicon", "import", str(words), "-n", "PL", "--alphabet", "polish").exit_code == 0
    assert (
        run("tournament", "create", "pl", "--lexicon", "PL", "--rule", "5-per-word").exit_code == 0
    )
    judged = run("judge", "--tournament", "pl", "kot")
    assert judged.exit_code == 0, judged.stderr
    adjudication = judged.stdout.splitlines()[1].split("#")[1].split()[0]
    out = ruling(run, adjudication, "acceptable", "slip", "żółw", "gęś")
    assert out.exit_code == 0, out.stderr
    assert "Words ruled on (2): ŻÓŁW GĘŚ" in out.stdout
    assert "5 points x 2 words: the player adds 10" in out.stdout
    refused(
        ruling(run, adjudication, "acceptable", "again", "kot"),
        "already given the final ruling",
    )
