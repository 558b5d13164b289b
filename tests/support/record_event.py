"""Issue 46's event, made through the program's own paths on the real lists: the players'
record tests and the report's browser tests judge it.

`spring` (the wespa rulebook, CSW24, 5 points a word) is linked to TSH's tourney.js: divisions A
and B of four players, tables 1-2 and 3-4, three rounds paired. Its challenges take every kind of
correction in turn: a second opinion that differs and the director's ruling, one that agrees, a
void, a reissue (WESPA 3.10.12), the director's waiver, a free challenge granted then used, a
void revoked, a ruling that turns a won challenge into a lost one, a flagged opinion still
waiting for the director when the event closes (`c12`, ruled after the close by `rule_c12`),
and a challenge naming no challenger.

`club` (nsa-1998 off its rulebook, OWL-NSA1998, dingle) is not linked: names as typed, a void that
recounts the penalties after it in the game, and a third opinion that decides two of three.
The first days are 2025-04-12 (spring) and 2025-05-17 (club).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from adjudicator.hall import tournaments
from adjudicator.hall.director import director_decisions
from adjudicator.hall.tsh import links
from adjudicator.judging.corrections import second_opinion, voids, waivers
from adjudicator.judging.corrections.final_ruling import record_ruling

from support import tsh_files
from support.director import JUDGE, OTHER_JUDGE

SPRING, CLUB = "spring", "club"
TD = "td"  # the director, as the rows name them


@dataclass
class RecordEvent:
    hall: object  # support.rulebook_lexicons.RulebookHall
    html: Path  # TSH's html folder (tourney.js is in it)
    ids: dict[str, int]  # each challenge by its name in the scenario (c1 ... c13, d1 ... d4)
    spring: object  # the spring kiosk's enrolment (kiosks.Enrolment)

    def rule_c12(self):
        """The director rules on c12 (flagged, waiting): the play comes off."""
        return record_ruling(
            self.hall.db, self.ids["c12"], "unacceptable", "the slip said ZAQ", actor=TD,
            station=TD, confirm_correction=True, words=["ZAQ"],
        )  # fmt: skip


def seated(event, round_number: int, table: int) -> list[str]:
    """The two names at a table in a round, first player first (tables 1-2: A, 3-4: B)."""
    division, board = ("A", table) if table <= 2 else ("B", table - 2)
    return tsh_files.seated(event, division, round_number, board)


def make(hall, folder: Path) -> RecordEvent:
    """Both events, judged and corrected (see the module's docstring)."""
    event = tsh_files.make_event({"A": 4, "B": 4}, 3, 0, tables={"A": [1, 2], "B": [3, 4]})
    source = tsh_files.write_tourney_js(folder / "event" / "html" / "tourney.js", event)
    spring = hall.event(SPRING, "wespa", "CSW24", "5-per-word")
    tournaments.update(hall.db, hall.store, SPRING, event_date="2025-04-12", title="Spring Open")
    links.link(hall.db, SPRING, str(source))
    db, store = hall.db, hall.store
    ids: dict[str, int] = {}

    def judge(name, round_number, table, challenger, words, **extra):
        entry = hall.challenge(
            spring, words, round=str(round_number), table=str(table), challenger=challenger,
            **extra,
        )  # fmt: skip
        ids[name] = entry.id
        return entry

    def opinion(name, words, judge_name=JUDGE, confirm=True):  # WESPA 3.10.13's, at spring
        return second_opinion.give(
            db, store, ids[name], words, actor=judge_name, station=f"judges-{judge_name}",
            confirm_correction=confirm,
        )  # fmt: skip

    def rule(name, verdict, reason, **extra):
        return record_ruling(
            db, ids[name], verdict, reason, actor=TD, station=TD, confirm_correction=True, **extra
        )

    # Round 1. Table 1: Ann (Lee, Ann) and Dev; 2: Ben and Cleo; 3: Eve and Hal; 4: Finn, Gia.
    judge("c1", 1, 1, "Lee, Ann", ["CAT", "DOG"])  # stands: Ann loses 10
    judge("c2", 1, 1, "Okafor, Dev", ["CATX"])  # comes off
    judge("c3", 1, 2, "Moreau, Ben", ["QI", "ZA"])  # stands (10), then:
    opinion("c3", ["QI", "ZAQ"])  # differs: flagged for the director
    rule("c3", "unacceptable", "the slip said ZAQ", words=["QI", "ZAQ"])  # the play came off
    judge("c4", 1, 3, "Park, Eve", ["ZA"])  # stands: 5
    opinion("c4", ["ZA"])  # agrees: final, nothing changes
    judge("c5", 1, 4, "Quist, Finn", ["DOGX"])  # comes off, then void:
    voids.void(db, ids["c5"], "typed at the wrong table", actor=TD, station=TD)
    # Round 2. Table 1: Cleo and Ann; 2: Ben and Dev; 3: Gia and Eve; 4: Finn and Hal.
    judge("c6", 2, 1, "Novak, Cleo", ["ZAQ"])  # the slip did not match the board:
    judge("c7", 2, 1, "Novak, Cleo", ["ZA"], replaces=ids["c6"])  # reissued: stands, 5
    judge("c8", 2, 2, "Moreau, Ben", ["QI"])  # stands: 5, then waived
    waivers.waive(db, ids["c8"], "the director's free challenge", actor=TD, station=TD)
    director_decisions.grant_free_challenge(
        db, SPRING, "Gia Rossi", "opponent wrote the score first", actor=TD, station=TD
    )
    judge("c9", 2, 3, "Rossi, Gia", ["JO"])  # stands: the grant makes it free
    judge("c10", 2, 4, "Silva, Hal", ["XI"])  # stands: 5; void, then the void revoked
    voids.void(db, ids["c10"], "voided by mistake", actor=TD, station=TD)
    voids.revoke(db, ids["c10"], "the void was meant for another row", actor=TD, station=TD)
    # Round 3. Table 1: Ann and Ben; 2: Cleo and Dev; 3: Eve and Finn; 4: Gia and Hal.
    judge("c11", 3, 1, "Moreau, Ben", ["CATZ"])  # comes off; ruled acceptable: stands, 5
    rule("c11", "acceptable", "the board read CAT", words=["CAT"])
    judge("c12", 3, 3, "Quist, Finn", ["ZA"])  # stands: 5; a differing opinion waits
    opinion("c12", ["ZAQ"])
    judge("c13", 3, 2, None, ["QI"])  # no challenger named: stands, 5, counted for no one

    club = hall.event(CLUB, "nsa-1998", "OWL-NSA1998", "dingle", off="the club's own penalty")
    tournaments.update(hall.db, hall.store, CLUB, event_date="2025-05-17", title="Club night")

    def club_judge(name, challenger, player, words):
        entry = hall.challenge(
            club, words, round="1", table="1", challenger=challenger, player=player
        )
        ids[name] = entry.id

    club_judge("d1", "Ann Lee", "Zed Zane", ["AA"])  # dingle: the first is free
    club_judge("d2", "Ann Lee", "Zed Zane", ["CAT"])  # the second: loses the turn
    club_judge("d3", "Ann Lee", "Zed Zane", ["DOG"])  # the third: loses the turn
    voids.void(db, ids["d1"], "entered by mistake", actor=TD, station=TD)  # recounted: 1 turn
    club_judge("d4", "Zed Zane", "Ann Lee", ["CAT"])  # stands (Zed's first: free), then:
    opinion("d4", ["CATX"], confirm=False)  # a contrary second opinion, flagged (NSA X.G)
    opinion("d4", ["CATX"], OTHER_JUDGE, False)  # a third decides, two of three: came off
    return RecordEvent(hall, source.parent, ids, spring)


def figures(**given: int) -> dict[str, int]:
    """A player's figures: those given, every other one zero."""
    from adjudicator.record.journal.player_tallies import FIGURES

    unknown = set(given) - set(FIGURES)
    assert not unknown, unknown
    return {name: given.get(name, 0) for name in FIGURES}
