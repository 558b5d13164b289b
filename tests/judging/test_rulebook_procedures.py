"""Issue 20, items 9 to 13: each rulebook's own procedures, tried as a director would.

- School rule 12: "There is no penalty for challenging the final play of the game."
- NSA VI.C: the director may give a free challenge (`ruling --waive-penalty`).
- WESPA 3.10.15(c)(iii) "5-5-10-20-30 point (or similar)" ladders and (c)(iv) time penalties;
  (d): WESPA may treat such events as non-ratable.
- WESPA 3.10.13: a misadjudication is corrected only while no newly drawn tile has touched the
  player's rack: after a later turn at the table the director confirms it.
- WESPA 3.10.11(c), 3.10.10, NASPA 4.10 and 5.4, NSA IV.I.2: second opinions and voids, as each
  rulebook has them.
"""

from __future__ import annotations

import html
import json
import re

import pytest

from adjudicator.hall import tournaments
from adjudicator.judging.corrections import correction_window, second_opinion, voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.judging.rules import UnknownRule, get_rule
from adjudicator.record.journal import journal

from support.director import Staffed, give_opinion, outcome, page_after, post_form, press
from support.hall import CSW, NWL
from support.paths import SHARED_LEXICONS

GAME = {"round": "2", "table": "9", "challenger": "Ann"}


pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


def set_event(staffed: Staffed, **changes) -> None:
    """Change the NWL division; a rulebook on its tiny list is off that rulebook (issue 28)."""
    if changes.get("rulebook", "none") != "none":
        changes.setdefault("off_rulebook", "a tiny test list")
    tournaments.update(staffed.db, staffed.store, NWL, **changes)


# ---------- item 9: school rule 12 ----------


def test_school_rule_12_no_penalty_for_challenging_the_final_play(staffed):
    set_event(staffed, rulebook="school-2011", rule="double")
    browser = staffed.kiosk_browser()
    answer = browser.post(
        "/api/v1/adjudications", json={"words": ["QI"], "final_play": True}
    ).get_json()
    assert answer["verdict"] == "ACCEPTABLE"
    assert answer["consequence"] == (
        "The play stands; no penalty for challenging the final play of the game (school rule 12)."
    )
    assert answer["penalty"]["challenger_loses_turn"] is False
    assert journal.get(staffed.db, answer["id"]).detail("final_play") is True


def test_the_final_play_elsewhere_says_nothing_about_the_turn(staffed):
    """Under another rulebook the penalty stands, but no turn is kept or lost: the game ended."""
    set_event(staffed, rulebook="naspa", rule="5-per-word")
    row = staffed.challenge(["QI", "ZA"], final_play=True)
    assert row.consequence == "The play stands; 5 points x 2 words: the player adds 10."
    set_event(staffed, rule="double")
    row = staffed.challenge(["QI"], final_play=True)
    assert row.consequence == "The play stands." and "turn" not in row.consequence
    assert not row.penalty_numbers()["challenger_loses_turn"]


def test_final_play_must_be_true_or_false(staffed):
    browser = staffed.kiosk_browser()
    answer = browser.post("/api/v1/adjudications", json={"words": ["QI"], "final_play": "yes"})
    assert (
        answer.status_code == 400
        and "final_play must be true or false" in answer.get_json()["error"]
    )
    assert journal.newest_id(staffed.db) == 0


def test_cli_judge_final_play(staffed, staffed_cli):
    set_event(staffed, rulebook="school-2011", rule="double")
    out = staffed_cli("judge", "--tournament", NWL, "--final-play", "QI")
    assert out.exit_code == 0 and "school rule 12" in out.stdout


# ---------- item 10: the director's free challenge (issue 28: a waiver, not a ruling) ----------


def test_a_free_challenge_with_a_ruling_records_both_and_waives_the_penalty(staffed, staffed_cli):
    """With no rulebook named, the free challenge rests on the director's discretion; given with
    a verdict, the ruling is recorded, then the waiver (tests/judging/test_rulebooks_whole.py has
    each rulebook's own)."""
    set_event(staffed, rule="dingle")
    first = staffed.challenge(["QI"], **GAME)
    second = staffed.challenge(["ZA"], **GAME)
    assert second.penalty_numbers()["challenger_loses_turn"] is True
    out = staffed_cli(
        "ruling",
        str(second.id),
        "--verdict",
        "acceptable",
        "--reason",
        "score recorded before the play",
        "--waive-penalty",
        "--confirm-correction",
    )
    assert out.exit_code == 0, out.stderr
    assert "a free challenge at the director's discretion" in out.stdout
    assert "NSA VI.C" not in out.stdout
    assert [r.kind for r in journal.follow_ups(staffed.db, second.id)] == ["ruling", "waiver"]
    found = outcome(staffed, second.id)
    assert found.verdict == "ACCEPTABLE"
    assert found.penalty["waived"] is True and not found.penalty["challenger_loses_turn"]
    assert outcome(staffed, first.id).verdict == "ACCEPTABLE"  # nothing else changed


