"""Issue 35, items 3 and 4: each rulebook's second and third opinions as its text gives them,
and WESPA 3.10.13's confirmation only under WESPA (the texts in ../shared/seeds).

- WESPA 3.10.11(c): "The re-adjudication is final unless it differs from the original
  adjudication, in which case the Tournament Director will provide a final adjudication."
- NSA X.G: the review "if it substantiates the original decision ... should be final"; "if the
  'second opinion' is contrary to the original ruling, then either player may ask and receive a
  third opinion"; "the Director may make an exception and review the challenge for the third
  time if further information suggests that a mistake has been made twice".
- NASPA 1.2: "a second opinion from another Director, and a third if the rulings differ. The
  first Director will consider this input in making the final ruling."
- MSA 12(ii): re-adjudication "at the discretion of the judges"; 20: the director's decision
  is final. School rules: "Final decisions on all rulings are at the discretion of the official
  School SCRABBLE® Capitol Cup Director" (the closing note).
- With no rulebook: an agreeing second is final, a differing one goes to the director, and the
  rulebooks' own steps (the exception, NASPA 1.2's limit) are not offered.
"""

from __future__ import annotations

import json

import pytest

from adjudicator.judging.corrections import second_opinion
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.record.journal import journal

from support.director import post_form, signed_in
from support.rulebook_lexicons import EVENTS, RulebookHall

EVENT = EVENTS
GOOD, BAD = ["CAT", "DOG"], ["CAT", "DOGX"]
GAME = {"round": "1", "table": "7", "challenger": "Ann"}


def event(hall: RulebookHall, book: str | None):
    lexicon, rule = EVENT[book]
    return hall.event(f"{book or 'none'}-chain", book, lexicon, rule)


def opinion(hall: RulebookHall, row_id: int, words, judge: str, **extra):
    return second_opinion.give(
        hall.db, hall.store, row_id, words, actor=judge, station=f"judge:{judge}", **extra
    )


def refused(hall: RulebookHall, row_id: int, words, judge: str, **extra) -> str:
    newest = journal.newest_id(hall.db)
    with pytest.raises(second_opinion.SecondOpinionRefused) as refusal:
        opinion(hall, row_id, words, judge, **extra)
    assert journal.newest_id(hall.db) == newest  # nothing recorded
    return str(refusal.value)


# ---------- item 3: the 3.10.13 confirmation is WESPA's ----------


@pytest.mark.parametrize("book", ["naspa", "nsa-1998", "school-2011", "msa"])
def test_confirm_correction_is_refused_outside_wespa_exit_2(rulebooks_hall, rulebooks_cli, book):
    hall, cli = rulebooks_hall, rulebooks_cli
    kiosk = event(hall, book)
    first = hall.challenge(kiosk, GOOD, **GAME)
    hall.challenge(kiosk, ["ZEBRA"], **GAME)  # the table played on
    newest = journal.newest_id(hall.db)
    for args in (
        ("ruling", str(first.id), "--verdict", "unacceptable", "--reason", "misread"),
        ("second-opinion", str(first.id), *BAD),
    ):
        out = cli(*args, "--confirm-correction")
        assert out.exit_code == 2 and out.stdout == "" and "Traceback" not in out.stderr
        assert "This is WESPA 3.10.13's confirmation (a correction after later turns): " \
            f"tournament {book}-chain is under the {book} rulebook, which has no such step." \
            in out.stderr  # fmt: skip
    assert journal.newest_id(hall.db) == newest  # nothing recorded
    ruled = cli("ruling", str(first.id), "--verdict", "unacceptable", "--reason", "misread")
    assert ruled.exit_code == 0, ruled.stderr  # the director simply rules (no 3.10.13 there)


@pytest.mark.parametrize("book", ["wespa", None])
def test_confirm_correction_under_wespa_and_with_no_rulebook(rulebooks_hall, rulebooks_cli, book):
    hall, cli = rulebooks_hall, rulebooks_cli
    kiosk = event(hall, book)
    first = hall.challenge(kiosk, GOOD, **GAME)
    hall.challenge(kiosk, ["ZEBRA"], **GAME)
    asked = cli("ruling", str(first.id), "--verdict", "unacceptable", "--reason", "misread")
    assert asked.exit_code == 2 and 'WESPA 3.10.13 allows it "if and only if: (a)' in asked.stderr
    assert "or (b) no retracted tiles have touched the player's rack" in asked.stderr
    out = cli("ruling", str(first.id), "--verdict", "unacceptable", "--reason", "misread",
              "--confirm-correction")  # fmt: skip
    assert out.exit_code == 0, out.stderr
    (ruling,) = [e for e in journal.follow_ups(hall.db, first.id) if e.kind == "ruling"]
    assert ruling.detail("confirmed") is True


