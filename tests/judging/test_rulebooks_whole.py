"""Issue 28: each rulebook whole, on the real lists in ../shared/lexicons (built once a session).

Each test is named for the clause it shows (the texts in ../shared/seeds):
- item 1, lists and rules: NASPA 1.3 (NWL and Collins; any rule), WESPA 1.2 and Appendix 2
  (Collins, 2007 on) and 3.10.15(b)/(d) (other rules may not be rated), NSA I.A-B (the 1998 OWL,
  MW10 beyond 9 letters) and X.F (loss of turn), school rules 10 (OSPD4, MW11 beyond 8 letters,
  the Adjustments sheet) and 12 (loss of turn), MSA 15 (OSW + OSPD, Chambers/MW10) and 13(i)
  (any system announced). A list is known by its words and recipe, never by its name.
- item 2, corrections: reissues only under WESPA 3.10.12 and MSA 13 (school 12, NSA X.D and
  NASPA 6.2 refuse them); the free challenge, a waiver that leaves the verdict and its review
  open, citing NSA VI.C or the rulebook's discretion (WESPA 6.1.2(e), NASPA 1.2, MSA 20, the
  school rules' closing note); NASPA 5.4's rescinded only for an outplay; WESPA 3.10.10 and
  3.10.13; NSA X.G's third opinion, two of three. Every message cites the event's own rulebook.
"""

from __future__ import annotations

import json
import re

import pytest

from adjudicator.hall import tournaments
from adjudicator.judging import outcomes
from adjudicator.judging.corrections import correction_window, second_opinion, voids, waivers
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.judging.rulebooks import RULEBOOKS, off_rulebook
from adjudicator.judging.rules import get_rule
from adjudicator.record.journal import journal
from adjudicator.words import catalogue
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.recipe import import_recipe
from adjudicator.words.store import LexiconStore

from support.paths import SHARED_LEXICONS, present
from support.rulebook_lexicons import SHEET_ADDS, SHEET_REMOVES, RulebookHall

# Each rulebook's allowed and refused lists, among the real ones built (support.rulebook_lexicons).
ALLOWED = {
    "naspa": ("NWL2023", "TWL06", "OWL", "CSW24", "CSW07"),
    "wespa": ("CSW24", "CSW07"),
    "nsa-1998": ("OWL-NSA1998",),
    "school-2011": ("SCHOOL-OSPD", "SCHOOL-EVENT"),
    "msa": ("MSA-UNION",),
}
REFUSED = {
    "naspa": ("OSWI", "NSWL2023", "OSPD4", "OWL-NSA1998", "MSA-UNION"),
    "wespa": ("NWL2023", "OSWI", "MSA-UNION", "OWL"),
    "nsa-1998": ("OWL", "TWL06", "NWL2023", "CSW07", "MSA-UNION"),
    "school-2011": ("OSPD4", "TWL06", "NSWL2023", "OWL-NSA1998"),
    "msa": ("OSWI", "OWL", "OWL-NSA1998", "CSW24", "NWL2023"),
}
LIST_CLAUSE = {
    "naspa": "NASPA 1.3",
    "wespa": "WESPA 1.2 and Appendix 2",
    "nsa-1998": "NSA I.A and I.B",
    "school-2011": "school rule 10",
    "msa": "MSA 15",
}
# Each rulebook's event in the correction tests: an allowed list and rule.
EVENT = {
    "naspa": ("NWL2023", "double"),
    "wespa": ("CSW24", "5-per-word"),
    "nsa-1998": ("OWL-NSA1998", "double"),
    "school-2011": ("SCHOOL-OSPD", "double"),
    "msa": ("MSA-UNION", "5-per-word"),
}
# A rulebook's clause cited in a message; a message at one event cites none of the others'.
NAMES = {
    "naspa": r"NASPA \d",
    "wespa": r"WESPA \d",
    "nsa-1998": r"\bNSA [IVX]",
    "school-2011": r"school rule",
    "msa": r"\bMSA \d",
}
GOOD, BAD = ["CAT", "DOG"], ["CAT", "DOGX"]  # in every list here / not
GAME = {"round": "1", "table": "7", "challenger": "Ann"}