# ---------- item 11: "or similar" ladders and time penalties ----------


def test_wespa_3_10_15_c_iii_a_ladder_of_whole_points_whose_last_step_repeats(staffed):
    assert get_rule("ladder-5-5-10-20-30").ladder == get_rule("escalating").ladder
    set_event(staffed, rule="ladder-3-6")
    rows = [staffed.challenge([w], **GAME) for w in ("QI", "ZA", "JO")]
    assert [r.penalty_numbers()["points_to_player"] for r in rows] == [3, 6, 6]
    for bad in ("ladder-0", "ladder-101", "ladder-05", "ladder-" + "-".join(["1"] * 11)):
        with pytest.raises(UnknownRule, match="ladder-A-B-C"):
            get_rule(bad)


def test_wespa_3_10_15_c_iv_a_time_penalty_as_numbers_and_words(staffed):
    set_event(staffed, rule="20-seconds")
    row = staffed.challenge(["QI"])
    assert row.consequence == (
        "The play stands; the challenger's clock loses 20 seconds; the challenger keeps the turn."
    )
    assert row.penalty_numbers()["seconds_to_challenger"] == 20
    assert staffed.challenge(["QX"]).penalty_numbers()["seconds_to_challenger"] == 0
    for bad in ("0-seconds", "301-seconds"):
        with pytest.raises(UnknownRule):
            get_rule(bad)


@pytest.mark.parametrize("rule", ["dingle", "5-then-10", "ladder-5-10", "30-seconds"])
def test_wespa_3_10_15_d_creating_such_an_event_says_it_may_be_non_ratable(run, home, rule):
    from support.hall import build_store

    build_store(home / "lexicons")
    out = run("tournament", "create", "club", "-l", "TINY-NWL", "-r", rule)
    assert out.exit_code == 0, out.stderr  # no rulebook: WESPA's note, as before
    assert "WESPA may treat an event under this rule as non-ratable (3.10.15(d))" in out.stdout
    out = run(
        "tournament",
        "create",
        "wespa-club",
        "-l",
        "TINY-NWL",
        "-r",
        rule,
        "--rulebook",
        "wespa",
        "--off-rulebook",
        "a tiny test list",
    )
    assert out.exit_code == 0, out.stderr
    assert f"WESPA may not rate this event: {rule} is not one of the standard" in out.stdout


# ---------- item 12: WESPA 3.10.13, a correction after later turns ----------


def test_wespa_3_10_13_a_ruling_after_a_later_turn_needs_the_directors_confirmation(
    staffed, staffed_cli
):
    first = staffed.challenge(["QI"], **GAME)
    staffed.challenge(["ZA"], **GAME)  # the table played on
    refused = staffed_cli(
        "ruling", str(first.id), "--verdict", "unacceptable", "--reason", "misread"
    )
    assert refused.exit_code == 2 and "WESPA 3.10.13" in refused.stderr
    assert "--confirm-correction" in refused.stderr
    # a ruling that changes nothing needs no confirmation... but is final, so try the page
    director = staffed.director()
    done = page_after(
        director,
        "/director/ruling",
        {"id": first.id, "verdict": "UNACCEPTABLE", "reason": "misread", "confirm_correction": "1"},
        page="/director/flags",
    )
    assert f"Final ruling on #{first.id}: UNACCEPTABLE" in done
    ruling = journal.follow_ups(staffed.db, first.id)[-1]
    assert ruling.kind == "ruling" and ruling.detail("confirmed") is True


def test_wespa_3_10_13_second_opinions_after_later_turns_too(staffed):
    first = staffed.challenge(["QI", "ZA"], **GAME)
    staffed.challenge(["JO"], **GAME)
    with pytest.raises(correction_window.ConfirmationNeeded):
        give_opinion(staffed, first.id, ["QI", "ZAX"])
    opinion = give_opinion(staffed, first.id, ["QI", "ZAX"], confirm_correction=True)
    assert opinion.entry.detail("confirmed") is True and opinion.flagged