def test_the_judges_page_offers_the_confirmation_only_under_wespa(rulebooks_hall):
    hall = rulebooks_hall
    judge = signed_in(hall.app.test_client(), "bob", "bob-secret-12", "/judge/login")
    for book, offered in (("wespa", True), ("naspa", False), ("nsa-1998", False)):
        row = hall.challenge(event(hall, book), GOOD)
        page = judge.get(f"/judge/case?id={row.id}").get_data(as_text=True)
        assert ('name="confirm_correction"' in page) is offered, book
        if not offered:
            answer = post_form(judge, "/judge/second-opinion",
                               {"id": row.id, "words": "CAT DOG", "confirm_correction": "1"},
                               page="/judge/")  # fmt: skip
            assert answer.status_code == 400
            assert "WESPA 3.10.13&#39;s confirmation" in answer.get_data(as_text=True)


# ---------- item 4: NSA X.G as written ----------


def test_nsa_x_g_no_third_opinion_after_a_second_that_substantiates(rulebooks_hall, rulebooks_cli):
    hall, cli = rulebooks_hall, rulebooks_cli
    row = hall.challenge(event(hall, "nsa-1998"), GOOD)
    assert not opinion(hall, row.id, GOOD, "alice").flagged
    text = refused(hall, row.id, BAD, "bob")
    assert "so it is final (NSA X.G)" in text and "--exception REASON" in text
    out = cli("second-opinion", str(row.id), *BAD)
    assert out.exit_code == 2 and "third opinion is given only if the second is contrary" in (
        out.stderr
    )


def test_nsa_x_g_no_third_after_a_second_with_the_same_verdict_on_other_words(rulebooks_hall):
    """The second agreed on the verdict but named other words: not contrary, so no third (the
    case waits for the director's ruling on the words)."""
    hall = rulebooks_hall
    row = hall.challenge(event(hall, "nsa-1998"), GOOD)
    second = opinion(hall, row.id, ["CAT", "FOX"], "alice")
    assert second.flagged and second.entry.verdict == row.verdict
    text = refused(hall, row.id, GOOD, "bob")
    assert "it is not contrary to the original ruling, so the director rules on the words " \
        "(NSA X.G)" in text  # fmt: skip
    assert second_opinion.cases(hall.db, open_only=True)


def test_nsa_x_g_the_directors_exception_recorded_citing_x_g(rulebooks_hall, rulebooks_cli):
    hall, cli = rulebooks_hall, rulebooks_cli
    row = hall.challenge(event(hall, "nsa-1998"), GOOD)
    opinion(hall, row.id, GOOD, "alice")
    out = cli("second-opinion", str(row.id), *BAD, "--exception",
              "the slip showed DOGX: a mistake made twice")  # fmt: skip
    assert out.exit_code == 1, out.stderr  # UNACCEPTABLE, as reviewed
    assert out.stdout.startswith("FLAGGED FOR THE DIRECTOR")  # differs: the director rules
    third = [e for e in journal.follow_ups(hall.db, row.id) if e.kind == "second-opinion"][-1]
    assert third.detail("exception") == "the slip showed DOGX: a mistake made twice"
    assert "the director's exception (NSA X.G): the slip showed DOGX" in third.note
    exported = json.loads(cli("journal", "export", "--format", "json").stdout)
    assert exported[-1]["details"]["exception"] == "the slip showed DOGX: a mistake made twice"
    fourth = refused(hall, row.id, GOOD, "carol")
    assert "has had its second and third opinions (NSA X.G)" in fourth
    record_ruling(hall.db, row.id, "unacceptable", "as reviewed", actor="td", station="td",
                  words=BAD)  # fmt: skip


def test_nsa_x_g_no_exception_where_x_g_gives_the_third_anyway(rulebooks_hall):
    hall = rulebooks_hall
    row = hall.challenge(event(hall, "nsa-1998"), BAD)
    first = refused(hall, row.id, GOOD, "alice", exception="why not")
    assert "No exception is needed for the second opinion" in first
    opinion(hall, row.id, GOOD, "alice")  # contrary
    text = refused(hall, row.id, GOOD, "bob", exception="why not")
    assert "No exception is needed for a third opinion after a contrary second" in text
    assert opinion(hall, row.id, GOOD, "bob").decides  # two of three


@pytest.mark.parametrize("book", ["naspa", "wespa", "msa", "school-2011", None])
def test_the_exception_is_nsa_x_gs_only(rulebooks_hall, rulebooks_cli, book):
    hall, cli = rulebooks_hall, rulebooks_cli
    row = hall.challenge(event(hall, book), GOOD)
    opinion(hall, row.id, GOOD, "alice")
    out = cli("second-opinion", str(row.id), *GOOD, "--exception", "a mistake made twice")
    assert out.exit_code == 2
    assert "is NSA X.G's: tournament" in out.stderr and "not under the nsa-1998 rulebook" in (
        out.stderr
    )


