"""Issue 43, items 2 to 4: each rulebook's chain of opinions, in sequence on one game, with
referrals, voids, reissues, rulings and grants on the same challenges (the texts in
../shared/seeds; the model in judging/corrections/opinion_chain.py).

- NSA X.G: "if the 'second opinion' is contrary to the original ruling, then either player may
  ask and receive a third opinion", and that third decides, two of three; after a referral the
  original ruling is the word judge's dictionary check that closed it (I.B). No fifth opinion.
- NASPA 1.2: "a second opinion from another Director, and a third if the rulings differ. The
  first Director will consider this input in making the final ruling": the final ruling is the
  first Director's, not the second's.
- WESPA 3.10.11(c): "The re-adjudication is final unless it differs from the original
  adjudication, in which case the Tournament Director will provide a final adjudication": no
  third opinion; the export says the case awaits the director. A ruling on a challenge that was
  reissued (3.10.12) says at once that the reissue is the challenge now.
- MSA 12(ii) ("at the discretion of the judges") and 20, the school rules' closing note, and no
  rulebook at all (the hall's practice): more opinions while the director has not ruled.
Every message cites the event's own rulebook only. The journal verifies at the end.
"""

from __future__ import annotations

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import kiosks
from adjudicator.hall.director import director_decisions
from adjudicator.judging.corrections import opinion_chain, second_opinion, voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.record.journal import journal

from support.rulebook_checks import as_person, cites_only, effect, exported, refused, row_id

GOOD, BAD = ["CAT", "DOG"], ["CAT", "DOGX"]
LONG = ["QWERTYUIOPS"]  # 11 letters, in no list: the 1998 OWL recipe refers it (NSA I.B)
GAME = {"round": "1", "table": "3", "challenger": "Ann"}


def opinion(hall, row: int, words, judge: str, **extra):
    return second_opinion.give(
        hall.db, hall.store, row, words, actor=judge, station=f"judge:{judge}", **extra
    )


def no_opinion(hall, row: int, words, judge: str, **extra) -> str:
    """The refusal of an opinion, nothing recorded."""
    newest = journal.newest_id(hall.db)
    try:
        opinion(hall, row, words, judge, **extra)
    except AdjudicatorError as refusal:  # SecondOpinionRefused, VoidRefused
        assert journal.newest_id(hall.db) == newest
        return str(refusal)
    raise AssertionError(f"an opinion by {judge} on #{row} was taken")


