"""Issue 35: the corrections in sequence on one game, under each rulebook and with none.

A ruling, a void, a reissue (where the rulebook has them: WESPA 3.10.12, MSA 13), a second
opinion, a free challenge granted and used (NSA VI.C; elsewhere the director's discretion) and
the challenges the director decides (WESPA 3.10.16-17 and their like), one after another on one
game, give the outcomes and penalties the rulebook gives, not only each on its own; under a rule
that counts a player's unsuccessful challenges (dingle) too. The journal verifies at the end.
"""

from __future__ import annotations

import pytest

from adjudicator.hall.director import director_decisions
from adjudicator.judging import outcomes
from adjudicator.judging.corrections import second_opinion, voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.record.journal import journal

CASES = [
    ("wespa", "CSW24", "5-per-word"),
    ("msa", "MSA-UNION", "5-per-word"),
    ("naspa", "NWL2023", "double"),
    ("nsa-1998", "OWL-NSA1998", "double"),
    ("school-2011", "SCHOOL-OSPD", "double"),
    (None, "NWL2023", "double"),
    ("naspa", "NWL2023", "dingle"),
    ("msa", "MSA-UNION", "dingle"),
]
GOOD, BAD = ["CAT", "DOG"], ["CAT", "DOGX"]
GAME = {"round": "1", "table": "7"}
REISSUES = ("wespa", "msa", None)
CONFIRMS = ("wespa", None)


def effect(hall, entry_id: int) -> outcomes.Outcome:
    ((_, found),) = outcomes.with_outcomes(hall.db, [journal.get(hall.db, entry_id)])
    return found


def charged(penalty: dict) -> bool:
    return bool(penalty["points_to_player"] or penalty["challenger_loses_turn"])


@pytest.mark.parametrize("book, lexicon, rule", CASES, ids=[f"{b}-{r}" for b, _, r in CASES])
def test_a_ruling_a_void_a_reissue_an_opinion_a_free_challenge_and_the_directors(
    rulebooks_hall, book, lexicon, rule
):
    hall = rulebooks_hall
    slug = f"{book or 'none'}-{rule}"
    kiosk = hall.event(slug, book, lexicon, rule)
    browser = hall.kiosk_browser(kiosk)

    def challenge(words, **extra) -> dict:
        answer = browser.post(
            "/api/v1/adjudications", json={"words": words, "challenger": "Ann", **GAME, **extra}
        )
        return answer

    # 1. Ann's first unsuccessful challenge costs what a first one does
    a1 = challenge(GOOD).get_json()
    first_cost = a1["penalty"]
    assert charged(first_cost) is (rule != "dingle")
    # 2. a placement challenge Bob made, dismissed by the director: no penalty, never counted
    director_decisions.decide_challenge(
        hall.db, slug, "placement", "dismissed", "the tiles were in one line", actor="td",
        station="td", challenger="Bob", player="Ann", **GAME,
    )  # fmt: skip
    # 3. the director grants Ann a free challenge in this game
    grant = director_decisions.grant_free_challenge(
        hall.db, slug, "Ann", "Bob recorded the score before the play", actor="td",
        station="td", **{"round_no": "1", "table": "7"},
    )  # fmt: skip
    # 4. her next unsuccessful challenge costs nothing (dingle: it would have cost the turn)
    a2 = challenge(GOOD).get_json()
    assert a2["penalty"].get("waived") is True and not charged(a2["penalty"])
    assert f"free challenge #{grant.id}" in a2["consequence"]
    # 5. a second opinion agrees: still free, citing the same grant
    second = second_opinion.give(
        hall.db, hall.store, a2["id"], GOOD, actor="alice", station="judge:alice"
    )
    assert not second.flagged
    assert effect(hall, a2["id"]).penalty.get("waived") is True
    # 6. the director rules the first challenge successful after all (3.10.13 where it applies)
    record_ruling(hall.db, a1["id"], "unacceptable", "DOG was DOC on the board", actor="td",
                  station="td", confirm_correction=book in CONFIRMS)  # fmt: skip
    assert effect(hall, a1["id"]).verdict == "UNACCEPTABLE"
    # 7. the second challenge was for another table: void, and the grant is free again
    voids.void(hall.db, a2["id"], "typed at the wrong table", actor="td", station="td")
    assert effect(hall, a2["id"]).verdict == outcomes.VOID
    # 8. a slip that did not match the board: reissued where the rulebook has it
    a3 = challenge(BAD).get_json()
    again = challenge(GOOD, replaces=a3["id"])
    if book in REISSUES:
        assert again.status_code == 201, again.get_json()
        a4 = again.get_json()
        assert effect(hall, a3["id"]).verdict == outcomes.VOID
    else:
        assert again.status_code == 409 and book in again.get_json()["error"]
        a4 = challenge(GOOD).get_json()
    if rule == "dingle":  # a1 ruled successful, a2 void: a4 is her first, free anyway
        assert "first unsuccessful challenge in this game" in a4["consequence"]
        assert "waived" not in a4["penalty"] and not charged(a4["penalty"])
    else:
        assert a4["penalty"].get("waived") is True  # the grant, freed by the void, pays for it
        assert f"free challenge #{grant.id}" in a4["consequence"]
    # 9. an exchange challenge Bob made against Ann, upheld: Ann's count does not move
    director_decisions.decide_challenge(
        hall.db, slug, "exchange", "upheld", "bag had 4 tiles", actor="td", station="td",
        challenger="Bob", player="Ann", **GAME,
    )  # fmt: skip
    # 10. dingle: her second would cost the turn, so the grant (kept) pays for it
    a5 = challenge(GOOD).get_json()
    if rule == "dingle":
        assert a5["penalty"].get("waived") is True
        assert f"free challenge #{grant.id}" in a5["consequence"]
        a5 = challenge(GOOD).get_json()  # her third: the grant is spent
        assert "3rd unsuccessful challenge in this game" in a5["consequence"]
        assert a5["penalty"]["challenger_loses_turn"] is True
    else:  # the grant is spent: it costs again, as her first did
        assert "waived" not in a5["penalty"] and a5["penalty"] == first_cost
    # everything as it stands, and the chain whole
    assert [effect(hall, e["id"]).verdict for e in (a1, a2, a4, a5)] == [
        "UNACCEPTABLE", outcomes.VOID, "ACCEPTABLE", "ACCEPTABLE",
    ]  # fmt: skip
    kinds = [e.kind for e in journal.entries(hall.db, slug)]
    assert kinds.count("placement") == 1 and kinds.count("exchange") == 1
    assert kinds.count("free-challenge") == 1
    assert journal.verify(hall.db).ok
