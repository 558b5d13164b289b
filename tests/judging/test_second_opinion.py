"""Second opinions and the director's rulings: the library, the CLI and the word judge's page."""

from __future__ import annotations

import json
import re
from dataclasses import astuple

import pytest

from adjudicator.errors import AdjudicatorError, ChallengeInputError
from adjudicator.judging.corrections import final_ruling, opinion_chain, second_opinion
from adjudicator.judging.corrections.second_opinion import SecondOpinionRefused
from adjudicator.record.journal import journal
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.director import Staffed, post_form
from support.hall import NWL_WORDS
from support.words import mask

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


def give(staffed: Staffed, original_id: int, words, station=None, actor="alice", **kw):
    return second_opinion.give(
        staffed.db,
        staffed.store,
        original_id,
        words,
        actor=actor,
        station=station or f"judge:{actor}",
        **kw,
    )


def test_an_agreeing_second_opinion_is_recorded_and_final(staffed):
    original = staffed.challenge(["QI", "ZA"])
    opinion = give(staffed, original.id, "za qi")  # any order, any case: the same multiset
    assert opinion.agrees and not opinion.flagged
    row = journal.get(staffed.db, opinion.entry.id)
    assert (row.kind, row.refers_to, row.actor, row.kiosk) == (
        "second-opinion",
        original.id,
        "alice",
        "judge:alice",
    )
    assert row.verdict == "ACCEPTABLE" and row.note is None
    assert row.lexicon_fingerprint == original.lexicon_fingerprint and row.rule == original.rule
    assert not second_opinion.cases(staffed.db, open_only=True)


def test_different_words_with_the_same_verdict_are_flagged(staffed):
    original = staffed.challenge(["QI", "ZA"])
    opinion = give(staffed, original.id, ["QI", "JO"])
    assert opinion.agrees and opinion.flagged
    assert opinion.flag_reasons == ("the words differ from the original's",)
    assert "flagged for the director" in opinion.entry.note
    (case,) = second_opinion.cases(staffed.db, open_only=True)
    assert case.original.id == original.id


def test_a_repeated_word_counts(staffed):
    original = staffed.challenge(["QI", "QI"])
    assert give(staffed, original.id, ["QI"]).flagged
    assert not give(staffed, original.id, ["qi", "qi"], actor="bob").flagged


def test_a_different_verdict_is_flagged_and_the_director_rules(staffed):
    original = staffed.challenge(["QI", "ZA"])
    opinion = give(staffed, original.id, ["QI", "ZAX"])
    assert opinion.entry.verdict == "UNACCEPTABLE" and not opinion.agrees
    assert "the verdict differs from the original's" in opinion.flag_reasons
    ruling = final_ruling.record_ruling(
        staffed.db,
        original.id,
        "acceptable",
        "slip miscopied; ZA was played",
        actor="director",
        station="director",
        words="QI ZA",
    )
    assert (ruling.kind, ruling.refers_to, ruling.verdict, ruling.actor) == (
        "ruling",
        original.id,
        "ACCEPTABLE",
        "director",
    )
    assert ruling.note == "slip miscopied; ZA was played"
    assert ruling.consequence.startswith("The play stands")
    assert not second_opinion.cases(staffed.db, open_only=True)
    with pytest.raises(SecondOpinionRefused, match="already given the final ruling"):
        final_ruling.record_ruling(
            staffed.db,
            original.id,
            "UNACCEPTABLE",
            "changed my mind",
            actor="director",
            station="director",
        )
    with pytest.raises(SecondOpinionRefused, match="already given the final ruling"):
        give(staffed, original.id, ["QI", "ZA"], actor="bob")
    assert journal.verify(staffed.db).ok


@pytest.mark.parametrize(
    "verdict,reason,message",
    [
        ("MAYBE", "a reason", "ACCEPTABLE or UNACCEPTABLE"),
        ("ACCEPTABLE", "  ", "Give the reason"),
        ("ACCEPTABLE", "x" * 501, "Give the reason"),
        ("ACCEPTABLE", "Judge \u202eruled", r"invisible or control character \(U\+202E"),
        ("ACCEPTABLE", "see \x1b[2Jhere", r"U\+001B"),
    ],
)
def test_a_ruling_needs_a_final_verdict_and_a_reason(staffed, verdict, reason, message):
    original = staffed.challenge(["QI"])
    give(staffed, original.id, ["ZA"])
    with pytest.raises(AdjudicatorError, match=message):
        final_ruling.record_ruling(
            staffed.db, original.id, verdict, reason, actor="d", station="director"
        )