def cites_only(book: str, text: str) -> str:
    """`text`, asserting it names no rulebook but `book`."""
    for other, pattern in NAMES.items():
        if other != book:
            assert not re.search(pattern, text), f"{book} event cites {other}: {text}"
    return text


def event(hall: RulebookHall, book: str, rule: str | None = None):
    lexicon, default = EVENT[book]
    return hall.event(f"{book}-open", book, lexicon, rule or default)


def found(hall: RulebookHall, entry_id: int) -> outcomes.Outcome:
    ((_, outcome),) = outcomes.with_outcomes(hall.db, [journal.get(hall.db, entry_id)])
    return outcome


def refusal(hall: RulebookHall, book: str, lexicon: str, rule: str) -> str:
    with pytest.raises(tournaments.TournamentError) as refused:
        tournaments.create(hall.db, hall.store, "refused", lexicon, rule, rulebook=book)
    assert "refused" not in [t.slug for t in tournaments.list_all(hall.db)]
    return cites_only(book, str(refused.value))


def allowed(hall: RulebookHall, book: str, lexicon: str, rule: str) -> None:
    """Made without a reason; a catalogue edition on a day it was in force (NASPA 1.3 and
    WESPA 1.2(b) take only that edition: issue 35, test_rulebook_editions_in_force.py)."""
    edition = catalogue.by_name(lexicon)
    day = edition.in_force_from if edition is not None and edition.in_force_from else None
    made = tournaments.create(
        hall.db, hall.store, "made", lexicon, rule, rulebook=book, event_date=day
    )
    assert made.off_rulebook is None and not tournaments.rulebook_problems(hall.store, made)


# ---------- item 1: the lists each rulebook allows ----------

# What a refusal of another list says besides the clause it cites, "(" + LIST_CLAUSE[book].
REFUSAL_SAYS = {
    "naspa": (
        "lexicon {lexicon} is not a list the naspa rulebook allows (NASPA 1.3",
        "--off-rulebook",
    ),
    "wespa": ("CSW07, CSW12",),  # Collins, 2007 on
    "nsa-1998": ("`lexicon import --recipe nsa-1998`",),  # also OWL without its MW10 referral
    "school-2011": (),  # plain OSPD4 never refers a long word to MW11; NSWL is not named in 2011
    "msa": ("`lexicon import --recipe msa`",),
}


def by_clause(lists: dict[str, tuple[str, ...]]) -> list:
    """(book, lexicon) for each list of each rulebook, named for the rulebook's list clause."""
    return [
        pytest.param(book, lexicon, id=f"{LIST_CLAUSE[book]}: {lexicon}")
        for book, lexicons in lists.items()
        for lexicon in lexicons
    ]


@pytest.mark.parametrize("book, lexicon", by_clause(ALLOWED))
def test_each_rulebooks_own_lists_are_allowed(rulebooks_hall, book, lexicon):
    """NASPA 1.3: NWL and Collins; WESPA 1.2 and Appendix 2: Collins from 2007; NSA I.A-B: the
    1998 OWL with MW10 beyond 9 letters; school rule 10: OSPD4 with MW11 and the Adjustments
    sheet; MSA 15: the union of OSW and OSPD. Each under its event's rule."""
    allowed(rulebooks_hall, book, lexicon, EVENT[book][1])


@pytest.mark.parametrize("book, lexicon", by_clause(REFUSED))
def test_each_rulebooks_other_lists_are_refused_citing_the_clause(rulebooks_hall, book, lexicon):
    text = refusal(rulebooks_hall, book, lexicon, EVENT[book][1])
    assert f"({LIST_CLAUSE[book]}" in text
    for said in REFUSAL_SAYS[book]:
        assert said.format(lexicon=lexicon) in text


