"""The players' figures under the sixth round's rules (issues 43 and 46), in sequence on one
TSH-linked game per rulebook, on the real lists.

After every step each player's figures (judging's player_figures, as the report and the season
give them) must be what is counted here by hand, and what a plain recount of `journal export
--format json`'s effective outcomes gives (support.export_recount): the export is the truth.

- WESPA under dingle: a free challenge given back by a ruling passes to Eve's next unsuccessful
  challenge, already recorded and referred to by no row; that challenge void as late, her next
  one takes the grant, the void is revoked and the grant goes back (the later one costs again).
- NSA X.G: a referral closed by the word judge's dictionary check, a contrary second and a third
  that decides two of three; a contrary second on another challenge and a third that agrees with
  the original; the director's review restoring the check's verdict (no verdict changed).
- NASPA 1.2: the final ruling is the first Director's, with the director's points (to the player
  whose play was challenged, never the challenger's penalty); an exchange's points
  (`director-challenge --points`); a ruling's points gone with a late void.
"""

from __future__ import annotations

import json
from pathlib import Path

from adjudicator.hall.director import director_decisions
from adjudicator.hall.tsh import links
from adjudicator.judging import game_totals, player_figures
from adjudicator.judging.corrections import second_opinion, voids, waivers
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.record.journal import journal
from adjudicator.record.journal.player_tallies import FIGURES

from support import export_recount, tsh_files
from support.record_event import figures
from support.rulebook_checks import as_person, row_id

GOOD, BAD = ["CAT", "DOG"], ["CAT", "DOGX"]
LONG = ["QWERTYUIOPS"]  # in no list: the 1998 OWL recipe refers it (NSA I.B)
TD = "td"


def one_game(hall, folder: Path, slug: str, book: str, lexicon: str, rule: str, names):
    """Tournament `slug`, linked to a TSH event of one division of two players (`names`, as
    TSH writes them) paired at table 1 in round 1; its kiosk."""
    event = tsh_files.make_event({"A": 2}, 1, 0, tables={"A": [1]}, names={"A": list(names)})
    source = tsh_files.write_tourney_js(folder / slug / "html" / "tourney.js", event)
    kiosk = hall.event(slug, book, lexicon, rule)
    links.link(hall.db, slug, str(source))
    assert tsh_files.seated(event, "A", 1, 1) == list(names)
    return kiosk


def check(hall, slug: str, expected: dict[str, dict[str, int]]) -> None:
    """Each player's figures are `expected` (by TSH's name, division A), and what the export's
    effective outcomes give counted afresh; over a season too."""
    shown = {}
    for found in player_figures.of_tournaments(hall.db, [slug]):
        assert found.division == "A", found
        shown[found.name] = found.figures
    assert shown == expected
    counted = export_recount.recount(export_recount.exported(hall.db, slug))
    assert {slot["name"]: {f: slot[f] for f in FIGURES} for slot in counted.values()} == expected
    season = {p.name: p.figures for p in player_figures.of_season(hall.db, [slug])}
    assert season == expected


def effective(hall, slug: str, entry_id: int) -> dict:
    """The row's effective outcome as `journal export --format json` gives it."""
    (row,) = [r for r in export_recount.exported(hall.db, slug) if r["id"] == entry_id]
    return row["effective"]


def reported(cli, slug: str) -> dict:
    out = cli("report", slug, "--format", "json")
    assert out.exit_code == 0, out.stderr
    return json.loads(out.stdout)


