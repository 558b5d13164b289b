"""Issue 46: every player's challenge record, on a TSH-linked event of two divisions and three
rounds, through every kind of correction in turn (support.record_event), on the real lists.

Each figure is counted here by hand from the scenario, and must be what `adjudicator report`
(JSON and CSV), the director's report page and the season give; each follows the corrections
exactly as the game does. The event then closes: nothing new is judged for it (kiosk 409, CLI
exit 2), the opinion still waiting is ruled and the figures follow, and only now may the report
be published (into TSH's html folder) and name the words not in the lexicon.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from adjudicator.hall import event_close
from adjudicator.judging import player_figures
from adjudicator.judging.corrections import second_opinion
from adjudicator.record.journal import player_tallies

from support import record_event
from support.director import JUDGE
from support.record_event import CLUB, SPRING, figures

ANN, BEN, CLEO, DEV = "Lee, Ann", "Moreau, Ben", "Novak, Cleo", "Okafor, Dev"
EVE, FINN, GIA, HAL = "Park, Eve", "Quist, Finn", "Rossi, Gia", "Silva, Hal"

# Counted by hand from support/record_event.py, before the director rules on c12.
SPRING_FIGURES = {
    (ANN, "A"): figures(challenges_made=1, challenges_lost=1, penalty_points=10,
                        plays_challenged=3, plays_came_off=1, plays_stood=2, plays_voided=1,
                        rulings_changed=1),  # c1; c2 off, c6 void, c7 and c11 (ruled) stood
    (BEN, "A"): figures(challenges_made=3, challenges_won=1, challenges_lost=2, penalty_points=5,
                        free_challenges_granted=1, free_challenges_used=1, rulings_changed=2),
    (CLEO, "A"): figures(challenges_made=1, challenges_lost=1, penalty_points=5, voided=1,
                         plays_challenged=1, plays_came_off=1, rulings_changed=1),  # c6 -> c7
    (DEV, "A"): figures(challenges_made=1, challenges_won=1, plays_challenged=2, plays_stood=2),
    (EVE, "B"): figures(challenges_made=1, challenges_lost=1, penalty_points=5,
                        plays_challenged=2, plays_stood=2),  # c4 (agreed); c9, c12 stood
    (FINN, "B"): figures(challenges_made=1, challenges_lost=1, penalty_points=5, voided=1,
                         plays_challenged=1, plays_stood=1),  # c5 void, c12 waits
    (GIA, "B"): figures(challenges_made=1, challenges_lost=1, free_challenges_granted=1,
                        free_challenges_used=1, plays_voided=1),  # c9 used the grant
    (HAL, "B"): figures(challenges_made=1, challenges_lost=1, penalty_points=5,
                        plays_challenged=1, plays_stood=1),  # c10: its void revoked
}  # fmt: skip
SPRING_TOTALS = {
    "challenges_made": 11, "challenges_won": 2, "challenges_lost": 9, "challenges_undecided": 0,
    "penalty_points": 40, "penalty_turns": 0, "penalty_seconds": 0,
    "free_challenges_granted": 2, "free_challenges_used": 2, "opinions_changed": 0,
    "rulings_changed": 2, "voided": 2, "director_points": 0, "unnamed": 1,
}  # fmt: skip
CLUB_FIGURES = {  # d1 void (dingle recounts d2, d3: one turn lost, not two); d4 decided 2 of 3
    "ann lee": figures(challenges_made=2, challenges_lost=2, penalty_turns=1, voided=1,
                       plays_challenged=1, plays_came_off=1, opinions_changed=1),
    "zed zane": figures(challenges_made=1, challenges_won=1, opinions_changed=1,
                        plays_challenged=2, plays_stood=2, plays_voided=1),
}  # fmt: skip


@pytest.fixture
def made(rulebooks_hall, tmp_path, monkeypatch, rulebooks_cli):
    """The scenario; the CLI signing with the hall's own key."""
    monkeypatch.setenv("ADJUDICATOR_RECEIPT_KEY_FILE", str(rulebooks_hall.hall.key_path))
    return record_event.make(rulebooks_hall, tmp_path)


def by_name(found) -> dict:
    return {(p.name, p.division): p.figures for p in found}