def test_school_rule_10_the_adjustments_take_effect_at_the_event(rulebooks_hall):
    hall = rulebooks_hall
    kiosk = hall.event("school", "school-2011", "SCHOOL-EVENT", "double")
    assert hall.challenge(kiosk, [SHEET_ADDS[0]]).verdict == "ACCEPTABLE"
    assert hall.challenge(kiosk, list(SHEET_REMOVES)).verdict == "UNACCEPTABLE"
    assert hall.challenge(kiosk, ["ABANDONED"]).verdict == "REFER"  # rule 10: MW11 over 8


# ---------- item 1: a list is known by its words and recipe, never by its name ----------


@pytest.fixture
def impostors(tmp_path) -> LexiconStore:
    """Lists named as the rulebooks' own, whose words or referral are not theirs."""
    store = LexiconStore(root=tmp_path / "impostors")
    words = tmp_path / "few.txt"
    words.write_text("CAT\nDOG\nQI\nZA\n")
    import_lexicon(store, words, "CSW24", force=True)  # a list named CSW24 that is not
    import_lexicon(store, words, "NWL2023", force=True)
    for name, refer, even in (("OWL-NSA1998", 9, False), ("SCHOOL-OSPD", 8, True)):
        recipe = tmp_path / f"{name}.toml"
        recipe.write_text(
            f'name = "{name}"\nsources = ["few.txt"]\nrefer_longer_than = {refer}\n'
            f"refer_even_if_listed = {str(even).lower()}\n"
        )
        import_recipe(store, recipe, force=True)
    (tmp_path / "MSA-UNION.toml").write_text(
        f'name = "MSA-UNION"\nsources = ["{present(SHARED_LEXICONS / "OSWI.txt")}"]\n'
    )  # OSWI's words, but no referral to Chambers or MW10
    import_recipe(store, tmp_path / "MSA-UNION.toml", force=True)
    return store


@pytest.mark.parametrize(
    "book, name",
    [
        ("wespa", "CSW24"),
        ("naspa", "NWL2023"),
        ("nsa-1998", "OWL-NSA1998"),
        ("school-2011", "SCHOOL-OSPD"),
        ("msa", "MSA-UNION"),
    ],
)
def test_a_list_named_as_the_rulebooks_own_that_is_not_is_refused(impostors, book, name):
    found = off_rulebook(RULEBOOKS[book], impostors.manifest(name), get_rule("double"))
    assert [p.what for p in found] == ["lexicon"]
    assert f"lexicon {name} is not a list the {book} rulebook allows" in str(found[0])


def test_school_rule_10_a_recipe_on_another_base_is_not_the_school_recipe(rulebooks_hall, tmp_path):
    """NWL2023 less the 317 OSPD4 removals, every word over 8 letters referred: not OSPD4."""
    from support.rulebook_lexicons import school_event_recipe

    recipe = school_event_recipe(tmp_path / "other-base")
    recipe.write_text(recipe.read_text().replace('sources = ["TWL06"]', 'sources = ["NWL2023"]'))
    store = LexiconStore(root=tmp_path / "lexicons")
    import_lexicon(store, present(SHARED_LEXICONS / "NWL2023.txt"), "NWL2023")
    import_recipe(store, recipe, "SCHOOL-NWL")
    problems = off_rulebook(
        RULEBOOKS["school-2011"], store.manifest("SCHOOL-NWL"), get_rule("double")
    )
    assert [p.what for p in problems] == ["lexicon"]


# ---------- item 1: the penalty rules each rulebook allows ----------


@pytest.mark.parametrize("rule", ["double", "5-per-word", "10-per-word", "7-per-turn", "dingle"])
def test_naspa_1_3_any_challenge_rule_the_director_announces(rulebooks_hall, rule):
    allowed(rulebooks_hall, "naspa", "NWL2023", rule)
    assert RULEBOOKS["naspa"].rule_note(get_rule(rule)) is None  # no other rulebook's note


@pytest.mark.parametrize("rule", ["single", "5-per-word", "5-per-turn", "10-per-word", "double"])
def test_wespa_3_10_15_b_the_standard_penalties_carry_no_note(rulebooks_hall, rule):
    allowed(rulebooks_hall, "wespa", "CSW24", rule)
    assert RULEBOOKS["wespa"].rule_note(get_rule(rule)) is None