def test_refused_from_the_kiosk_that_gave_the_original(staffed):
    original = staffed.challenge(["QI"])
    with pytest.raises(SecondOpinionRefused, match="judged on kiosk table-1.*original adjudicator"):
        give(staffed, original.id, ["QI"], station="table-1")
    assert journal.get(staffed.db, original.id + 1) is None  # nothing recorded


def test_unknown_id_and_non_challenge_rows_are_refused(staffed):
    with pytest.raises(SecondOpinionRefused, match="No adjudication #99"):
        give(staffed, 99, ["QI"])
    original = staffed.challenge(["QI"])
    opinion = give(staffed, original.id, ["QI"])
    with pytest.raises(SecondOpinionRefused, match=f"original adjudication \\(#{original.id}\\)"):
        give(staffed, opinion.entry.id, ["QI"], actor="bob")


def test_refused_when_the_lexicon_changed_since(staffed):
    original = staffed.challenge(["QI"])
    staffed.store.save("TINY-NWL", WordSet.of([*NWL_WORDS, "QIS"]), description="re-imported")
    with pytest.raises(SecondOpinionRefused, match="re-imported since.*same edition"):
        give(staffed, original.id, ["QI"])


def test_the_original_edition_is_used_even_after_the_tournament_moves_on(staffed):
    from adjudicator.hall import tournaments

    original = staffed.challenge(["JO"])  # in TINY-NWL, not in TINY-CSW
    tournaments.update(staffed.db, staffed.store, "spring-nwl", lexicon="TINY-CSW")
    opinion = give(staffed, original.id, ["JO"])
    assert opinion.entry.verdict == "ACCEPTABLE" and opinion.entry.lexicon_name == "TINY-NWL"


def test_bad_input_gives_no_verdict_and_records_nothing(staffed):
    original = staffed.challenge(["QI"])
    with pytest.raises(ChallengeInputError):
        give(staffed, original.id, "Q1")
    assert journal.get(staffed.db, original.id + 1) is None


# ---------- REFER (issue 6): the judge's dictionary check closes it ----------


def _refer_tournament(staffed: Staffed):
    from adjudicator.hall import kiosks, tournaments

    manifest = staffed.store.save(
        "REFER9", WordSet.of(["QI", "ZA", "CAT"]), description="refers", refer_longer_than=9
    )
    assert staffed.store.manifest("REFER9").refer_longer_than == 9, manifest
    tournaments.create(
        staffed.db,
        staffed.store,
        "refer",
        "REFER9",
        "single",
        "Referral",
        rulebook="nsa-1998",  # its referral rule (NSA I.B) is cited
        off_rulebook="a tiny list standing in for OWL",
    )
    return kiosks.add(staffed.db, "table-9", "refer")


def test_nsa_i_b_the_word_judges_dictionary_check_closes_a_refer(staffed):
    """NSA I.B: a word of more than 9 letters not in OWL is judged from MW10 by a person, and
    X.J: the director or designated staff rule; so the word judge's check is final, and the
    record says so (no director step)."""
    kiosk = _refer_tournament(staffed)
    original = staffed.challenge(["QI", "QUODLIBETS"], enrolment=kiosk)
    assert original.verdict == "REFER"
    with pytest.raises(SecondOpinionRefused, match="dictionary check"):
        give(staffed, original.id, ["QI", "QUODLIBETS"])
    opinion = give(staffed, original.id, ["QI", "QUODLIBETS"], dictionary="acceptable")
    assert opinion.entry.verdict == "ACCEPTABLE" and not opinion.flagged
    assert opinion.entry.note == ("dictionary check: acceptable; " + opinion_chain.CLOSES_REFERRAL)
    assert "NSA I.B" in opinion.entry.note
    assert (
        opinion.entry.consequence == "The play stands; no penalty; the challenger keeps the turn."
    )
    assert not second_opinion.cases(staffed.db, open_only=True)
    # a later check that differs from the one that closed it goes to the director
    other = give(staffed, original.id, ["QI", "QUODLIBETS"], actor="bob", dictionary="unacceptable")
    assert other.flag_reasons == (
        f"the verdict differs from the dictionary check #{opinion.entry.id}",
    )