def test_nsa_x_g_after_a_referral_a_third_decides_and_no_fifth_is_taken(
    rulebooks_hall, rulebooks_cli
):
    hall, cli = rulebooks_hall, rulebooks_cli
    kiosk = hall.event("nsa-chain", "nsa-1998", "OWL-NSA1998", "double")
    first = hall.challenge(kiosk, GOOD, **GAME)  # an earlier challenge in the same game
    grant = director_decisions.grant_free_challenge(
        hall.db, "nsa-chain", "Ann", "Bob recorded the score before playing", actor="td",
        station="td", round_no="1", table="3",
    )  # fmt: skip
    refer = hall.challenge(kiosk, LONG, **GAME)
    assert refer.verdict == "REFER"
    # the word judge's dictionary check closes the referral (NSA I.B): ACCEPTABLE, and Ann's
    # free challenge (VI.C) pays for it
    closing = opinion(hall, refer.id, LONG, "alice", dictionary="acceptable")
    assert closing.closes_referral and effect(hall, refer.id).verdict == "ACCEPTABLE"
    assert f"free challenge #{grant.id}, granted by the director (NSA VI.C)" in (
        closing.entry.consequence
    )
    later = hall.challenge(kiosk, GOOD, **GAME)  # her next: the grant is held, it costs
    assert "the challenger loses their turn" in later.consequence
    # a contrary second opinion: flagged, and it decides nothing yet
    second = opinion(hall, refer.id, LONG, "bob", dictionary="unacceptable")
    assert second.flagged and second.entry.verdict == "UNACCEPTABLE"
    waiting = effect(hall, refer.id)
    assert waiting.verdict == "ACCEPTABLE" and waiting.pending  # the check stands, contested
    assert "awaiting the director's ruling" in waiting.how
    assert second_opinion.cases(hall.db, open_only=True)
    # either player may ask and receive a third opinion: it decides, two of three (X.G)
    out = cli("second-opinion", str(refer.id), *LONG, "--dictionary", "unacceptable")
    assert out.exit_code == 1, out.stderr  # UNACCEPTABLE
    said = cites_only("nsa-1998", out.stdout)
    assert "Two of three opinions agree: this third opinion decides the challenge (NSA X.G)" in said
    assert "FLAGGED" not in said and "decides nothing" not in said
    decided = effect(hall, refer.id)
    assert (decided.verdict, decided.pending) == ("UNACCEPTABLE", False)
    assert "third opinion" in decided.how and "two of three (NSA X.G)" in decided.how
    assert not second_opinion.cases(hall.db, open_only=True)
    # the play came off: Ann's grant is given back, and pays for her later challenge now
    passed = effect(hall, later.id)
    assert passed.penalty.get("waived") is True and passed.penalty_changed
    assert f"free challenge #{grant.id}" in passed.consequence
    # no fifth opinion (the REFER, the check, the contrary second, the third)
    fifth = no_opinion(hall, refer.id, LONG, "dave", dictionary="acceptable")
    assert f"decided dictionary check #{closing.entry.id}, two of three (NSA X.G)" in fifth
    cites_only("nsa-1998", fifth)
    # the director may still review it (X.G), and is the one who can: a ruling, once
    record_ruling(hall.db, refer.id, "acceptable", "MW10 lists it after all", actor="td",
                  station="td", words=LONG)  # fmt: skip
    ruled = effect(hall, refer.id)
    assert ruled.verdict == "ACCEPTABLE" and ruled.penalty.get("waived") is True  # the grant
    assert not effect(hall, later.id).penalty.get("waived")  # back with the referral: it costs
    # the same game's first challenge: a second opinion that substantiates it is final
    assert not opinion(hall, first.id, GOOD, "alice").flagged
    third = no_opinion(hall, first.id, BAD, "bob")
    assert "so it is final (NSA X.G)" in third and "--exception REASON" in third
    # a void on the referral's game leaves the closed chain as it is: nothing reopens
    voids.void(hall.db, first.id, "typed at the wrong table", actor="td", station="td")
    assert "already void" in no_opinion(hall, first.id, GOOD, "carol")
    assert journal.verify(hall.db).ok


def test_nsa_x_g_a_third_opinion_without_a_referral_and_none_after(rulebooks_hall):
    hall = rulebooks_hall
    kiosk = hall.event("nsa-three", "nsa-1998", "OWL-NSA1998", "double")
    row = hall.challenge(kiosk, BAD, **GAME)
    assert opinion(hall, row.id, GOOD, "alice").flagged  # contrary
    assert opinion(hall, row.id, BAD, "bob").decides  # two of three: UNACCEPTABLE
    fourth = no_opinion(hall, row.id, GOOD, "carol")
    assert f"decided adjudication #{row.id}, two of three (NSA X.G)" in fourth
    assert no_opinion(hall, row.id, GOOD, "dave", exception="a mistake made twice")