@pytest.mark.parametrize(
    "rule", ["7-per-word", "dingle", "5-then-10", "escalating", "ladder-5-10", "20-seconds"]
)
def test_wespa_3_10_15_d_other_penalties_may_not_be_rated(rulebooks_hall, rule):
    allowed(rulebooks_hall, "wespa", "CSW24", rule)  # allowed, but noted
    note = RULEBOOKS["wespa"].rule_note(get_rule(rule))
    assert note.startswith(f"WESPA may not rate this event: {rule} is not one of the standard")
    assert note.endswith("(3.10.15(d)).")


@pytest.mark.parametrize("rule", ["single", "5-per-word", "dingle"])
def test_nsa_x_f_the_unsuccessful_challenger_loses_the_turn_only(rulebooks_hall, rule):
    text = refusal(rulebooks_hall, "nsa-1998", "OWL-NSA1998", rule)
    assert f"rule {rule} is not a penalty the nsa-1998 rulebook allows (NSA X.F" in text
    assert "it allows double" in text


@pytest.mark.parametrize("rule", ["single", "5-per-word", "10-seconds"])
def test_school_rule_12_the_unsuccessful_challenger_loses_the_turn_only(rulebooks_hall, rule):
    text = refusal(rulebooks_hall, "school-2011", "SCHOOL-OSPD", rule)
    assert f"rule {rule} is not a penalty the school-2011 rulebook allows (school rule 12" in text


@pytest.mark.parametrize("rule", ["double", "single", "5-per-word", "10-per-turn", "escalating"])
def test_msa_13_i_any_penalty_challenge_system_announced(rulebooks_hall, rule):
    allowed(rulebooks_hall, "msa", "MSA-UNION", rule)


def test_both_off_the_rulebook_are_named_together(rulebooks_hall):
    text = refusal(rulebooks_hall, "nsa-1998", "NWL2023", "single")
    assert "lexicon NWL2023 is not a list" in text and "; and rule single is not a penalty" in text


# ---------- item 2: reissues only under WESPA 3.10.12 and MSA 13 ----------


def _reissue(hall: RulebookHall, book: str):
    kiosk = event(hall, book)
    browser = hall.kiosk_browser(kiosk)
    first = browser.post("/api/v1/adjudications", json={"words": BAD})
    assert first.status_code == 201, first.get_json()
    newest = journal.newest_id(hall.db)
    again = browser.post(
        "/api/v1/adjudications", json={"words": GOOD, "replaces": first.get_json()["id"]}
    )
    return first.get_json(), again, newest


@pytest.mark.parametrize("book", ["wespa", "msa"])
def test_wespa_3_10_12_and_msa_13_a_slip_that_did_not_match_is_reissued(rulebooks_hall, book):
    first, again, _ = _reissue(rulebooks_hall, book)
    assert again.status_code == 201, again.get_json()
    assert found(rulebooks_hall, first["id"]).verdict == outcomes.VOID


@pytest.mark.parametrize(
    "book, clause",
    [
        ("naspa", 'NASPA 6.2: words may be added to or removed from a challenge only "before the '
         'play is adjudicated"'),
        ("nsa-1998", "NSA X.D: the word judge checks the slip against the board before "
         "adjudicating"),
        ("school-2011", 'school rule 12: "Only the words written down will be used to determine '
         'the result of the challenge"'),
    ],
)  # fmt: skip
def test_naspa_6_2_nsa_x_d_and_school_rule_12_settle_the_slip_before_the_verdict(
    rulebooks_hall, book, clause
):
    first, again, newest = _reissue(rulebooks_hall, book)
    assert again.status_code == 409
    error = cites_only(book, again.get_json()["error"])
    assert f"cannot be reissued under the {book} rulebook ({clause}" in error
    assert "verdict" not in again.get_json()
    assert journal.newest_id(rulebooks_hall.db) == newest  # nothing judged, nothing recorded
    assert found(rulebooks_hall, first["id"]).verdict == "UNACCEPTABLE"
    assert not [e for e in journal.entries(rulebooks_hall.db) if e.flag]  # no 6.2 look-up flag