def test_wespa_dingle_a_grant_given_back_passes_on_voided_late_and_back(
    rulebooks_hall, rulebooks_cli, tmp_path
):
    hall, slug = rulebooks_hall, "wespa-figures"
    eve, ben = "Lee, Eve", "Moreau, Ben"
    kiosk = one_game(hall, tmp_path, slug, "wespa", "CSW24", "dingle", (eve, ben))

    def judge(challenger, words):
        return hall.challenge(kiosk, words, round="1", table="1", challenger=challenger)

    e1 = judge(eve, GOOD)  # dingle: her first unsuccessful challenge in the game is free
    assert "first unsuccessful challenge" in e1.consequence
    check(hall, slug, {eve: figures(challenges_made=1, challenges_lost=1),
                       ben: figures(plays_challenged=1, plays_stood=1)})  # fmt: skip
    grant = director_decisions.grant_free_challenge(
        hall.db, slug, "Eve Lee", "her opponent wrote the score before playing", actor=TD,
        station=TD, round_no="1", table="1",
    )  # fmt: skip
    assert grant.challenger == eve  # TSH's name
    e2 = judge(eve, GOOD)  # her second would cost the turn: the grant pays
    assert f"free challenge #{grant.id}" in e2.consequence
    e3 = judge(eve, GOOD)  # her third loses the turn
    assert "the challenger loses their turn" in e3.consequence
    assert judge(ben, BAD).verdict == "UNACCEPTABLE"  # Ben's comes off
    check(hall, slug, {
        eve: figures(challenges_made=3, challenges_lost=3, penalty_turns=1,
                     free_challenges_granted=1, free_challenges_used=1,
                     plays_challenged=1, plays_came_off=1),
        ben: figures(challenges_made=1, challenges_won=1, plays_challenged=3, plays_stood=3),
    })  # fmt: skip

    # e2 ruled successful: the grant is given back, and pays for e3 (no row refers to e3)
    record_ruling(hall.db, e2.id, "unacceptable", "DOG was DOGX on the board", actor=TD,
                  station=TD, confirm_correction=True)  # fmt: skip
    assert not journal.follow_ups(hall.db, e3.id)
    now = effective(hall, slug, e3.id)
    assert now["penalty"]["waived"] is True and now["penalty"]["challenger_loses_turn"] is False
    check(hall, slug, {
        eve: figures(challenges_made=3, challenges_won=1, challenges_lost=2,
                     free_challenges_granted=1, free_challenges_used=1, rulings_changed=1,
                     plays_challenged=1, plays_came_off=1),
        ben: figures(challenges_made=1, challenges_won=1, plays_challenged=3, plays_came_off=1,
                     plays_stood=2, rulings_changed=1),
    })  # fmt: skip

    # e3 void, late (WESPA 3.10.1(c)): the grant is open again, and Eve's next takes it
    voids.void(hall.db, e3.id, "after the next turn was accepted", actor=TD, station=TD,
               ground="late")  # fmt: skip
    e4 = judge(eve, GOOD)  # her second unsuccessful now (e1; e2 came off, e3 void)
    assert f"free challenge #{grant.id}" in e4.consequence
    check(hall, slug, {
        eve: figures(challenges_made=3, challenges_won=1, challenges_lost=2,
                     free_challenges_granted=1, free_challenges_used=1, rulings_changed=1,
                     voided=1, plays_challenged=1, plays_came_off=1),
        ben: figures(challenges_made=1, challenges_won=1, plays_challenged=3, plays_came_off=1,
                     plays_stood=2, rulings_changed=1, plays_voided=1),
    })  # fmt: skip

    # the void revoked: e3 holds the grant again; e4, which recorded using it, costs its turn
    # now (Eve's third unsuccessful), though no row refers to it
    voids.revoke(hall.db, e3.id, "the void was meant for another row", actor=TD, station=TD)
    assert not journal.follow_ups(hall.db, e4.id)
    assert effective(hall, slug, e3.id)["penalty"]["waived"] is True
    e4_now = effective(hall, slug, e4.id)["penalty"]
    assert e4_now["challenger_loses_turn"] is True and not e4_now.get("waived")
    before_waiver = {
        eve: figures(challenges_made=4, challenges_won=1, challenges_lost=3, penalty_turns=1,
                     free_challenges_granted=1, free_challenges_used=1, rulings_changed=1,
                     plays_challenged=1, plays_came_off=1),
        ben: figures(challenges_made=1, challenges_won=1, plays_challenged=4, plays_came_off=1,
                     plays_stood=3, rulings_changed=1),
    }  # fmt: skip
    check(hall, slug, before_waiver)

    # the director waives e4's penalty: a free challenge granted and used
    waivers.waive(hall.db, e4.id, "her opponent wrote the score first again", actor=TD,
                  station=TD)  # fmt: skip
    final = {**before_waiver, eve: {**before_waiver[eve], "penalty_turns": 0,
                                    "free_challenges_granted": 2,
                                    "free_challenges_used": 2}}  # fmt: skip
    check(hall, slug, final)
    shown = reported(rulebooks_cli, slug)
    assert {p["name"]: {f: p[f] for f in FIGURES} for p in shown["players"]} == final
    assert shown["totals"]["free_challenges_used"] == 2
    assert shown["totals"]["challenges_made"] == 5 and shown["totals"]["penalty_turns"] == 0