def test_naspa_1_2_the_final_ruling_is_the_first_directors(
    rulebooks_hall, rulebooks_cli, monkeypatch
):
    hall, cli = rulebooks_hall, rulebooks_cli
    hall.event("naspa-chain", "naspa", "NWL2023", "double")
    game = ("--round", "1", "--table", "3", "--challenger", "Ann")
    judged = as_person(monkeypatch, cli, "d1", "judge", "--tournament", "naspa-chain", *game,
                       *BAD)  # fmt: skip
    assert judged.exit_code == 1, judged.stderr  # UNACCEPTABLE: d1's decision
    original = row_id(judged.stdout)
    # a second opinion from another Director: the rulings differ
    second = as_person(monkeypatch, cli, "d2", "second-opinion", str(original), *GOOD)
    assert second.exit_code == 0 and second.stdout.startswith("FLAGGED FOR THE DIRECTOR")
    # d1 gave the ruling appealed: no opinion of theirs now (NASPA 1.2: "another Director")
    refused(
        as_person(monkeypatch, cli, "d1", "second-opinion", str(original), *BAD),
        "cli:d1 already judged",
        "(NASPA 1.2: a second opinion comes from another Director)",
    )
    # a third if the rulings differ
    third = as_person(monkeypatch, cli, "d3", "second-opinion", str(original), *BAD)
    assert third.exit_code == 1, third.stderr
    assert "the case still waits for the director's ruling (NASPA 1.2)" in third.stdout
    # no fourth
    refused(as_person(monkeypatch, cli, "d4", "second-opinion", str(original), *GOOD),
            "has had a second opinion and a third (NASPA 1.2): the first director (cli:d1) "
            "now makes the final ruling")  # fmt: skip
    # the final ruling is d1's: not d2's (the second opinion), not d3's, not the director's
    for who in ("d2", "d3", "td"):
        said = refused(
            as_person(monkeypatch, cli, who, "ruling", str(original), "--verdict", "acceptable",
                      "--reason", "the slip said CAT DOG", "--words", *GOOD),
            f"The final ruling on #{original} is cli:d1's, the Director whose decision was "
            'appealed (NASPA 1.2: "The first Director will consider this input in making the '
            'final ruling")',
        )  # fmt: skip
        cites_only("naspa", said)
    assert "gave opinion #" in refused(
        as_person(monkeypatch, cli, "d2", "ruling", str(original), "--verdict", "acceptable",
                  "--reason", "the slip said CAT DOG", "--words", *GOOD)
    )  # fmt: skip
    ruled = as_person(monkeypatch, cli, "d1", "ruling", str(original), "--verdict", "acceptable",
                      "--reason", "the slip said CAT DOG", "--words", *GOOD)  # fmt: skip
    assert ruled.exit_code == 0, ruled.stderr
    assert "by cli:d1" in ruled.stdout
    assert effect(hall, original).verdict == "ACCEPTABLE"
    assert not second_opinion.cases(hall.db, open_only=True)
    # a kiosk's verdict is no Director's: after its second and third, any director rules
    kiosk = kiosks.add(hall.db, "naspa-table-3", "naspa-chain", table="3")
    row = hall.challenge(kiosk, BAD, round="1", challenger="Bob")
    opinion(hall, row.id, GOOD, "alice")
    opinion(hall, row.id, BAD, "bob")
    record_ruling(hall.db, row.id, "unacceptable", "as the kiosk judged", actor="td",
                  station="td", words=BAD)  # fmt: skip
    assert journal.verify(hall.db).ok