# ---------- item 13: second opinions and voids, as each rulebook has them ----------


def test_wespa_3_10_11_c_after_an_agreeing_re_adjudication_only_the_director(staffed, staffed_cli):
    set_event(staffed, rulebook="wespa", rule="5-per-word")
    row = staffed.challenge(["QI", "ZA"])
    give_opinion(staffed, row.id, ["QI", "ZA"])
    with pytest.raises(second_opinion.SecondOpinionRefused, match="WESPA 3.10.11"):
        give_opinion(staffed, row.id, ["QI", "ZAX"], judge="bob")
    assert not second_opinion.cases(staffed.db, open_only=True)


def test_wespa_3_10_10_no_retraction_a_withdrawal_is_offered_only_where_the_rulebook_has_it(
    staffed, staffed_cli
):
    set_event(staffed, rulebook="wespa", rule="double")
    row = staffed.challenge(["QI"])
    out = staffed_cli(
        "void", str(row.id), "--reason", "withdrew after the verdict", "--ground", "withdrawn"
    )
    assert out.exit_code == 2 and "not offered under the wespa rulebook" in out.stderr
    assert outcome(staffed, row.id).verdict == "ACCEPTABLE"  # the turn is still lost
    page = staffed.director().get("/director/journal").get_data(as_text=True)
    assert 'value="mistake"' in page and 'value="withdrawn"' not in page


def test_naspa_4_10_a_withdrawn_challenge_leaves_the_play_standing_and_says_so(
    staffed, staffed_cli
):
    set_event(staffed, rulebook="naspa")
    row = staffed.challenge(["QI"])
    out = staffed_cli("void", str(row.id), "--reason", "blank was an S", "--ground", "withdrawn")
    assert out.exit_code == 0, out.stderr
    found = outcome(staffed, row.id)
    assert found.verdict == "VOID" and found.penalty["play_stands"] is True
    assert found.consequence.startswith("Withdrawn: the play stands") and "Tell the players" in (
        found.consequence
    )
    void_row = journal.follow_ups(staffed.db, row.id)[0]
    assert json.loads(void_row.details) == {"ground": "withdrawn"}
    rescinded = staffed.challenge(["ZA"], final_play=True)  # NASPA 5.4: an outplay challenge
    voids.void(
        staffed.db, rescinded.id, "tiles found", actor="td", station="td", ground="rescinded"
    )
    assert outcome(staffed, rescinded.id).consequence.startswith("Rescinded")


def test_a_void_on_the_wrong_row_is_revoked_and_the_revocation_recorded(staffed, staffed_cli):
    """The director voided #1 meaning #2: revoke it, and the penalties count #1 again."""
    set_event(staffed, rule="dingle")
    first = staffed.challenge(["QI"], **GAME)
    second = staffed.challenge(["ZA"], **GAME)
    voids.void(staffed.db, first.id, "meant the other one", actor="td", station="td")
    assert outcome(staffed, first.id).verdict == "VOID"
    assert not outcome(staffed, second.id).penalty["challenger_loses_turn"]  # recounted
    out = staffed_cli("void", str(first.id), "--revoke", "--reason", "voided the wrong row")
    assert out.exit_code == 0, out.stderr
    assert f"The void on adjudication #{first.id} is revoked" in out.stdout
    rows = journal.follow_ups(staffed.db, first.id)
    assert [r.kind for r in rows] == ["void", "revocation"]
    assert rows[1].detail("revokes") == rows[0].id
    assert outcome(staffed, first.id).verdict == "ACCEPTABLE"
    assert outcome(staffed, second.id).penalty["challenger_loses_turn"]  # as shown again
    third = staffed.challenge(["JO"], **GAME)  # counted in SQL too: the 3rd, loses the turn
    assert third.penalty_numbers()["challenger_loses_turn"] is True
    again = staffed_cli("void", str(first.id), "--revoke", "--reason", "twice")
    assert again.exit_code == 2 and "is not void" in again.stderr
    voids.void(staffed.db, first.id, "really void now", actor="td", station="td")  # may again
    assert outcome(staffed, first.id).verdict == "VOID"
    assert journal.verify(staffed.db).ok