def test_nsa_x_g_a_referral_a_contrary_second_and_a_third(rulebooks_hall, tmp_path):
    hall, slug = rulebooks_hall, "nsa-figures"
    ann, bob = "Novak, Ann", "Okafor, Bob"
    kiosk = one_game(hall, tmp_path, slug, "nsa-1998", "OWL-NSA1998", "double", (ann, bob))

    def opinion(row, words, judge, **extra):
        return second_opinion.give(hall.db, hall.store, row, words, actor=judge,
                                   station=f"judge:{judge}", **extra)  # fmt: skip

    a1 = hall.challenge(kiosk, LONG, round="1", table="1", challenger=ann)
    assert a1.verdict == "REFER"
    check(hall, slug, {ann: figures(challenges_made=1, challenges_undecided=1),
                       bob: figures(plays_challenged=1, plays_undecided=1)})  # fmt: skip
    # the word judge's dictionary check closes the referral (NSA I.B): it decides, it changes
    # no verdict (a referral had none)
    assert opinion(a1.id, LONG, "judge-a", dictionary="acceptable").closes_referral
    checked = {ann: figures(challenges_made=1, challenges_lost=1, penalty_turns=1),
               bob: figures(plays_challenged=1, plays_stood=1)}  # fmt: skip
    check(hall, slug, checked)
    # a contrary second: flagged, it decides nothing yet
    assert opinion(a1.id, LONG, "judge-b", dictionary="unacceptable").flagged
    assert effective(hall, slug, a1.id)["pending"] is True
    check(hall, slug, checked)
    # the third decides, two of three (X.G): the play came off
    assert opinion(a1.id, LONG, "judge-c", dictionary="unacceptable").decides
    third = effective(hall, slug, a1.id)
    assert (third["verdict"], third["pending"]) == ("UNACCEPTABLE", False)
    check(hall, slug, {ann: figures(challenges_made=1, challenges_won=1, opinions_changed=1),
                       bob: figures(plays_challenged=1, plays_came_off=1,
                                    opinions_changed=1)})  # fmt: skip

    # Bob's challenge: a contrary second, then a third that agrees with the original
    b1 = hall.challenge(kiosk, GOOD, round="1", table="1", challenger=bob)
    assert opinion(b1.id, BAD, "judge-a").flagged
    assert opinion(b1.id, GOOD, "judge-b").decides
    assert effective(hall, slug, b1.id)["verdict"] == "ACCEPTABLE"
    check(hall, slug, {
        ann: figures(challenges_made=1, challenges_won=1, opinions_changed=1,
                     plays_challenged=1, plays_stood=1),
        bob: figures(challenges_made=1, challenges_lost=1, penalty_turns=1,
                     plays_challenged=1, plays_came_off=1, opinions_changed=1),
    })  # fmt: skip

    # the director reviews a1 (X.G) and rules as the dictionary check did: nothing changed
    record_ruling(hall.db, a1.id, "acceptable", "the word is in MW10 after all", actor=TD,
                  station=TD, words=LONG)  # fmt: skip
    ruled = {
        ann: figures(challenges_made=1, challenges_lost=1, penalty_turns=1,
                     plays_challenged=1, plays_stood=1),
        bob: figures(challenges_made=1, challenges_lost=1, penalty_turns=1,
                     plays_challenged=1, plays_stood=1),
    }  # fmt: skip
    check(hall, slug, ruled)
    # Bob's challenge was late (NSA X.A): void
    voids.void(hall.db, b1.id, "after the 20 seconds", actor=TD, station=TD, ground="late")
    check(hall, slug, {ann: {**ruled[ann], "plays_challenged": 0, "plays_stood": 0,
                             "plays_voided": 1},
                       bob: figures(voided=1, plays_challenged=1, plays_stood=1)})  # fmt: skip


