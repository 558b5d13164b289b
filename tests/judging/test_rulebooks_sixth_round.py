"""Issue 43, items 5 to 10: each rulebook's clause for what the director records, in sequence on
one game, citing its own text and nothing of another's (../shared/seeds).

- Item 5: a free challenge given back (its challenge ruled successful, or void) pays for its
  player's next unsuccessful challenge, even one already recorded (Eve's #4 under dingle at
  WESPA), and the flags say the penalty changed.
- Item 6: a reissued final play (`judge --replaces N`, #N made with `--final-play`) keeps it.
- Item 7: NASPA 6.2's improper look-up is one player's: two players 3 s apart are not flagged.
- Item 8: `ruling` and `director-challenge` take `--points N`: the row's
  `penalty.points_to_player`, kept through recounts, in the game's totals and the CSV export
  (NASPA 4.11(a)'s 30; school rule 8, with rule 36).
- Item 9: `void ID --ground late`, citing the event's own time to challenge (school rule 11, NSA
  X.A, MSA 12(i), WESPA 3.10.1(c), NASPA 4.6 and 7.3), the hall's practice with none.
- Item 10: the NSA waiver cites XII (Guideline 2 for an undesignated blank), never VI.C; under
  NASPA a list off the rulebook is not also "as the naspa rulebook allows". (WESPA 3.10.13's (a)
  and (b): test_opinion_chains_in_sequence.py.)
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from adjudicator.hall import kiosks
from adjudicator.hall.director import director_decisions
from adjudicator.judging import director_flags, game_totals, grant_uses
from adjudicator.judging.corrections import opinion_chain, voids
from adjudicator.judging.corrections.correction_window import CONFIRM_QUOTE
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.judging.director_challenges import RULINGS
from adjudicator.judging.rulebooks import RULEBOOKS
from adjudicator.record.journal import journal

from support.paths import ROOT, present
from support.rulebook_checks import as_person, cites_only, effect, refused, row_id

SEEDS = ROOT.parent / "shared" / "seeds"
SEED = {  # DOMAIN.md's table
    "nsa-1998": "000_83eb02f5f0adf047.txt",
    "school-2011": "001_9900bad8fb01aca0.txt",
    "msa": "002_9f704f41d9ce5e42.txt",
    "wespa": "003_dacb6356a4909904.txt",
    "naspa": "004_d4ff4b85aa1b9219.txt",
}
EVENTS = {
    "naspa": ("NWL2023", "double"),
    "wespa": ("CSW24", "5-per-word"),
    "nsa-1998": ("OWL-NSA1998", "double"),
    "school-2011": ("SCHOOL-OSPD", "double"),
    "msa": ("MSA-UNION", "5-per-word"),
    None: ("NWL2023", "double"),
}
LATE = {
    "naspa": 'NASPA 4.6 and 7.3: "Your opponent has 15 seconds to hold or challenge the play"; '
    '"Give your opponent 15 seconds to hold or challenge"',
    "wespa": 'WESPA 3.10.1(c): "Accepting a turn waives the right to challenge that turn"',
    "nsa-1998": 'NSA X.A: the opponent "has 20 seconds to decide to challenge or hold the play"',
    "msa": 'MSA 12(i): "HOLD" may be called "within 10 seconds" of the opponent\'s end of turn',
    "school-2011": 'school rule 11: "After one minute, if a challenge has not been issued and '
    "the clock stopped, the hold is automatically withdrawn, and the play can no longer be "
    'challenged"',
    None: "the hall's practice: no rulebook is named",
}
POINTS = {  # the clause a ruling's points cite; an exchange's where its rulebook names them
    "naspa": ('NASPA 1.2: "If a situation isn\'t covered by the rules, the Director decides '
              'what is fair"', 'NASPA 4.11(a): "If your opponent has already played and '
              'restarted your clock, subtract 30 from your score"'),
    "wespa": ('WESPA 6.1.2(e): "In dealing with improper conduct, the Tournament Director has '
              'a wide discretion"',) * 2,
    "nsa-1998": ('NSA XII: the Director makes "reasonable decisions pertaining to any '
                 'situations not specifically described"',) * 2,
    "msa": ('MSA 20: "All matters in doubt or dispute shall be referred to the Tournament '
            'Director whose decision is FINAL"',) * 2,
    "school-2011": ('school rule 36: "Penalty points may be assessed by the Director for the '
                    'violation of these rules"', 'school rules 8 and 36: "a penalty '
                    'applies"; "Penalty points may be assessed by the Director for the '
                    'violation of these rules"'),
    None: ("", ""),
}  # fmt: skip
GOOD, BAD = ["CAT", "DOG"], ["CAT", "DOGX"]
GAME = ("--round", "1", "--table", "3")


def plain(text: str) -> str:
    """Text compared with a seed: list bullets and quotation marks of every kind (the seeds
    mix ``, ' and ’) left out, spaces collapsed."""
    text = re.sub(r"(?m)^\s*- ", "", text)
    text = re.sub(r"``|''|[\"'’‘“”`]", "", text)
    return " ".join(text.split())


def quoted(text: str) -> list[str]:
    """Every part of a double-quoted passage in `text` (an ellipsis splits a passage)."""
    parts = []
    for passage in re.findall(r'"([^"]*)"', text):
        parts += [p.strip(" .") for p in passage.split("...") if len(p.strip(" .")) > 3]
    return parts


@pytest.mark.parametrize("book", list(SEED))
def test_every_clause_quoted_is_in_the_rulebooks_own_text(book):
    """What the sixth round cites is quoted exactly from the rulebook it names."""
    seed = plain(present(SEEDS / SEED[book]).read_text(encoding="utf-8"))
    rules = RULEBOOKS[book]
    cited = [rules.late_clause, rules.waiver_clause, rules.blank_waiver_clause,
             rules.points_clause, *(d.points_clause for d in RULINGS[book].values())]  # fmt: skip
    chain = opinion_chain.describe(rules)
    cited += [chain.next_opinion, chain.decides, chain.rules_last]
    if book == "wespa":
        cited.append(f'"{CONFIRM_QUOTE}"')
    found = [part for text in cited for part in quoted(text)]
    assert found, book
    for part in found:
        assert plain(part) in seed, f"{book}: {part!r}"


@pytest.mark.parametrize("book", list(EVENTS), ids=[str(b) for b in EVENTS])
def test_one_game_late_points_waivers_look_ups_and_a_final_play(
    rulebooks_hall, rulebooks_cli, monkeypatch, book
):
    hall, cli = rulebooks_hall, rulebooks_cli
    lexicon, rule = EVENTS[book]
    slug = f"{book or 'none'}-sixth"
    hall.event(slug, book, lexicon, rule)
    monkeypatch.setenv("ADJUDICATOR_SEPARATE_LOOKUP_SECONDS", "600")
    table = kiosks.add(hall.db, f"table-3-{slug}", slug, table="3")  # the game's kiosk

    def at_kiosk(words, challenger: str, **extra):
        return hall.challenge(table, words, round="1", challenger=challenger, **extra)

    # item 7: Ann challenges Bob's play, then Bob challenges Ann's, 3 s apart: two players
    ann = at_kiosk(GOOD, "Ann", player="Bob")
    bob = at_kiosk(GOOD, "Bob", player="Ann")
    assert ann.flag is None and bob.flag is None
    bob_again = at_kiosk(["ZA"], "bob", player="Ann")  # the same player: 6.2, under NASPA only
    assert (bob_again.flag == "separate-lookup") is (book == "naspa")
    # item 9: Bob's first challenge came after the time to challenge: void, late
    out = cli("void", str(bob.id), "--ground", "late", "--reason", "after the 15 s")
    assert out.exit_code == 0, out.stderr
    said = cites_only(book, out.stdout)
    assert f"Ground: late: made after the time to challenge had run out ({LATE[book]})" in said
    assert "the play stands and the challenge counts for nothing" in said
    late = effect(hall, bob.id)
    assert late.verdict == "VOID" and not late.penalty["challenger_loses_turn"]
    # item 8: the director's points, on a ruling of Ann's challenge and on an exchange
    clause, exchange_clause = POINTS[book]
    ruled = cli("ruling", str(ann.id), "--verdict", "acceptable", "--reason", "looked again",
                "--points", "-7")  # fmt: skip
    assert ruled.exit_code == 0, ruled.stderr
    cited = f" ({clause})" if clause else ""
    assert f"The director takes 7 points off the player's score{cited}." in cites_only(
        book, ruled.stdout
    )
    decided = as_person(monkeypatch, cli, "td", "director-challenge", "--tournament", slug,
                        "--kind", "exchange", "--outcome", "upheld", *GAME, "--challenger",
                        "Ann", "--player", "Bob", "--reason", "3 tiles in the bag",
                        "--points", "-30", "--json")  # fmt: skip
    assert decided.exit_code == 0, decided.stderr
    exchange = json.loads(decided.stdout)
    assert exchange["penalty"]["points_to_player"] == -30
    cited = f" ({exchange_clause})" if exchange_clause else ""
    assert f"The director takes 30 points off the player's score{cited}." in cites_only(
        book, exchange["consequence"]
    )
    # bad points: exit 2, nothing recorded
    newest = journal.newest_id(hall.db)
    for bad in ("0", "thirty", "-501", "1.5"):
        refused(cli("ruling", str(bob_again.id), "--verdict", "acceptable", "--reason", "x y z",
                    "--points", bad), "--points")  # fmt: skip
    assert journal.newest_id(hall.db) == newest
    # the game's totals, as it now stands: Bob's play challenged (the rule's points and the
    # director's), Bob's exchange (-30); Ann lost nothing; Bob's late challenge counts nothing
    rule_points = effect(hall, ann.id).penalty["points_to_player"]
    totals = {t.name: t for t in game_totals.totals(hall.db, slug, "1", "3")}
    assert totals["Bob"].director_points == -37
    assert totals["Bob"].points == rule_points - 30
    assert effect(hall, ann.id).points == -7
    # ... and in the CSV export: the rows' penalty and the challenge's effective penalty
    rows = {
        int(r["id"]): r
        for r in csv.DictReader(io.StringIO(cli("journal", "export", "--tournament", slug).stdout))
    }
    assert json.loads(rows[row_id(ruled.stdout, "Final ruling #")]["penalty"])[
        "points_to_player"
    ] == rule_points  # fmt: skip
    assert json.loads(rows[ann.id]["effective_penalty"])["points_to_player"] == rule_points
    assert json.loads(rows[exchange["id"]]["penalty"])["points_to_player"] == -30
    # item 10: the waiver cites the event's own clause; NSA's is XII, never VI.C
    waived = cli("ruling", str(bob_again.id), "--waive-penalty", "--reason", "score written first")
    assert waived.exit_code == 0, waived.stderr
    cites_only(book, waived.stdout)
    if book == "nsa-1998":
        assert '(NSA XII: the Director makes "reasonable decisions' in waived.stdout
        assert "VI.C" not in waived.stdout
    blank = cli("ruling", str(ann.id), "--waive-penalty", "--undesignated-blank", "--reason",
                "the blank was never designated")  # fmt: skip
    if book == "nsa-1998":
        assert blank.exit_code == 0, blank.stderr
        guideline = (
            '(NSA Guideline 2: for an undesignated blank, "the Director shall have the power to '
            'overrule the penalty for this particular challenge")'
        )
        assert guideline in blank.stdout
    else:
        refused(blank, "is NSA Guideline 2's", "not under the nsa-1998 rulebook")
    # item 6: a final play's slip reissued keeps its final play, where reissues exist
    final = as_person(monkeypatch, cli, "td", "judge", "--tournament", slug, *GAME,
                      "--challenger", "Ann", "--final-play", *BAD)  # fmt: skip
    assert final.exit_code == 1, final.stderr
    first = row_id(final.stdout)
    again = as_person(monkeypatch, cli, "td", "judge", "--tournament", slug, *GAME,
                      "--challenger", "Ann", "--replaces", str(first), *GOOD)  # fmt: skip
    if book in ("wespa", "msa", None):
        assert again.exit_code == 0, again.stderr
        reissue = journal.get(hall.db, row_id(again.stdout))
        assert reissue.refers_to == first and reissue.detail("final_play") is True
        assert "loses their turn" not in reissue.consequence
        assert "keeps the turn" not in reissue.consequence
    else:
        refused(again, f"cannot be reissued under the {book} rulebook")
    assert journal.verify(hall.db).ok


def test_eves_grant_given_back_pays_for_her_next_challenge_under_dingle_at_wespa(
    rulebooks_hall, rulebooks_cli
):
    """The issue's own sequence: Eve's grant paid for her #3; #3 is ruled successful; her #4,
    already recorded, "loses their turn" no more, and the flags say so; her #5 pays again."""
    hall, cli = rulebooks_hall, rulebooks_cli
    kiosk = hall.event("wespa-dingle", "wespa", "CSW24", "dingle")
    game = {"round": "4", "table": "11", "challenger": "Eve"}
    first = hall.challenge(kiosk, GOOD, **game)  # her first: free under dingle
    assert "first unsuccessful challenge" in first.consequence
    grant = director_decisions.grant_free_challenge(
        hall.db, "wespa-dingle", "Eve", "her opponent wrote the score before playing",
        actor="td", station="td", round_no="4", table="11",
    )  # fmt: skip
    third = hall.challenge(kiosk, GOOD, **game)
    assert f"free challenge #{grant.id}" in third.consequence
    fourth = hall.challenge(kiosk, GOOD, **game)
    assert "the challenger loses their turn" in fourth.consequence
    assert not grant_uses.open_grants(hall.db, "wespa-dingle")
    # #3 ruled successful (WESPA 3.10.13: confirmed, the table played on)
    record_ruling(hall.db, third.id, "unacceptable", "DOG was DOGX on the board", actor="td",
                  station="td", confirm_correction=True)  # fmt: skip
    now = effect(hall, fourth.id)
    assert now.penalty.get("waived") is True and not now.penalty["challenger_loses_turn"]
    assert f"free challenge #{grant.id}" in now.consequence and "WESPA 6.1.2(e)" in now.consequence
    assert now.shown_penalty["challenger_loses_turn"] is True
    changes = {c.challenge.id: c for c in director_flags.penalty_changes(hall.db)}
    assert fourth.id in changes and changes[fourth.id].new.get("waived") is True
    flags = json.loads(cli("flags", "--json").stdout)
    assert any(f["flag"] == "penalty-changed" and f["id"] == fourth.id for f in flags)
    # the grant pays for #4 now: it is not open, and Eve's next costs her turn
    assert not grant_uses.open_grants(hall.db, "wespa-dingle")
    assert "not yet used" not in cli("tournament", "show", "wespa-dingle").stdout
    fifth = hall.challenge(kiosk, GOOD, **game)
    assert "the challenger loses their turn" in fifth.consequence
    # #4 void as late: the grant passes on again, to #5
    voids.void(hall.db, fourth.id, "after the hold ran out", actor="td", station="td",
               ground="late")  # fmt: skip
    assert effect(hall, fifth.id).penalty.get("waived") is True
    assert journal.verify(hall.db).ok


@pytest.mark.parametrize("book", ["nsa-1998", "naspa", "msa", None], ids=str)
def test_a_grant_given_back_by_a_void_or_an_opinion_passes_on(rulebooks_hall, book):
    hall = rulebooks_hall
    lexicon, rule = EVENTS[book]
    slug = f"{book or 'none'}-passes"
    kiosk = hall.event(slug, book, lexicon, rule)
    game = {"round": "2", "table": "6", "challenger": "Ann"}
    grant = director_decisions.grant_free_challenge(
        hall.db, slug, "Ann", "score written before the play", actor="td", station="td",
        round_no="2", table="6",
    )  # fmt: skip
    used = hall.challenge(kiosk, GOOD, **game)
    later = hall.challenge(kiosk, GOOD, **game)
    assert f"#{grant.id}" in used.consequence and f"#{grant.id}" not in later.consequence
    voids.void(hall.db, used.id, "typed at the wrong kiosk", actor="td", station="td")
    passed = effect(hall, later.id)
    assert passed.penalty.get("waived") is True and passed.penalty_changed
    cites_only(book, passed.consequence)
    if book == "nsa-1998":
        assert "(NSA VI.C)" in passed.consequence
    # Bob's challenge in the same game is never Ann's grant's
    bob = hall.challenge(kiosk, GOOD, round="2", table="6", challenger="Bob")
    assert f"#{grant.id}" not in bob.consequence and not effect(hall, bob.id).penalty.get("waived")


def test_naspa_an_edition_off_the_rulebook_is_not_also_as_the_rulebook_allows(
    rulebooks_hall, rulebooks_cli
):
    cli = rulebooks_cli
    made = cli("tournament", "create", "naspa-twl", "--lexicon", "TWL06", "--rule", "double",
               "--rulebook", "naspa", "--date", "2026-03-01", "--off-rulebook",
               "the club plays TWL06 on purpose")  # fmt: skip
    assert made.exit_code == 0, made.stderr
    shown = cli("tournament", "show", "naspa-twl").stdout
    assert "off the rulebook: the club plays TWL06 on purpose" in shown
    assert "as the naspa rulebook allows" not in shown
    allowed = cli("tournament", "create", "naspa-nwl", "--lexicon", "NWL2023", "--rule",
                  "double", "--rulebook", "naspa", "--date", "2026-03-01")  # fmt: skip
    assert allowed.exit_code == 0, allowed.stderr
    shown = cli("tournament", "show", "naspa-nwl").stdout
    assert "NWL2023, as the naspa rulebook allows" in shown and "off the rulebook" not in shown


def test_the_directors_points_on_the_pages_and_the_games_totals(rulebooks_hall):
    """Item 8 on the director's pages: the decisions page's form and the flags page's ruling
    form take the points; the journal page filtered to the game shows its totals."""
    from support.director import press

    hall = rulebooks_hall
    kiosk = hall.event("naspa-pages", "naspa", "NWL2023", "5-per-word")
    row = hall.challenge(kiosk, GOOD, round="2", table="8", challenger="Ann", player="Bob")
    director = hall.director()
    page = press(director, "/director/decisions", "/director/decisions/director-challenge",
                 {"tournament": "naspa-pages", "kind": "exchange", "outcome": "upheld",
                  "table": "8", "round": "2", "challenger": "Ann", "player": "Bob",
                  "reason": "3 tiles in the bag, Ann had played", "points": "-30"})  # fmt: skip
    assert "The director takes 30 points off the player&#39;s score (NASPA 4.11(a)" in page
    exchange = journal.get(hall.db, journal.newest_id(hall.db))
    assert exchange.penalty_numbers()["points_to_player"] == -30
    page = press(director, "/director/flags", "/director/ruling",
                 {"tournament": "naspa-pages", "id": str(row.id), "verdict": "ACCEPTABLE",
                  "reason": "looked again", "points": "12"})  # fmt: skip
    assert "The director adds 12 points to the player&#39;s score (NASPA 1.2" in page
    newest = journal.newest_id(hall.db)
    refused = press(director, "/director/flags", "/director/ruling",
                    {"tournament": "naspa-pages", "id": str(row.id), "verdict": "",
                     "waive_penalty": "1", "reason": "no verdict", "points": "5"})  # fmt: skip
    assert "The director&#39;s points go with a ruling on the verdict" in refused
    assert journal.newest_id(hall.db) == newest  # nothing recorded
    journal_page = director.get(
        "/director/journal?tournament=naspa-pages&round=2&table=8"
    ).get_data(as_text=True)
    assert 'id="game-totals"' in journal_page
    bob = re.search(r'<tr data-player="Bob" data-points="(-?\d+)">', journal_page)
    assert bob and int(bob.group(1)) == 10 + 12 - 30  # 5 points x 2 words, +12, -30
    assert 'id="game-totals"' not in director.get(
        "/director/journal?tournament=naspa-pages"
    ).get_data(as_text=True)