def test_a_refer_with_other_words_goes_to_the_director(staffed):
    kiosk = _refer_tournament(staffed)
    original = staffed.challenge(["QI", "QUODLIBETS"], enrolment=kiosk)
    # a short missing word is decided by the lexicon, whatever the dictionary says
    short = give(staffed, original.id, ["QX", "QUODLIBETS"], dictionary="acceptable")
    assert short.entry.verdict == "UNACCEPTABLE"
    assert short.flag_reasons == ("the words differ from the original's",)


def test_refer_on_a_second_opinion_without_a_dictionary_check_is_recorded_as_refer(staffed):
    kiosk = _refer_tournament(staffed)
    original = staffed.challenge(["QI"], enrolment=kiosk)
    opinion = give(staffed, original.id, ["QI", "QUODLIBETS"])
    assert opinion.entry.verdict == "REFER" and opinion.flagged


# ---------- the CLI ----------


def _cli_home(run, home, staffed_words=("QI", "ZA", "CAT")):
    LexiconStore().save("T", WordSet.of(staffed_words))
    assert run("tournament", "create", "t", "--lexicon", "T", "--rule", "double").exit_code == 0
    assert run("kiosk", "add", "k1", "--tournament", "t").exit_code == 0
    from adjudicator.hall import kiosks
    from adjudicator.hall.hall import Hall

    hall = Hall(rate_limit=None)
    return hall, kiosks.get(hall.db, "k1")


def test_cli_second_opinion_exit_codes_and_output(run, home):
    hall, kiosk = _cli_home(run, home)
    good = hall.adjudicate(kiosk, ["QI", "ZA"])
    out = run("second-opinion", str(good.id), "za", "qi")
    assert out.exit_code == 0 and out.stderr == ""
    assert out.stdout.splitlines()[0].startswith("ACCEPTABLE")
    assert "agrees with the original" in out.stdout and "flagged" not in out.stdout
    other = hall.adjudicate(kiosk, ["QI", "ZA"])
    out = run("second-opinion", str(good.id), "QI")
    assert out.exit_code == 2 and out.stdout == "" and "NSA Guideline 11g" in out.stderr
    out = run("second-opinion", str(other.id), "-", input="QI\nZAX\n")
    # issue 20, item 13: a differing opinion leads with the flag, not a decision
    assert out.exit_code == 1 and out.stdout.startswith("FLAGGED FOR THE DIRECTOR: the words")
    assert "This second opinion (UNACCEPTABLE) decides nothing until the director" in out.stdout
    row = journal.get(hall.db, int(out.stdout.split("Second opinion #")[1].split()[0]))
    assert row.actor.startswith("cli:") and row.kiosk == row.actor
    out = run("second-opinion", "999", "QI")
    assert out.exit_code == 2 and out.stdout == "" and "No adjudication #999" in out.stderr
    out = run("ruling", str(good.id), "--verdict", "UNACCEPTABLE", "--reason", "the slip was right")
    assert out.exit_code == 0 and out.stdout.startswith("UNACCEPTABLE")
    assert "Reason: the slip was right" in out.stdout
    assert run("journal", "verify").exit_code == 0


NO_FLAGS = "No second opinion is waiting for a ruling.\n"


def _judge_again(hall, original_id: int, words, actor: str = "alice"):
    return second_opinion.give(
        hall.db, hall.store, original_id, words, actor=actor, station=f"judge:{actor}"
    )


def test_cli_flags_when_nothing_is_flagged(run, home):
    hall, kiosk = _cli_home(run, home)
    assert astuple(run("flags")) == (0, NO_FLAGS, "")
    assert json.loads(run("flags", "--json").stdout) == []
    agreed = hall.adjudicate(kiosk, ["QI", "ZA"])
    _judge_again(hall, agreed.id, "za qi")  # agrees: final, nothing for the director
    assert astuple(run("flags")) == (0, NO_FLAGS, "")


