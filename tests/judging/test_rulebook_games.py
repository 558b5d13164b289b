"""Issue 28, item 3: one game per rulebook through a final play, a void and a ruling, on the real
lists, with each challenge's penalty and ordinal checked after each step.

A final play's penalty follows later rulings and voids like any other (WESPA 3.10.15(c)(ii):
"ten-point penalty for subsequent unsuccessful challenges", whichever turn they were); the
ordinal follows the recount ("2nd unsuccessful challenge", never the "3rd" it was); a changed
penalty goes on the director's flags, and once the game is over the flag cites the rulebook on
whether a signed result may still change (WESPA 5.4.1, NASPA 7.8, MSA 3.2, NSA VII.H, school 13).
"""

from __future__ import annotations

import json

from adjudicator.judging import director_flags, outcomes
from adjudicator.judging.corrections import voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.record.journal import journal

from support.rulebook_lexicons import RulebookHall

ANN = {"round": "1", "table": "7", "challenger": "Ann"}


def now(hall: RulebookHall, *rows) -> list[tuple[str, int, str]]:
    """Each row's effective verdict, points to the player and consequence, as they stand."""
    shown = []
    for row in rows:
        ((_, found),) = outcomes.with_outcomes(hall.db, [journal.get(hall.db, row.id)])
        points = (found.penalty or {}).get("points_to_player", 0)
        shown.append((found.verdict, points, found.consequence))
    return shown


def adds(points: int, nth: str, final_play: bool = False) -> tuple[str, int, str]:
    """What `now` reads for a play that stands and adds `points` to the player, for the
    challenger's `nth` unsuccessful challenge in the game ("first", "2nd"): after a final play
    there is no turn to keep."""
    turn = "" if final_play else "; the challenger keeps the turn"
    return (
        "ACCEPTABLE",
        points,
        f"The play stands; the challenger's {nth} unsuccessful challenge in this game: the "
        f"player adds {points} points{turn}.",
    )


def flagged(hall: RulebookHall) -> dict[int, director_flags.PenaltyChange]:
    return {change.challenge.id: change for change in director_flags.penalty_changes(hall.db)}


def play(hall: RulebookHall, book: str, lexicon: str, rule: str):
    """Ann's three unsuccessful challenges in one game, the last of the final play."""
    kiosk = hall.event(f"{book}-game", book, lexicon, rule)
    first = hall.challenge(kiosk, ["CAT"], **ANN)
    second = hall.challenge(kiosk, ["DOG", "FOX"], **ANN)
    last = hall.challenge(kiosk, ["ZEBRA"], final_play=True, **ANN)
    return first, second, last


def test_wespa_3_10_15_c_ii_a_final_plays_penalty_follows_the_void_and_the_ruling(
    rulebooks_hall,
):
    """5 points for the first unsuccessful challenge, 10 for each later one, a final play's too."""
    hall = rulebooks_hall
    first, second, last = play(hall, "wespa", "CSW24", "5-then-10")
    assert now(hall, first, second, last) == [
        adds(5, "first"),
        adds(10, "2nd"),
        adds(10, "3rd", final_play=True),
    ]
    voids.void(hall.db, first.id, "entered at the wrong table", actor="td", station="td")
    assert now(hall, second, last) == [adds(5, "first"), adds(10, "2nd", final_play=True)]
    changes = flagged(hall)
    assert list(changes) == [second.id]  # the final play's penalty is unchanged: 10 still
    assert changes[second.id].result_clause.startswith("WESPA 5.4.1")  # the game is over
    record_ruling(hall.db, second.id, "unacceptable", "DOG was DOGX on the board", actor="td",
                  station="td", confirm_correction=True)  # fmt: skip
    assert now(hall, second, last) == [
        ("UNACCEPTABLE", 0, "The play comes off the board and scores zero."),
        adds(5, "first", final_play=True),
    ]
    changes = flagged(hall)
    assert list(changes) == [last.id]  # shown 10, now 5
    assert (changes[last.id].old["points_to_player"], changes[last.id].new["points_to_player"]) == (
        10,
        5,
    )
    assert "WESPA 5.4.1: a result sheet signed by both players is final" in (
        changes[last.id].result_note
    )


def test_naspa_7_8_dingle_a_final_plays_ordinal_follows_the_recount(rulebooks_hall):
    hall = rulebooks_hall
    first, second, last = play(hall, "naspa", "NWL2023", "dingle")
    assert [c for _, _, c in now(hall, first, second, last)] == [
        "The play stands; the challenger's first unsuccessful challenge in this game: no "
        "penalty; the challenger keeps the turn.",
        "The play stands; the challenger's 2nd unsuccessful challenge in this game: the "
        "challenger loses their turn.",
        "The play stands; the challenger's 3rd unsuccessful challenge in this game.",
    ]
    voids.void(hall.db, first.id, "a test", actor="td", station="td")
    assert [c for _, _, c in now(hall, second, last)] == [
        "The play stands; the challenger's first unsuccessful challenge in this game: no "
        "penalty; the challenger keeps the turn.",
        "The play stands; the challenger's 2nd unsuccessful challenge in this game.",
    ]  # the 2nd now, not the 3rd it was recorded as
    changes = flagged(hall)
    assert list(changes) == [second.id]  # told to lose the turn; now no penalty
    assert changes[second.id].result_clause.startswith("NASPA 7.8")
    record_ruling(hall.db, second.id, "unacceptable", "misread", actor="td", station="td")
    assert now(hall, last)[0][2] == (
        "The play stands; the challenger's first unsuccessful challenge in this game: no penalty."
    )
    assert flagged(hall) == {}  # no penalty was shown for the final play, none is due now