def test_naspa_1_2_the_first_directors_final_ruling_and_the_directors_points(
    rulebooks_hall, rulebooks_cli, monkeypatch, tmp_path
):
    hall, cli, slug = rulebooks_hall, rulebooks_cli, "naspa-figures"
    cy, dee = "Park, Cy", "Quist, Dee"
    kiosk = one_game(hall, tmp_path, slug, "naspa", "NWL2023", "5-per-word", (cy, dee))
    game = ("--round", "1", "--table", "1")

    def person(who, *args):
        out = as_person(monkeypatch, cli, who, *args)
        assert out.exit_code in (0, 1), out.stderr  # a verdict (1: UNACCEPTABLE)
        return out

    c1 = row_id(person("d1", "judge", "--tournament", slug, *game, "--challenger", cy, *BAD).stdout)
    check(hall, slug, {cy: figures(challenges_made=1, challenges_won=1),
                       dee: figures(plays_challenged=1, plays_came_off=1)})  # fmt: skip
    person("d2", "second-opinion", str(c1), *GOOD)  # the rulings differ: flagged
    third = person("d3", "second-opinion", str(c1), *BAD)
    assert "the case still waits for the director's ruling (NASPA 1.2)" in third.stdout
    check(hall, slug, {cy: figures(challenges_made=1, challenges_won=1),
                       dee: figures(plays_challenged=1, plays_came_off=1)})  # fmt: skip
    # the final ruling is d1's (whose decision was appealed), with 12 points to Dee
    ruled = person("d1", "ruling", str(c1), "--verdict", "acceptable", "--reason",
                   "the slip said CAT DOG", "--words", *GOOD, "--points", "12")  # fmt: skip
    assert "by cli:d1" in ruled.stdout
    penalty = effective(hall, slug, c1)["penalty"]
    assert penalty["points_to_player"] == 10 + 12  # 5 a word, and the director's
    check(hall, slug, {
        cy: figures(challenges_made=1, challenges_lost=1, penalty_points=10, rulings_changed=1),
        dee: figures(plays_challenged=1, plays_stood=1, rulings_changed=1, director_points=12),
    })  # fmt: skip

    # Dee's challenge at the kiosk: 5 points to Cy; the exchange the director upholds: -30
    d1 = hall.challenge(kiosk, ["ZA"], round="1", table="1", challenger=dee)
    exchange = person("td", "director-challenge", "--tournament", slug, "--kind", "exchange",
                      "--outcome", "upheld", *game, "--challenger", cy, "--player", dee,
                      "--reason", "3 tiles in the bag, Cy had played",
                      "--points", "-30")  # fmt: skip
    assert exchange.exit_code == 0
    person("td", "director-challenge", "--tournament", slug, "--kind", "placement",
           "--outcome", "dismissed", *game, "--challenger", dee, "--player", cy,
           "--reason", "the play covered the centre")  # fmt: skip
    with_exchange = {
        cy: figures(challenges_made=1, challenges_lost=1, penalty_points=10, rulings_changed=1,
                    plays_challenged=1, plays_stood=1),
        dee: figures(challenges_made=1, challenges_lost=1, penalty_points=5,
                     plays_challenged=1, plays_stood=1, rulings_changed=1,
                     director_points=12 - 30),
    }  # fmt: skip
    check(hall, slug, with_exchange)
    # Dee's challenge ruled successful, with 5 points off Cy: not Dee's penalty
    record_ruling(hall.db, d1.id, "unacceptable", "ZA was ZAS on the board", actor=TD,
                  station=TD, words=["ZAS"], points=-5)  # fmt: skip
    assert effective(hall, slug, d1.id)["penalty"]["points_to_player"] == -5
    ruled_twice = {
        cy: {**with_exchange[cy], "plays_stood": 0, "plays_came_off": 1, "rulings_changed": 2,
             "director_points": -5},
        dee: {**with_exchange[dee], "challenges_lost": 0, "challenges_won": 1,
              "penalty_points": 0, "rulings_changed": 2},
    }  # fmt: skip
    check(hall, slug, ruled_twice)
    totals = {t.name: t for t in game_totals.totals(hall.db, slug, "1", "1")}
    assert totals[cy].director_points == -5 and totals[dee].director_points == 12 - 30
    # ... and void as late (NASPA 4.6 and 7.3): its points go with it
    voids.void(hall.db, d1.id, "after the 15 seconds", actor=TD, station=TD, ground="late",
               over_ruling=True)  # fmt: skip
    voided = {
        cy: {**ruled_twice[cy], "plays_challenged": 0, "plays_came_off": 0, "plays_voided": 1,
             "rulings_changed": 1, "director_points": 0},
        dee: {**ruled_twice[dee], "challenges_made": 0, "challenges_won": 0, "voided": 1,
              "rulings_changed": 1},
    }  # fmt: skip
    check(hall, slug, voided)
    totals = {t.name: t for t in game_totals.totals(hall.db, slug, "1", "1")}
    assert cy not in totals and totals[dee].director_points == 12 - 30  # Cy: nothing now
    shown = reported(cli, slug)
    assert {p["name"]: {f: p[f] for f in FIGURES} for p in shown["players"]} == voided
    assert shown["totals"]["director_points"] == 12 - 30
    assert shown["totals"]["penalty_points"] == 10