def test_the_exception_on_the_judges_page_is_the_directors(rulebooks_hall):
    hall = rulebooks_hall
    row = hall.challenge(event(hall, "nsa-1998"), GOOD)
    opinion(hall, row.id, GOOD, "alice")
    judge = signed_in(hall.app.test_client(), "bob", "bob-secret-12", "/judge/login")
    assert 'name="exception"' not in judge.get(f"/judge/case?id={row.id}").get_data(True)
    answer = post_form(judge, "/judge/second-opinion",
                       {"id": row.id, "words": "CAT DOGX", "exception": "me too"},
                       page="/judge/")  # fmt: skip
    assert answer.status_code == 403
    director = hall.director()
    case = director.get(f"/judge/case?id={row.id}").get_data(as_text=True)
    assert 'name="exception"' in case and "NSA X.G" in case
    answer = post_form(director, "/judge/second-opinion",
                       {"id": row.id, "words": "CAT DOGX", "exception": "slip re-read"},
                       page="/judge/")  # fmt: skip
    assert answer.status_code == 201, answer.get_data(as_text=True)
    latest = journal.get(hall.db, journal.newest_id(hall.db))
    assert latest.detail("exception") == "slip re-read" and latest.actor == "director"


# ---------- item 4: NASPA 1.2, MSA 12(ii), the school rules, WESPA, none ----------


def test_naspa_1_2_a_third_only_if_the_rulings_differ_then_the_first_director(
    rulebooks_hall, rulebooks_cli
):
    hall, cli = rulebooks_hall, rulebooks_cli
    kiosk = event(hall, "naspa")
    same = hall.challenge(kiosk, GOOD)
    out = cli("second-opinion", str(same.id), *GOOD)
    assert out.exit_code == 0
    assert "This second opinion agrees with the original (NASPA 1.2): a third opinion is given " \
        "only if the rulings differ, and the first director makes the final ruling." \
        in out.stdout  # fmt: skip
    assert "is final" not in out.stdout  # 1.2 makes the director's ruling final, not this
    text = refused(hall, same.id, GOOD, "bob")
    assert "a third opinion is given only if the rulings differ (NASPA 1.2)" in text
    differ = hall.challenge(kiosk, BAD)
    assert opinion(hall, differ.id, GOOD, "alice").flagged
    third = opinion(hall, differ.id, BAD, "bob")
    assert not third.decides and third.awaits_director  # the first director rules
    assert "has had a second opinion and a third (NASPA 1.2): the first director now makes " \
        "the final ruling" in refused(hall, differ.id, GOOD, "carol")  # fmt: skip
    record_ruling(hall.db, differ.id, "acceptable", "slip re-read", actor="td", station="td",
                  words=GOOD)  # fmt: skip
    assert not second_opinion.cases(hall.db, open_only=True)


@pytest.mark.parametrize(
    "book, said",
    [
        ("msa", 'This second opinion agrees with the original (MSA 12(ii): re-adjudication "at '
         'the discretion of the judges").'),
        ("school-2011", "This second opinion agrees with the original (the school rules' "
         "closing note: final decisions on all rulings are at the director's discretion)."),
    ],
)  # fmt: skip
def test_msa_12_ii_and_the_school_rules_re_adjudication_at_discretion(
    rulebooks_hall, rulebooks_cli, book, said
):
    hall, cli = rulebooks_hall, rulebooks_cli
    row = hall.challenge(event(hall, book), GOOD)
    out = cli("second-opinion", str(row.id), *GOOD)
    assert out.exit_code == 0 and said in out.stdout and "is final" not in out.stdout
    again = opinion(hall, row.id, BAD, "bob")  # at the judges' discretion: given
    assert again.flagged  # it differs: the director decides
    record_ruling(hall.db, row.id, "acceptable", "as judged", actor="td", station="td",
                  words=GOOD)  # fmt: skip
    assert not second_opinion.cases(hall.db, open_only=True)


@pytest.mark.parametrize("book, cited", [("wespa", " (WESPA 3.10.11(c))"), (None, "")])
def test_wespa_3_10_11_c_and_no_rulebook_an_agreeing_second_is_final(
    rulebooks_hall, rulebooks_cli, book, cited
):
    hall, cli = rulebooks_hall, rulebooks_cli
    row = hall.challenge(event(hall, book), GOOD)
    out = cli("second-opinion", str(row.id), *GOOD)
    assert f"This second opinion is final{cited}." in out.stdout
    assert f"so it is final{cited}: only the director can rule on it now." in refused(
        hall, row.id, GOOD, "bob"
    )


def test_the_judges_result_page_says_each_rulebooks_chain(rulebooks_hall):
    hall = rulebooks_hall
    judge = signed_in(hall.app.test_client(), "bob", "bob-secret-12", "/judge/login")
    for book, said in (
        ("naspa", "a third opinion is given only if the rulings differ, and the first director "
         "makes the final ruling"),
        ("msa", "This second opinion agrees with the original (MSA 12(ii)"),
        ("wespa", "agrees with the original and is final (WESPA 3.10.11(c))"),
    ):  # fmt: skip
        row = hall.challenge(event(hall, book), GOOD)
        page = post_form(judge, "/judge/second-opinion", {"id": row.id, "words": "CAT DOG"},
                         page="/judge/").get_data(as_text=True)  # fmt: skip
        assert said in page.replace("&#34;", '"'), book
    index = judge.get("/judge/").get_data(as_text=True)
    assert "WESPA" not in index and "NSA" not in index  # the hall's page names no rulebook