def test_cli_flags_lists_an_open_case_until_the_director_rules(run, home):
    hall, kiosk = _cli_home(run, home)
    agreed = hall.adjudicate(kiosk, ["CAT"])
    _judge_again(hall, agreed.id, "cat")
    original = hall.adjudicate(kiosk, ["QI", "ZAX"], table="7")
    opinion = _judge_again(hall, original.id, "qi za").entry
    out = run("flags")
    assert out.exit_code == 0 and out.stderr == ""
    (line,) = out.stdout.splitlines()
    when = original.recorded_at[:16].replace("T", " ")
    assert line == (
        f"#{original.id} | t | kiosk k1 table 7 | {when} UTC | original UNACCEPTABLE (QI ZAX) | "
        f"second opinion #{opinion.id} by alice: ACCEPTABLE (QI ZA) | "
        "flagged: the words differ from the original's; the verdict differs from the original's"
    )
    ruling = ("ruling", str(original.id), "--verdict", "ACCEPTABLE", "--reason", "slip misread")
    unnamed = run(*ruling)  # issue 20, item 13: the opinion's words differ: name them
    assert unnamed.exit_code == 2 and "name the words you rule on" in unnamed.stderr
    ruled = run(*ruling, "--words", "QI", "ZA")
    assert ruled.exit_code == 0
    assert astuple(run("flags")) == (0, NO_FLAGS, "")
    assert json.loads(run("flags", "--json").stdout) == []