def test_wespa_3_10_11_c_no_third_opinion_a_reissue_and_a_grant_on_one_game(
    rulebooks_hall, rulebooks_cli
):
    hall, cli = rulebooks_hall, rulebooks_cli
    kiosk = hall.event("wespa-chain", "wespa", "CSW24", "5-per-word")
    slug = "wespa-chain"
    grant = director_decisions.grant_free_challenge(
        hall.db, slug, "Ann", "Bob wrote the score before playing", actor="td", station="td",
        round_no="1", table="3",
    )  # fmt: skip
    first = hall.challenge(kiosk, GOOD, **GAME)
    assert f"free challenge #{grant.id}" in first.consequence  # the grant pays for it
    # the re-adjudication differs: the Tournament Director decides, no third opinion
    second = opinion(hall, first.id, BAD, "alice")
    assert second.flagged
    out = cli("second-opinion", str(first.id), *GOOD)
    said = refused(
        out,
        f'Second opinion #{second.entry.id} differs from adjudication #{first.id}: "the '
        'Tournament Director will provide a final adjudication" (WESPA 3.10.11(c)), and no '
        "third opinion is given.",
    )
    cites_only("wespa", said)
    # the export says the same state: awaiting the director's ruling
    row = next(r for r in exported(cli) if r["id"] == first.id)
    assert row["effective"]["pending"] is True
    assert row["effective"]["how"] == "awaiting the director's ruling"
    # a later challenge at the table, whose slip did not match the board: reissued (3.10.12)
    slip = hall.challenge(kiosk, BAD, **GAME)
    again = hall.hall.adjudicate(
        kiosks.get(hall.db, kiosk.kiosk.name), GOOD, replaces=slip.id, **GAME
    )
    assert again.refers_to == slip.id
    # a ruling on the reissued challenge says so first (no confirmation asked for it)
    said = refused(
        cli("ruling", str(slip.id), "--verdict", "acceptable", "--reason", "slip misread"),
        f"Adjudication #{slip.id} is already reissued (journal row #{again.id})",
        f"#{again.id}, the reissue, is the challenge now",
    )
    assert "confirm" not in said.lower()
    refused(cli("ruling", str(slip.id), "--verdict", "acceptable", "--reason", "slip misread",
                "--confirm-correction"), "already reissued")  # fmt: skip
    refused(cli("second-opinion", str(slip.id), *GOOD, "--confirm-correction"), "already reissued")
    # the director gives the final adjudication on the first, after later turns: 3.10.13
    said = refused(
        cli("ruling", str(first.id), "--verdict", "unacceptable", "--reason", "DOGX on the slip",
            "--words", *BAD),
        "WESPA 3.10.13 allows it \"if and only if: (a) no newly drawn tiles have touched the "
        "player's rack, or (b) no retracted tiles have touched the player's rack\"",
    )  # fmt: skip
    cites_only("wespa", said)
    ruled = cli("ruling", str(first.id), "--verdict", "unacceptable", "--reason",
                "DOGX on the slip", "--words", *BAD, "--confirm-correction")  # fmt: skip
    assert ruled.exit_code == 0, ruled.stderr
    # ruled successful: the grant is given back, and passes to Ann's reissued challenge
    now = effect(hall, again.id)
    assert now.penalty.get("waived") is True and f"free challenge #{grant.id}" in now.consequence
    assert now.penalty_changed  # the players were told 10 points: the flags say so
    # an agreeing re-adjudication of the reissue is final: no further one
    assert not opinion(hall, again.id, GOOD, "bob").flagged
    final = no_opinion(hall, again.id, GOOD, "carol")
    assert "so it is final (WESPA 3.10.11(c))" in cites_only("wespa", final)
    assert journal.verify(hall.db).ok


def test_msa_the_school_rules_and_none_more_opinions_until_the_director_rules(rulebooks_hall):
    hall = rulebooks_hall
    for book, lexicon, rule in (
        ("msa", "MSA-UNION", "5-per-word"),
        ("school-2011", "SCHOOL-OSPD", "double"),
        (None, "NWL2023", "double"),
    ):
        kiosk = hall.event(f"{book or 'none'}-more", book, lexicon, rule)
        row = hall.challenge(kiosk, BAD, **GAME)
        opinions = [opinion(hall, row.id, GOOD, "alice"), opinion(hall, row.id, BAD, "bob")]
        opinions.append(opinion(hall, row.id, GOOD, "carol"))  # at the judges' discretion
        assert opinions[0].flagged and all(not o.decides for o in opinions)
        assert effect(hall, row.id).pending  # the director decides
        voids.void(hall.db, row.id, "after the time to challenge", actor="td", station="td",
                   ground="late")  # fmt: skip
        assert effect(hall, row.id).verdict == "VOID"
        assert "already void" in no_opinion(hall, row.id, GOOD, "dave")


def test_the_chain_is_described_as_it_behaves():
    """The manual's table (docs/generate.py) reads each rulebook's own clauses, and nothing of
    another's."""
    from adjudicator.judging.rulebooks import NONE, RULEBOOKS

    for book in (*RULEBOOKS.values(), NONE):
        chain = opinion_chain.describe(book)
        text = " ".join((chain.next_opinion, chain.decides, chain.rules_last))
        assert text.strip()
        for other in RULEBOOKS:
            if other != book.name:
                assert other not in text
    assert "no third opinion" in opinion_chain.describe(RULEBOOKS["wespa"]).next_opinion
    assert "first Director" in opinion_chain.describe(RULEBOOKS["naspa"]).rules_last
    assert "two of three" in opinion_chain.describe(RULEBOOKS["nsa-1998"]).decides
    assert "hall's practice" in opinion_chain.describe(NONE).next_opinion