def test_the_journal_page_offers_the_revocation_and_records_it(staffed):
    row = staffed.challenge(["QI"])
    voids.void(staffed.db, row.id, "wrong row", actor="td", station="td")
    button = f"/director/journal/{row.id}/revoke-void"
    done = press(
        staffed.director(), "/director/journal", button, {"reason": "voided the wrong row"}
    )
    assert f"The void on #{row.id} is revoked" in done
    assert outcome(staffed, row.id).verdict == "ACCEPTABLE"


def test_the_journal_page_voids_over_a_ruling_only_when_the_box_says_so(staffed):
    row = staffed.challenge(["QI"])
    record_ruling(staffed.db, row.id, "unacceptable", "misread", actor="td", station="td")
    director = staffed.director()
    page = director.get("/director/journal").get_data(as_text=True)
    assert 'name="over_ruling"' in page
    form = {"reason": "rescinded", "ground": "mistake"}
    done = page_after(
        director,
        f"/director/journal/{row.id}/void",
        form,
        page="/director/journal",
    )
    assert "a ruling is final" in done
    assert outcome(staffed, row.id).verdict == "UNACCEPTABLE"
    post_form(
        director,
        f"/director/journal/{row.id}/void",
        {**form, "over_ruling": "1"},
        page="/director/journal",
    )
    assert outcome(staffed, row.id).verdict == "VOID"


def test_school_rule_12_the_kiosk_is_told_to_ask_for_the_final_play(staffed):
    browser = staffed.kiosk_browser()
    status = browser.get("/api/v1/kiosk").get_json()
    assert (status["rulebook"], status["rule"]["asks_final_play"]) == (None, False)
    set_event(staffed, rulebook="school-2011")
    status = browser.get("/api/v1/kiosk").get_json()
    assert (status["rulebook"], status["rule"]["asks_final_play"]) == ("school-2011", True)


def test_an_edition_not_in_force_is_marked_on_the_overview_and_the_tournaments_page(staffed):

    from adjudicator.words.lexicon_import import import_lexicon

    twl06 = SHARED_LEXICONS / "TWL06.txt"
    if not twl06.is_file():
        pytest.skip(f"the real TWL06 is not at {twl06}")
    import_lexicon(staffed.store, twl06, "TWL06")
    tournaments.create(
        staffed.db, staffed.store, "club-2024", "TWL06", "double", event_date="2024-05-04"
    )
    tournaments.create(
        staffed.db, staffed.store, "club-2010", "TWL06", "double", event_date="2010-05-04"
    )
    director = staffed.director()
    overview = director.get("/director/").get_data(as_text=True)
    card = overview.split('id="overview-club-2024"')[1].split("</section>")[0]
    assert "not in force on the event's date" in card and "NWL2023" in card
    other = overview.split('id="overview-club-2010"')[1].split("</section>")[0]
    assert "edition-not-in-force" not in other
    page = director.get("/director/tournaments").get_data(as_text=True)
    row = page.split('id="tournament-club-2024"')[1].split("</tr>")[0]
    assert "edition-not-in-force" in row and "2024-05-04" in row


def test_the_tournaments_page_sets_the_rulebook_and_date_and_warns(staffed):
    director = staffed.director()
    button = f"/director/tournaments/{NWL}/rulebook"
    done = press(
        director,
        "/director/tournaments",
        button,
        {"rulebook": "naspa", "date": "2024-05-04", "off_rulebook": "a tiny test list"},
    )
    assert "rulebook naspa, first day 2024-05-04" in done
    assert (
        tournaments.get(staffed.db, NWL).rulebook,
        tournaments.get(staffed.db, NWL).event_date,
    ) == (
        "naspa",
        "2024-05-04",
    )
    set_event(staffed, rule="dingle")
    for date, shown in (("04/05/2024", "YYYY-MM-DD"), ("2024-05-04", "WESPA may not rate")):
        form = {"rulebook": "wespa", "date": date, "off_rulebook": "a tiny test list"}
        assert shown in page_after(director, button, form, page="/director/tournaments")