# ---------- item 2: the free challenge, a waiver that leaves the verdict and review open ----------

WAIVERS = [
    ("nsa-1998", "a free challenge at the director's discretion, NSA XII"),  # issue 43: not VI.C
    ("wespa", "a free challenge at the director's discretion, WESPA 6.1.2(e)"),
    ("naspa", "a free challenge at the director's discretion, NASPA 1.2"),
    ("msa", "a free challenge at the director's discretion, MSA 20"),
    ("school-2011", "a free challenge at the director's discretion, school rules, closing note"),
]


@pytest.mark.parametrize("book, cited", WAIVERS, ids=[b for b, _ in WAIVERS])
def test_nsa_vi_c_and_the_directors_discretion_a_free_challenge_cites_the_events_own(
    rulebooks_hall, book, cited
):
    hall = rulebooks_hall
    kiosk = event(hall, book)
    row = hall.challenge(kiosk, GOOD, **GAME)
    assert row.verdict == "ACCEPTABLE"
    waiver = waivers.waive(hall.db, row.id, "score recorded before the play", actor="td",
                           station="td")  # fmt: skip
    assert waiver.kind == "waiver" and waiver.refers_to == row.id
    cites_only(book, waiver.consequence + waiver.note)
    effect = found(hall, row.id)
    assert effect.verdict == "ACCEPTABLE" and effect.penalty["waived"] is True
    assert effect.penalty["points_to_player"] == 0 and not effect.penalty["challenger_loses_turn"]
    assert f"({cited}): no penalty to either player" in cites_only(book, effect.consequence)
    with pytest.raises(second_opinion.SecondOpinionRefused, match="waived already"):
        waivers.waive(hall.db, row.id, "again", actor="td", station="td")


def test_nsa_x_g_after_a_free_challenge_the_review_is_still_open(rulebooks_hall):
    """The waiver rules on nothing: a second opinion may follow (X.G), and the director's
    ruling; once the play is ruled off, there is no penalty left to waive."""
    hall = rulebooks_hall
    kiosk = event(hall, "nsa-1998")
    row = hall.challenge(kiosk, GOOD)
    waivers.waive(hall.db, row.id, "score recorded before the play", actor="td", station="td")
    opinion = second_opinion.give(
        hall.db, hall.store, row.id, ["CAT", "DOGX"], actor="alice", station="judge:alice"
    )
    assert opinion.flagged  # the words differ: the director's
    assert found(hall, row.id).pending
    ruling = record_ruling(hall.db, row.id, "unacceptable", "slip misread", actor="td",
                           station="td", words=["CAT", "DOGX"])  # fmt: skip
    assert ruling.verdict == "UNACCEPTABLE"
    effect = found(hall, row.id)
    assert effect.verdict == "UNACCEPTABLE" and effect.penalty["play_stands"] is False
    assert not second_opinion.cases(hall.db, open_only=True)


def test_the_free_challenge_on_the_command_line_needs_no_verdict(rulebooks_hall, rulebooks_cli):
    hall = rulebooks_hall
    kiosk = event(hall, "nsa-1998")
    row = hall.challenge(kiosk, GOOD)
    out = rulebooks_cli(
        "ruling", str(row.id), "--waive-penalty", "--reason", "score recorded early"
    )
    assert out.exit_code == 0, out.stderr
    assert f"Penalty waived on adjudication #{row.id}" in out.stdout
    assert (
        "(a free challenge at the director's discretion (NSA XII: the Director makes "
        '"reasonable decisions pertaining to any situations not specifically described"))'
        in (out.stdout)
    )  # issue 43, item 10: XII, never VI.C (VI.C's free challenge is granted for later)
    assert "VI.C" not in out.stdout and "may still be reviewed" in out.stdout
    assert [e.kind for e in journal.follow_ups(hall.db, row.id)] == ["waiver"]
    none = rulebooks_cli("ruling", str(row.id), "--reason", "no verdict")
    assert none.exit_code == 2 and "--waive-penalty" in none.stderr
    # the review X.G grants is still open: the director may rule
    ruled = rulebooks_cli("ruling", str(row.id), "--verdict", "acceptable", "--reason", "reviewed")
    assert ruled.exit_code == 0, ruled.stderr
    assert found(hall, row.id).penalty["waived"] is True