def test_cli_flags_json(run, home, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_SEPARATE_LOOKUP_SECONDS", "0")  # second opinions only here
    hall, kiosk = _cli_home(run, home)
    older = hall.adjudicate(kiosk, ["QI", "ZA"])
    first = _judge_again(hall, older.id, "qi zax").entry  # the verdict differs
    second = _judge_again(hall, older.id, "qi za", actor="bob").entry  # a third look: agrees
    newer = hall.adjudicate(kiosk, ["CAT"])
    third = _judge_again(hall, newer.id, "qi").entry  # the words differ, the verdict agrees
    out = run("flags", "--json")
    assert out.exit_code == 0 and out.stderr == ""
    cases = json.loads(out.stdout)
    assert [case["id"] for case in cases] == [newer.id, older.id]  # newest first
    assert cases[1] == {
        "flag": "second-opinion",
        "id": older.id,
        "tournament": "t",
        "kiosk": "k1",
        "table": None,
        "recorded_at": older.recorded_at,
        "verdict": "ACCEPTABLE",
        "words": ["QI", "ZA"],
        "second_opinions": [
            {
                "id": first.id,
                "recorded_at": first.recorded_at,
                "actor": "alice",
                "verdict": "UNACCEPTABLE",
                "words": ["QI", "ZAX"],
                "flag_reasons": [
                    "the words differ from the original's",
                    "the verdict differs from the original's",
                ],
            },
            {
                "id": second.id,
                "recorded_at": second.recorded_at,
                "actor": "bob",
                "verdict": "ACCEPTABLE",
                "words": ["QI", "ZA"],
                "flag_reasons": [],
            },
        ],
        "flag_reasons": [
            "the words differ from the original's",
            "the verdict differs from the original's",
        ],
    }
    assert cases[0]["second_opinions"][0]["id"] == third.id
    assert cases[0]["flag_reasons"] == ["the words differ from the original's"]


def test_cli_flags_do_not_say_which_word_failed(run, home, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_SEPARATE_LOOKUP_SECONDS", "0")  # second opinions only here
    hall, kiosk = _cli_home(run, home)
    for position in range(3):
        words = ["QI", "ZA", "CAT"]
        words[position] = BAD
        original = hall.adjudicate(kiosk, ["QI", "ZA", "CAT"])
        _judge_again(hall, original.id, words)
    lines = run("flags").stdout.splitlines()
    assert len(lines) == 3
    masked = {_masked(line) for line in lines}  # ids, times and words masked
    assert len(masked) == 1, masked
    text = run("flags").stdout + run("flags", "--json").stdout
    for hint in ("valid", "phony", "bad word", "not in", "good"):
        assert hint not in text.lower()


def test_cli_passwords(run, home):
    out = run("director", "set-password", "--password-stdin", input="short\n")
    assert out.exit_code == 2 and "too short" in out.stderr
    out = run("director", "set-password", input="long-enough-1\nlong-enough-1\n")
    assert out.exit_code == 0 and "long-enough" not in out.stdout
    assert (
        run("judge-account", "add", "carol", "--password-stdin", input="carols-secret\n").exit_code
        == 0
    )
    out = run("judge-account", "add", "carol", "--password-stdin", input="carols-secret\n")
    assert out.exit_code == 2 and "already exists" in out.stderr
    assert (
        run("judge-account", "add", "Director", "--password-stdin", input="x" * 12).exit_code == 2
    )
    assert (
        run(
            "judge-account", "set-password", "carol", "--password-stdin", input="carols-secret-2\n"
        ).exit_code
        == 0
    )
    listed = run("judge-account", "list", "--json")
    assert "carols-secret" not in listed.stdout and '"carol"' in listed.stdout


# ---------- the word judge's page ----------


def test_the_judge_page_flow(staffed):
    original = staffed.challenge(["QI", "ZA"])
    judge = staffed.judge()
    case_page = judge.get(f"/judge/case?id={original.id}").get_data(as_text=True)
    assert "table-1" in case_page and 'spellcheck="false"' in case_page
    # the judge types the words from the slip (the CSRF token is random: it may hold "ZA")
    assert "ZA" not in re.sub(r'name="csrf_token" value="[^"]+"', "", case_page)
    response = post_form(
        judge, "/judge/second-opinion", {"id": original.id, "words": "QI ZAX"}, page="/judge/"
    )
    page = response.get_data(as_text=True)
    assert response.status_code == 201
    assert ">UNACCEPTABLE<" in page and "flagged for the director" in page
    entry = journal.get(staffed.db, original.id + 1)
    assert (entry.kind, entry.actor, entry.kiosk) == ("second-opinion", "alice", "judge:alice")
    director = staffed.director()
    flags = director.get("/director/flags").get_data(as_text=True)
    assert f'id="case-{original.id}"' in flags
    # issue 20, item 13: the judge typed other words, so the page asks for the words ruled on
    assert f'id="words-{original.id}" name="words"' in flags
    assert "name the words you rule on" in flags
    done = post_form(
        director,
        f"/director/flags/{original.id}/ruling",
        {"verdict": "ACCEPTABLE", "reason": "ZA on the board", "words": "QI ZA"},
        follow_redirects=True,
    )
    assert "Final ruling on #" in done.get_data(as_text=True)
    assert "No second opinion is waiting" in director.get("/director/flags").get_data(as_text=True)


def test_the_judge_page_refuses_on_the_original_kiosks_screen(staffed):
    original = staffed.challenge(["QI"])
    browser = staffed.kiosk_browser()  # paired as table-1, which judged it
    from support.director import JUDGE, JUDGE_PASSWORD, signed_in

    signed_in(browser, JUDGE, JUDGE_PASSWORD, "/judge/login")
    response = post_form(
        browser, "/judge/second-opinion", {"id": original.id, "words": "QI"}, page="/judge/"
    )
    assert response.status_code == 400
    assert "original adjudicator should not give the second opinion" in response.get_data(
        as_text=True
    )


def test_the_judge_page_for_unknown_ids(staffed):
    judge = staffed.judge()
    assert judge.get("/judge/case?id=42").status_code == 404
    assert judge.get("/judge/case?id=abc").status_code == 400


# ---------- no per-word validity anywhere ----------

GOOD = ["QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA"]
BAD = "QX"


def _masked(text: str) -> str:
    text = re.sub(r"#\d+", "#N", text)
    text = re.sub(r"\b[0-9A-F]{4}-[0-9A-F]{4}\b", "<RECEIPT>", text)  # from the row's hash
    text = re.sub(r"\d{4}-\d\d-\d\d[ T][\d:.]+(\+00:00)?", "<T>", text)
    text = re.sub(
        r'value="[^"]+" name="csrf_token"|name="csrf_token" value="[^"]+"', "<CSRF>", text
    )
    return mask(text, [*GOOD, BAD])


def test_second_opinion_pages_and_cli_do_not_say_which_word_failed(staffed, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_SEPARATE_LOOKUP_SECONDS", "0")  # no look-up flags here
    judge = staffed.judge()
    pages = set()
    for position in range(8):
        words = list(GOOD)
        words[position] = BAD
        original = staffed.challenge(GOOD)  # all good; the second opinion has one bad word
        response = post_form(
            judge,
            "/judge/second-opinion",
            {"id": original.id, "words": " ".join(words)},
            page="/judge/",
        )
        assert response.status_code == 201
        pages.add(_masked(response.get_data(as_text=True)))
    assert len(pages) == 1
    (page,) = pages
    assert "UNACCEPTABLE" in page
    flags = _masked(staffed.director().get("/director/flags").get_data(as_text=True))
    assert flags.count("<WORD> <WORD> <WORD> <WORD> <WORD> <WORD> <WORD> <WORD>") == 16