def test_msa_3_2_escalating_the_final_play_recounted_and_flagged(rulebooks_hall):
    hall = rulebooks_hall
    first, second, last = play(hall, "msa", "MSA-UNION", "escalating")
    assert [p for _, p, _ in now(hall, first, second, last)] == [5, 5, 10]
    voids.void(hall.db, first.id, "a test", actor="td", station="td")
    assert now(hall, second, last) == [adds(5, "first"), adds(5, "2nd", final_play=True)]
    changes = flagged(hall)
    assert list(changes) == [last.id]  # shown 10, now 5: the final play, recounted
    assert changes[last.id].result_clause.startswith("MSA 3.2")
    record_ruling(hall.db, second.id, "unacceptable", "misread", actor="td", station="td")
    assert now(hall, last) == [adds(5, "first", final_play=True)]
    assert list(flagged(hall)) == [last.id]


def test_nsa_x_f_double_the_final_play_loses_no_turn_and_nothing_is_recounted(rulebooks_hall):
    hall = rulebooks_hall
    first, second, last = play(hall, "nsa-1998", "OWL-NSA1998", "double")
    assert now(hall, first, second, last) == [
        ("ACCEPTABLE", 0, "The play stands; the challenger loses their turn."),
        ("ACCEPTABLE", 0, "The play stands; the challenger loses their turn."),
        ("ACCEPTABLE", 0, "The play stands."),  # the game is over: no turn to lose
    ]
    voids.void(hall.db, first.id, "a test", actor="td", station="td")
    assert now(hall, first)[0][0] == outcomes.VOID
    assert now(hall, second, last)[1] == ("ACCEPTABLE", 0, "The play stands.")
    record_ruling(hall.db, last.id, "unacceptable", "ZEBRA was ZEBRAS", actor="td",
                  station="td", words=["ZEBRAX"])  # fmt: skip
    assert now(hall, last)[0][:2] == ("UNACCEPTABLE", 0)
    assert all("unsuccessful challenge" not in c for _, _, c in now(hall, second, last))
    assert flagged(hall) == {}


def test_school_rule_12_no_penalty_for_the_final_play_whatever_the_corrections(rulebooks_hall):
    hall = rulebooks_hall
    first, second, last = play(hall, "school-2011", "SCHOOL-OSPD", "double")
    free = (
        "The play stands; no penalty for challenging the final play of the game (school rule 12)."
    )
    assert now(hall, first, last) == [
        ("ACCEPTABLE", 0, "The play stands; the challenger loses their turn."),
        ("ACCEPTABLE", 0, free),
    ]
    voids.void(hall.db, second.id, "a test", actor="td", station="td")
    assert now(hall, last) == [("ACCEPTABLE", 0, free)]
    record_ruling(hall.db, last.id, "acceptable", "checked again", actor="td", station="td")
    assert now(hall, last) == [("ACCEPTABLE", 0, free)]  # the ruling keeps rule 12
    assert flagged(hall) == {}


def test_the_flags_say_the_game_is_over_and_cite_the_rulebook(rulebooks_hall, rulebooks_cli):
    hall = rulebooks_hall
    first, second, _ = play(hall, "wespa", "CSW24", "5-then-10")
    record_ruling(hall.db, first.id, "unacceptable", "misread", actor="td", station="td",
                  confirm_correction=True)  # fmt: skip
    out = rulebooks_cli("flags")
    assert out.exit_code == 0, out.stderr
    line = next(text for text in out.stdout.splitlines() if text.startswith(f"#{second.id} "))
    assert "penalty changed: was 10 points to the player, now 5 points to the player" in line
    assert "The game is over (its final play was challenged)" in line and "WESPA 5.4.1" in line
    listed = rulebooks_cli("flags", "--json")
    entries = {e["id"]: e for e in json.loads(listed.stdout)}
    assert entries[second.id]["game_over"] is True
    assert entries[second.id]["result_note"].endswith("before the next game starts).")
    page = hall.director().get("/director/flags").get_data(as_text=True)
    assert "whether its signed result may still change is your call (WESPA 5.4.1" in page


def test_the_flags_page_is_said_in_the_directors_language(rulebooks_hall):
    hall = rulebooks_hall
    first, _, _ = play(hall, "naspa", "NWL2023", "5-then-10")
    voids.void(hall.db, first.id, "a test", actor="td", station="td")
    director = hall.director()
    director.get("/language/fr?next=/director/flags")
    page = director.get("/director/flags").get_data(as_text=True)
    assert "La partie est finie (son dernier coup a été contesté)" in page
    assert "(NASPA 7.8:" in page