# ---------- item 2: voids, as each rulebook has them ----------


def test_naspa_5_4_rescinded_only_for_a_challenge_of_the_outplay(rulebooks_hall, rulebooks_cli):
    hall = rulebooks_hall
    kiosk = event(hall, "naspa")
    mid_game = hall.challenge(kiosk, GOOD, **GAME)
    out = rulebooks_cli(
        "void", str(mid_game.id), "--ground", "rescinded", "--reason", "tiles found"
    )
    assert out.exit_code == 2
    assert "not of the play that went out" in cites_only("naspa", out.stderr)
    assert "(NASPA 5.4)" in out.stderr
    outplay = hall.challenge(kiosk, ["ZEBRA"], final_play=True, **GAME)
    out = rulebooks_cli("void", str(outplay.id), "--ground", "rescinded", "--reason", "tiles found")
    assert out.exit_code == 0, out.stderr
    assert found(hall, outplay.id).consequence.startswith("Rescinded")


def test_naspa_5_4_the_journal_page_offers_rescinded_only_beside_an_outplay(rulebooks_hall):
    hall = rulebooks_hall
    kiosk = event(hall, "naspa")
    mid_game = hall.challenge(kiosk, GOOD)
    outplay = hall.challenge(kiosk, ["ZEBRA"], final_play=True)
    page = hall.director().get("/director/journal").get_data(as_text=True)

    def grounds(entry_id: int) -> str:
        return page.split(f'id="void-ground-{entry_id}"')[1].split("</select>")[0]

    assert 'value="rescinded"' not in grounds(mid_game.id)
    assert 'value="withdrawn"' in grounds(mid_game.id)  # NASPA 4.10
    assert 'value="rescinded"' in grounds(outplay.id)


@pytest.mark.parametrize("book", ["wespa", "nsa-1998", "school-2011", "msa"])
def test_naspa_5_4_rescinded_is_naspas_only(rulebooks_hall, book):
    hall = rulebooks_hall
    row = hall.challenge(event(hall, book), GOOD, final_play=True)
    with pytest.raises(voids.VoidRefused, match=f"not offered under the {book} rulebook"):
        voids.void(hall.db, row.id, "tiles found", actor="td", station="td", ground="rescinded")


@pytest.mark.parametrize("book", ["naspa", "nsa-1998"])
def test_naspa_4_10_and_nsa_iv_i_2_withdrawn_over_a_misunderstood_blank(rulebooks_hall, book):
    hall = rulebooks_hall
    row = hall.challenge(event(hall, book), GOOD)
    void = voids.void(hall.db, row.id, "blank was an S", actor="td", station="td",
                      ground="withdrawn")  # fmt: skip
    assert json.loads(void.details) == {"ground": "withdrawn"}
    assert found(hall, row.id).penalty["play_stands"] is True


def test_wespa_3_10_10_no_retraction(rulebooks_hall):
    hall = rulebooks_hall
    row = hall.challenge(event(hall, "wespa"), GOOD)
    with pytest.raises(voids.VoidRefused) as refused:
        voids.void(hall.db, row.id, "blank", actor="td", station="td", ground="withdrawn")
    assert "(WESPA 3.10.10: a challenge may not be retracted)" in cites_only(
        "wespa", str(refused.value)
    )


@pytest.mark.parametrize("book", list(RULEBOOKS))
def test_a_ruling_is_final_citing_the_events_own_rulebook(rulebooks_hall, book):
    hall = rulebooks_hall
    row = hall.challenge(event(hall, book), GOOD)
    record_ruling(hall.db, row.id, "acceptable", "as judged", actor="td", station="td")
    with pytest.raises(voids.RulingIsFinal) as refused:
        voids.void(hall.db, row.id, "typed twice", actor="td", station="td")
    clause = RULEBOOKS[book].ruling_final_clause
    assert f"a ruling is final ({clause})" in cites_only(book, str(refused.value))