def test_every_figure_follows_every_correction_as_counted_by_hand(made, rulebooks_cli):
    hall = made.hall
    assert by_name(player_figures.of_tournaments(hall.db, [SPRING])) == SPRING_FIGURES
    club = {p.key: p.figures for p in player_figures.of_tournaments(hall.db, [CLUB])}
    assert club == CLUB_FIGURES

    out = rulebooks_cli("report", SPRING, "--format", "json")
    assert out.exit_code == 0, out.stderr
    shown = json.loads(out.stdout)
    assert shown["tournament"]["closed"] is None and shown["words"] is False
    players = {(p["name"], p["division"]): p for p in shown["players"]}
    for key, expected in SPRING_FIGURES.items():
        assert {name: players[key][name] for name in expected} == expected, key
    assert shown["totals"] == SPRING_TOTALS
    divisions = {d["name"]: d["totals"] for d in shown["divisions"]}
    assert divisions["A"]["challenges_made"] == 7 and divisions["B"]["challenges_made"] == 4
    assert divisions["A"]["penalty_points"] == 25 and divisions["B"]["penalty_points"] == 15
    assert (
        divisions["A"]["free_challenges_granted"] == 1 == divisions["B"]["free_challenges_granted"]
    )
    assert "not_in_lexicon" not in out.stdout  # no word is named while the event runs

    lines = {c["id"]: c for r in shown["rounds"] for c in r["challenges"]}
    assert [r["round"] for r in shown["rounds"]] == ["1", "2", "3"]
    ids = made.ids
    c3 = lines[ids["c3"]]
    assert (c3["result"], c3["challenger"], c3["player"]) == ("came off", BEN, CLEO)
    assert c3["corrections"] == [
        f"second opinion #{ids['c3'] + 1}: UNACCEPTABLE, flagged for the director",
        f"ruling #{ids['c3'] + 2}: UNACCEPTABLE",
    ]
    assert c3["words"] == ["QI", "ZA"]  # the challenge's words; never the opinion's
    assert lines[ids["c6"]]["corrections"] == [f"reissued as #{ids['c7']}"]
    assert lines[ids["c7"]]["corrections"] == [f"reissues #{ids['c6']}"]
    assert lines[ids["c10"]]["result"] == "stood"
    assert [said.split(" #")[0] for said in lines[ids["c10"]]["corrections"]] == [
        "void", "void revoked"
    ]  # fmt: skip
    assert lines[ids["c12"]]["pending"] is True
    assert "awaiting the director's ruling" in lines[ids["c12"]]["corrections"]
    assert lines[ids["c13"]]["challenger"] is None and lines[ids["c13"]]["division"] == "A"
    assert {v["id"] for v in shown["voided"]} == {ids["c5"], ids["c6"]}

    club_report = json.loads(rulebooks_cli("report", CLUB, "--format", "json").stdout)
    d3 = next(c for r in club_report["rounds"] for c in r["challenges"] if c["id"] == ids["d3"])
    assert d3["penalty"]["challenger_loses_turn"] is True  # recounted: now the second
    d2 = next(c for r in club_report["rounds"] for c in r["challenges"] if c["id"] == ids["d2"])
    assert d2["penalty"]["challenger_loses_turn"] is False  # recounted: now the first, free
    assert "penalty recounted after later corrections in the game" in d2["corrections"]
    assert club_report["totals"]["opinions_changed"] == 1


def test_the_csv_has_one_row_per_player_with_the_json_columns(made, rulebooks_cli):
    out = rulebooks_cli("report", SPRING, "--format", "csv")
    assert out.exit_code == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == len(SPRING_FIGURES)
    for name in ("name", "challenges_made", "challenges_won", "challenges_lost",
                 "plays_challenged", "plays_came_off", "plays_stood", "voided"):  # fmt: skip
        assert name in rows[0]
    for row in rows:
        expected = SPRING_FIGURES[(row["name"], row["division"])]
        assert {name: int(row[name]) for name in expected} == expected