def test_the_tournaments_page_creates_an_event_with_its_rulebook_and_first_day(staffed):
    director = staffed.director()
    text = page_after(
        director,
        "/director/tournaments",
        {
            "slug": "club-ladder",
            "lexicon": "TINY-NWL",
            "rule": "ladder-5-10",
            "rulebook": "wespa",
            "date": "2025-03-01",
            "off_rulebook": "a tiny test list",
        },
        page="/director/tournaments",
    )
    assert "Tournament club-ladder created" in text and "WESPA may not rate this event" in text
    created = tournaments.get(staffed.db, "club-ladder")
    assert (created.rulebook, created.event_date, created.rule) == (
        "wespa",
        "2025-03-01",
        "ladder-5-10",
    )


# ---------- issue 28: what `ruling --help` says is what it does ----------


def test_ruling_help_describes_the_default_it_has(staffed, staffed_cli):
    """The default words are the original's; after a second opinion with other words, the
    ruling is refused until the director names them (it never takes the opinion's)."""
    text = " ".join(staffed_cli("ruling", "--help").stdout.split())
    assert "default: the original's" in text and "latest second opinion's" not in text
    assert "the ruling is refused without" in text
    assert "It rules on nothing else: the verdict stays as decided and may still be reviewed" in (
        text
    )
    row = staffed.challenge(["QI", "ZA"])
    give_opinion(staffed, row.id, ["QI", "ZAX"])
    refused = staffed_cli("ruling", str(row.id), "--verdict", "unacceptable", "--reason", "slip")
    assert refused.exit_code == 2 and "name the words you rule on" in refused.stderr


# ---------- the director's ruling on any adjudication: each tournament's own form ----------


def ruling_form(page: str, slug: str) -> str:
    """The text of the flags page's "Rule on any adjudication" form of tournament `slug`."""
    found = re.search(rf'<form[^>]*id="rule-any-{slug}".*?</form>', page, re.S)
    assert found, f"no ruling form for {slug}"
    return html.unescape(re.sub(r"<[^>]+>", " ", found[0]))


def test_each_tournaments_ruling_form_offers_and_cites_its_own_rulebook_alone(staffed):
    """A hall running a NASPA and a WESPA event: each form offers its rulebook's procedures
    (NASPA 6.2's look-up penalty, WESPA 3.10.13's confirmation) and cites its clauses, and
    nothing of the other's; the waiver is the director's discretion under each one's own clause
    (NSA XII: VI.C's free challenge is one granted for later)."""
    set_event(staffed, rulebook="naspa")
    tournaments.update(staffed.db, staffed.store, CSW, rulebook="wespa", off_rulebook="tiny")
    page = staffed.director().get("/director/flags").get_data(as_text=True)
    naspa, wespa = ruling_form(page, NWL), ruling_form(page, CSW)
    assert "(NASPA 6.2)" in naspa and "(NASPA 1.2: the director makes the final ruling)" in naspa
    assert "a free challenge, at the director's discretion (NASPA 1.2)" in naspa
    assert "WESPA" not in naspa and "NSA " not in naspa and "played on" not in naspa
    assert "(WESPA 3.10.13(a)), or no retracted tile has (b)" in wespa
    assert "(WESPA 3.10.11(c))" in wespa
    assert "at the director's discretion (WESPA 6.1.2(e))" in wespa
    assert "NASPA" not in wespa and "NSA " not in wespa and "look-ups" not in wespa

    set_event(staffed, rulebook="nsa-1998")
    nsa = ruling_form(staffed.director().get("/director/flags").get_data(as_text=True), NWL)
    assert "Waive the penalty: a free challenge, at the director's discretion (NSA XII)" in nsa
    assert "VI.C" not in nsa and "(NSA X.G)" in nsa  # issue 43: the waiver is XII's
    assert "NASPA" not in nsa and "WESPA" not in nsa and "look-ups" not in nsa


def test_a_ruling_from_another_tournaments_form_is_refused_and_nothing_recorded(staffed):
    original = staffed.challenge(["QI"])  # the NWL tournament's
    director = staffed.director()

    def rule_from_the_form_of(tournament: str) -> str:
        form = {"id": original.id, "tournament": tournament, "verdict": "UNACCEPTABLE"}
        return page_after(director, "/director/ruling", {**form, "reason": "misread"},
                          page="/director/flags")  # fmt: skip

    said = rule_from_the_form_of(CSW)
    assert f"Adjudication #{original.id} is not a challenge of this tournament" in said
    assert f"its own tournament ({NWL})" in said
    assert journal.follow_ups(staffed.db, original.id) == []
    assert f"Final ruling on #{original.id}: UNACCEPTABLE" in rule_from_the_form_of(NWL)