# ---------- item 2: WESPA 3.10.13's confirmation only under WESPA ----------


def test_wespa_3_10_13_a_correction_after_later_turns_is_confirmed(rulebooks_hall):
    hall = rulebooks_hall
    kiosk = event(hall, "wespa")
    first = hall.challenge(kiosk, GOOD, **GAME)
    hall.challenge(kiosk, ["ZEBRA"], **GAME)
    with pytest.raises(correction_window.ConfirmationNeeded) as asked:
        record_ruling(hall.db, first.id, "unacceptable", "misread", actor="td", station="td")
    assert (
        'WESPA 3.10.13 allows it "if and only if: (a) no newly drawn tiles have touched '
        "the player's rack, or (b) no retracted tiles have touched the player's rack\""
        in (str(asked.value))
    )  # issue 43, item 10: (a) and (b) both
    record_ruling(hall.db, first.id, "unacceptable", "misread", actor="td", station="td",
                  confirm_correction=True)  # fmt: skip


@pytest.mark.parametrize("book", ["naspa", "nsa-1998", "school-2011", "msa"])
def test_wespa_3_10_13_is_wespas_only_elsewhere_the_director_simply_rules(rulebooks_hall, book):
    """NSA X.G lets the director review a challenge again: no WESPA confirmation is asked."""
    hall = rulebooks_hall
    kiosk = event(hall, book)
    first = hall.challenge(kiosk, GOOD, **GAME)
    hall.challenge(kiosk, ["ZEBRA"], **GAME)
    ruling = record_ruling(hall.db, first.id, "unacceptable", "misread", actor="td", station="td")
    assert ruling.detail("confirmed") is None
    opinion_row = hall.challenge(kiosk, GOOD, **GAME)
    hall.challenge(kiosk, ["FOX"], **GAME)
    opinion = second_opinion.give(
        hall.db, hall.store, opinion_row.id, BAD, actor="alice", station="judge:alice"
    )
    assert opinion.flagged


# ---------- item 2: second and third opinions (WESPA 3.10.11(c), NSA X.G) ----------


def opinion(hall: RulebookHall, row, words, judge: str):
    return second_opinion.give(
        hall.db, hall.store, row.id, words, actor=judge, station=f"judge:{judge}"
    )


@pytest.mark.parametrize("book", ["wespa", "nsa-1998"])  # NASPA 1.2, MSA 12(ii), school: issue 35
def test_wespa_3_10_11_c_an_agreeing_re_adjudication_is_final_citing_the_events_own(
    rulebooks_hall, book
):
    hall = rulebooks_hall
    row = hall.challenge(event(hall, book), GOOD)
    second = opinion(hall, row, GOOD, "alice")
    assert not second.flagged and second.agrees
    with pytest.raises(second_opinion.SecondOpinionRefused) as refused:
        opinion(hall, row, GOOD, "bob")
    text = cites_only(book, str(refused.value))
    assert f"so it is final ({RULEBOOKS[book].opinion_final_clause}): only the director" in text


def _contrary_second(hall: RulebookHall, book: str):
    """The kiosk typed CAT DOGX (UNACCEPTABLE); the word judge reads CAT DOG off the slip
    (ACCEPTABLE): a second opinion contrary to the original, flagged."""
    row = hall.challenge(event(hall, book), BAD)
    second = opinion(hall, row, GOOD, "alice")
    assert second.flagged and "the verdict differs from the original's" in second.flag_reasons
    return row, second