def test_the_close_stops_judging_and_the_ruling_still_open_moves_the_figures(made, rulebooks_cli):
    hall, ids = made.hall, made.ids
    refused = rulebooks_cli("report", SPRING, "--out", str(made.html))
    assert refused.exit_code == 2 and "director's alone" in refused.stderr
    assert not (made.html / "spring-challenges.html").exists()

    closed = rulebooks_cli("tournament", "close", SPRING, "--reason", "the last round is in")
    assert closed.exit_code == 0, closed.stderr
    shown = rulebooks_cli("tournament", "show", SPRING).stdout
    assert "CLOSED:" in shown and "the last round is in" in shown
    listed = {
        t["slug"]: t for t in json.loads(rulebooks_cli("tournament", "list", "--json").stdout)
    }
    assert listed[SPRING]["closed"] is True and listed[CLUB]["closed"] is False

    after = rulebooks_cli("judge", "--tournament", SPRING, "--table", "1", "--round", "3", "QI")
    assert after.exit_code == 2 and after.stdout == ""
    assert "Tournament spring is closed" in after.stderr
    kiosk = hall.kiosk_browser(made.spring)
    answer = kiosk.post("/api/v1/adjudications", json={"words": ["QI"], "table": "1"})
    assert answer.status_code == 409
    body = answer.get_json()
    assert "spring" in body["error"] and "verdict" not in body
    status = kiosk.get("/api/v1/kiosk").get_json()
    assert status["closed"]["shown_message"].startswith("This event is over")
    # A second opinion is judging again: refused unless the case still waits (c12 does).
    with pytest.raises(Exception, match="is closed"):
        second_opinion.give(hall.db, hall.store, ids["c1"], ["CAT", "DOG"], actor=JUDGE,
                            station="judges-alice", confirm_correction=True)  # fmt: skip
    made.rule_c12()  # the director's ruling on what was open when the event closed
    after_ruling = by_name(player_figures.of_tournaments(hall.db, [SPRING]))
    finn, eve = dict(SPRING_FIGURES[(FINN, "B")]), dict(SPRING_FIGURES[(EVE, "B")])
    finn.update(challenges_won=1, challenges_lost=0, penalty_points=0, rulings_changed=1)
    eve.update(plays_came_off=1, plays_stood=1, rulings_changed=1)
    assert after_ruling[(FINN, "B")] == finn and after_ruling[(EVE, "B")] == eve

    words = json.loads(rulebooks_cli("report", SPRING, "--format", "json", "--words").stdout)
    named = {c["id"]: c.get("not_in_lexicon") for r in words["rounds"] for c in r["challenges"]}
    assert named[ids["c2"]] == ["CATX"]
    assert named[ids["c3"]] == ["ZAQ"]  # the ruling's words: the second opinion's slip
    assert named[ids["c12"]] == ["ZAQ"]
    assert named[ids["c1"]] == [] and named[ids["c6"]] == []  # stood; void
    published = rulebooks_cli("report", SPRING, "--out")  # TSH's own html folder
    assert published.exit_code == 0, published.stderr
    page = (made.html / "spring-challenges.html").read_text()
    assert "Challenge report: Spring Open" in page and "CATX" in page
    assert "Not in the lexicon" not in page  # --words was not asked for
    assert (made.html / "tourney.js").exists()  # TSH's own file left as it was

    reopened = rulebooks_cli("tournament", "reopen", SPRING, "--reason", "a game to replay")
    assert reopened.exit_code == 0, reopened.stderr
    again = rulebooks_cli("report", SPRING, "--words")
    assert again.exit_code == 2 and "WESPA 3.10.7(b)" in again.stderr
    assert event_close.closing(hall.hall, SPRING) is None


def test_a_season_sums_each_player_over_the_events_by_name(made, rulebooks_cli):
    out = rulebooks_cli("report", "--season", "2025-01-01", "2025-12-31", "--format", "json")
    assert out.exit_code == 0, out.stderr
    season = json.loads(out.stdout)
    assert [t["slug"] for t in season["tournaments"]] == [SPRING, CLUB]
    players = {p["name"]: p for p in season["players"]}
    ann = players[ANN]  # "Ann Lee" at the club is TSH's "Lee, Ann" at the spring event
    assert ann["tournaments"] == 2
    spring_ann, club_ann = SPRING_FIGURES[(ANN, "A")], CLUB_FIGURES["ann lee"]
    assert {name: ann[name] for name in spring_ann} == {
        name: spring_ann[name] + club_ann[name] for name in spring_ann
    }
    only_spring = rulebooks_cli("report", "--season", "2025-04-01", "2025-04-30", "--format",
                                "csv", "--sort", "challenges_made", "--descending")  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(only_spring.stdout)))
    assert rows[0]["name"] == BEN and "Zed Zane" not in only_spring.stdout
    bad = rulebooks_cli("report", "--season", "2025-13-01", "2025-12-31")
    assert bad.exit_code == 2 and "YYYY-MM-DD" in bad.stderr
    words = rulebooks_cli("report", "--season", "2025-01-01", "2025-12-31", "--words")
    assert words.exit_code == 2


def test_the_tallies_kept_at_each_append_are_the_journal_counted_afresh(made):
    """What each append added is what counting every row again gives (player_tallies.rebuild:
    the migration's count), row for row."""
    db = made.hall.db
    with db.transaction() as cur:
        kept = player_tallies.read(cur, [SPRING, CLUB])
    with db.transaction(chain_lock=True) as cur:
        player_tallies.rebuild(cur)
        counted = player_tallies.read(cur, [SPRING, CLUB])
    assert kept == counted and len(kept) >= 10