def test_nsa_x_g_a_third_opinion_agreeing_with_the_second_decides_two_of_three(rulebooks_hall):
    hall = rulebooks_hall
    row, second = _contrary_second(hall, "nsa-1998")
    assert second_opinion.cases(hall.db, open_only=True)
    third = opinion(hall, row, GOOD, "bob")
    assert third.decides and not third.flagged and third.entry.verdict == "ACCEPTABLE"
    assert not second_opinion.cases(hall.db, open_only=True)  # closed, not awaiting the director
    effect = found(hall, row.id)
    assert (effect.verdict, effect.pending) == ("ACCEPTABLE", False)
    assert effect.how.startswith(f"third opinion #{third.entry.id}")
    assert "two of three (NSA X.G)" in effect.how
    assert "loses their turn" in effect.consequence  # NSA X.F, on the words two judges read
    with pytest.raises(second_opinion.SecondOpinionRefused) as refused:
        opinion(hall, row, GOOD, "carol")
    assert "two of three (NSA X.G): only the director can review it now" in str(refused.value)
    # X.G's exception: the director may still review it (naming the words ruled on)
    record_ruling(hall.db, row.id, "unacceptable", "a mistake made twice", actor="td",
                  station="td", words=BAD)  # fmt: skip
    assert found(hall, row.id).verdict == "UNACCEPTABLE"


def test_nsa_x_g_a_third_opinion_agreeing_with_the_original_upholds_it(
    rulebooks_hall, rulebooks_cli
):
    hall = rulebooks_hall
    row, _ = _contrary_second(hall, "nsa-1998")
    out = rulebooks_cli("second-opinion", str(row.id), *BAD)
    assert out.exit_code == 1, out.stderr  # UNACCEPTABLE, as the original
    assert "Two of three opinions agree: this third opinion decides the challenge (NSA X.G)" in (
        cites_only("nsa-1998", out.stdout)
    )
    effect = found(hall, row.id)
    assert (effect.verdict, effect.pending) == ("UNACCEPTABLE", False)
    assert "third opinion" in effect.how and "two of three (NSA X.G)" in effect.how
    assert not second_opinion.cases(hall.db, open_only=True)


def test_nsa_x_g_a_third_reading_of_its_own_goes_to_the_director(rulebooks_hall):
    hall = rulebooks_hall
    row, _ = _contrary_second(hall, "nsa-1998")
    third = opinion(hall, row, ["CAT", "FOX"], "bob")
    assert not third.decides and third.flagged
    assert second_opinion.cases(hall.db, open_only=True)


@pytest.mark.parametrize("book", ["naspa", "msa"])
def test_naspa_1_2_msa_20_after_a_contrary_second_the_director_decides(rulebooks_hall, book):
    hall = rulebooks_hall
    row, _ = _contrary_second(hall, book)
    third = opinion(hall, row, BAD, "bob")  # agrees with the original: no majority rule here
    assert not third.decides and third.awaits_director
    assert second_opinion.cases(hall.db, open_only=True)
    assert found(hall, row.id).pending


def test_wespa_3_10_11_c_no_third_opinion_after_a_differing_second(rulebooks_hall):
    """Issue 43, item 4: the re-adjudication differs, so "the Tournament Director will provide
    a final adjudication": no third opinion (issue 35 took one, then refused a fourth as final
    while the export said the case awaited the director)."""
    hall = rulebooks_hall
    row, second = _contrary_second(hall, "wespa")
    with pytest.raises(second_opinion.SecondOpinionRefused) as refused:
        opinion(hall, row, BAD, "bob")
    text = cites_only("wespa", str(refused.value))
    assert f"Second opinion #{second.entry.id} differs from adjudication #{row.id}: \"the " \
        "Tournament Director will provide a final adjudication\" (WESPA 3.10.11(c)), and no " \
        "third opinion is given." in text  # fmt: skip
    assert second_opinion.cases(hall.db, open_only=True)
    effect = found(hall, row.id)
    assert effect.pending and effect.how == "awaiting the director's ruling"


def test_the_judges_page_says_two_of_three_decided(rulebooks_hall):
    from support.director import post_form, signed_in

    hall = rulebooks_hall
    row, _ = _contrary_second(hall, "nsa-1998")
    judge = signed_in(hall.app.test_client(), "bob", "bob-secret-12", "/judge/login")
    answer = post_form(
        judge, "/judge/second-opinion", {"id": row.id, "words": "CAT DOG"}, page="/judge/"
    )
    page = answer.get_data(as_text=True)
    assert answer.status_code == 201
    assert "this third opinion decides the challenge (NSA X.G)" in page
    assert "WESPA" not in page
