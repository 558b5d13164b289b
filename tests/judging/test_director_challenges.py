"""Issue 35, item 6: the challenges the director decides, under each rulebook and with none.

WESPA 3.10.16 (word placement: the centre square, one word, a diagonal word, beyond the grid,
misoriented) and 3.10.17 (an exchange with fewer than seven tiles in the bag): "call the
Tournament Director to adjudicate", and "There is no penalty for an unsuccessful challenge".
NASPA 4.7-4.8 (illegal plays) and 4.11(a) (such an exchange: "Score zero (illegal play)", and
"If your opponent has already played and restarted your clock, subtract 30 from your score"),
NSA IV.B, IV.D, IV.F.1 and IV.H.3, MSA 10.1 and 20, school rules 1, 3 and 8 (their texts in
../shared/seeds). `adjudicator director-challenge --tournament SLUG --kind placement|exchange
--outcome upheld|dismissed [--table N --round R --challenger NAME --player NAME] --reason TEXT`
and the director's decisions page record a row of its own kind: no words, no lexicon, no
penalty to the challenger, never counted by dingle, 5-then-10 or the ladders, shown in the
journal, the export and the game's history (a TSH player's journal).
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from adjudicator.hall.director import director_decisions
from adjudicator.hall.tsh import links
from adjudicator.judging import director_challenges
from adjudicator.record.journal import journal

from support import tsh_files
from support.director import press
from support.rulebook_lexicons import EVENTS, RulebookHall

EVENT = EVENTS
CLAUSES = {
    "wespa": {"placement": "(WESPA 3.10.16)", "exchange": "(WESPA 3.10.17)"},
    "naspa": {"placement": "(NASPA 4.7 and 4.8)", "exchange": "(NASPA 4.11(a))"},
    "nsa-1998": {"placement": "(NSA IV.B, IV.D and IV.F.1)", "exchange": "(NSA IV.H.3)"},
    "msa": {"placement": "(MSA 20)", "exchange": "(MSA 10.1 and 20)"},
    "school-2011": {"placement": "(school rules 1 and 3)", "exchange": "(school rule 8)"},
    None: {"placement": ":", "exchange": ":"},
}
# What the rulebook gives the offender of an upheld challenge, for the scorecard.
OFFENDER = {
    ("naspa", "exchange"): "subtract 30 from the offender's score",
    ("naspa", "placement"): "NASPA 4.8: the offender scores zero for the turn",
    ("nsa-1998", "exchange"): "chooses within one minute which seven tiles the player shall have",
    ("school-2011", "exchange"): 'school rule 8: "a penalty applies"',
}
GOOD = ["CAT", "DOG"]
GAME = {"round": "1", "table": "4"}


def event(hall: RulebookHall, book: str | None, rule: str | None = None):
    lexicon, default = EVENT[book]
    return hall.event(f"{book or 'none'}-td", book, lexicon, rule or default)


@pytest.mark.parametrize("kind", director_challenges.KINDS)
@pytest.mark.parametrize("outcome", list(director_challenges.OUTCOMES))
@pytest.mark.parametrize("book", list(EVENT), ids=[str(b) for b in EVENT])
def test_a_row_of_its_own_kind_citing_the_events_clause(
    rulebooks_hall, rulebooks_cli, book, kind, outcome
):
    hall, cli = rulebooks_hall, rulebooks_cli
    slug = event(hall, book).kiosk.tournament
    out = cli("director-challenge", "--tournament", slug, "--kind", kind, "--outcome", outcome,
              "--table", "4", "--round", "1", "--challenger", "Ann", "--player", "Bob",
              "--reason", "tiles not in one line")  # fmt: skip
    assert out.exit_code == 0, out.stderr
    row = journal.get(hall.db, journal.newest_id(hall.db))
    assert (row.kind, row.verdict) == (kind, outcome.upper())
    assert (row.words, row.word_count, row.lexicon_name, row.lexicon_words) == ((), 0, "", 0)
    assert (row.table, row.round, row.challenger, row.player) == ("4", "1", "Ann", "Bob")
    assert row.note == "tiles not in one line" and row.actor.startswith("cli:")
    penalty = row.penalty_numbers()
    assert penalty["points_to_player"] == 0 and penalty["challenger_loses_turn"] is False
    assert penalty["play_stands"] is (outcome == "dismissed")
    assert CLAUSES[book][kind] in row.consequence
    assert "No penalty to the challenger, and it is not counted among their unsuccessful " \
        "challenges." in row.consequence  # fmt: skip
    assert row.consequence in out.stdout and "Receipt:" in out.stdout
    offender = OFFENDER.get((book, kind))
    if outcome == "upheld" and offender:
        assert offender in row.detail("offender")
        assert f"For the scorecard: {row.detail('offender')}" in out.stdout
    else:
        assert row.detail("offender") is None and "For the scorecard" not in out.stdout
    if book == "wespa" and outcome == "dismissed":
        assert f"there is no penalty for an unsuccessful challenge ({kind_c(kind)})" in (
            row.consequence
        )


def kind_c(kind: str) -> str:
    return "3.10.16(c)" if kind == "placement" else "3.10.17(c)"


def test_naspa_4_11_a_the_offenders_penalty_as_the_rulebook_gives_it(rulebooks_hall):
    hall = rulebooks_hall
    event(hall, "naspa")
    row = director_decisions.decide_challenge(
        hall.db, "naspa-td", "exchange", "upheld", "bag had 5 tiles", actor="td", station="td"
    )
    assert row.detail("offender") == (
        "NASPA 4.11(a): the offender scores zero for the turn. If no new tile reached the "
        "offender's rack and no original tile went into the bag, the turn counts as a pass; "
        "otherwise the opponent sees the rack, the tiles to be traded and the bag, and has one "
        "minute to choose which 7 tiles the offender keeps. If the opponent has already played "
        "and restarted the offender's clock, subtract 30 from the offender's score."
    )
    assert row.detail("clause") == "NASPA 4.11(a)"


@pytest.mark.parametrize("rule", ["dingle", "5-then-10", "ladder-5-10-20"])
def test_never_counted_among_a_players_unsuccessful_challenges(rulebooks_hall, rule):
    """A dismissed placement or exchange challenge by Ann is not her first unsuccessful
    challenge: her first word challenge that fails still costs what a first one does."""
    hall = rulebooks_hall
    kiosk = event(hall, "naspa", rule)
    for kind in director_challenges.KINDS:
        director_decisions.decide_challenge(
            hall.db, "naspa-td", kind, "dismissed", "it was legal", actor="td", station="td",
            challenger="Ann", **GAME,
        )  # fmt: skip
    first = hall.challenge(kiosk, GOOD, challenger="Ann", **GAME)
    assert "first unsuccessful challenge in this game" in first.consequence
    expected = {"dingle": 0, "5-then-10": 5, "ladder-5-10-20": 5}[rule]
    assert first.penalty_numbers()["points_to_player"] == expected
    assert first.penalty_numbers()["challenger_loses_turn"] is False


def test_shown_in_the_journal_the_export_and_the_games_history(
    rulebooks_hall, rulebooks_cli, tmp_path
):
    hall, cli = rulebooks_hall, rulebooks_cli
    event(hall, "wespa")
    made = tsh_files.make_event({"A": 8}, 3, 2)
    links.link(hall.db, "wespa-td", str(
        tsh_files.write_tourney_js(tmp_path / "html" / "tourney.js", made)))  # fmt: skip
    first, second = tsh_files.seated(made, "A", 2, 3)
    out = cli("director-challenge", "--tournament", "wespa-td", "--kind", "placement",
              "--outcome", "upheld", "--round", "2", "--table", "3", "--challenger",
              first.split(", ")[1] + " " + first.split(", ")[0], "--reason",
              "diagonal word")  # fmt: skip
    assert out.exit_code == 0, out.stderr
    row = journal.get(hall.db, journal.newest_id(hall.db))
    assert row.challenger == first and row.player_names() == [first, second]  # as TSH has them
    director = hall.director()
    page = director.get("/director/journal?kind=placement").get_data(as_text=True)
    assert f'id="row-{row.id}"' in page and "(WESPA 3.10.16)" in page and "UPHELD" in page
    history = director.get(f"/director/journal?player={second}").get_data(as_text=True)
    assert f'id="row-{row.id}"' in history  # the game's history: the player's journal
    exported = json.loads(cli("journal", "export", "--format", "json").stdout)
    (found,) = [r for r in exported if r["id"] == row.id]
    assert found["kind"] == "placement" and found["effective"] is None
    assert found["details"] == {"clause": "WESPA 3.10.16"} and found["words"] == []
    table = list(csv.DictReader(io.StringIO(cli("journal", "export").stdout)))
    (as_csv,) = [r for r in table if r["id"] == str(row.id)]
    assert as_csv["kind"] == "placement" and as_csv["verdict"] == "UPHELD"
    decisions = director.get("/director/decisions").get_data(as_text=True)
    assert f'id="decision-{row.id}"' in decisions


def test_the_directors_decisions_page_records_one(rulebooks_hall):
    hall = rulebooks_hall
    event(hall, "naspa")
    director = hall.director()
    page = press(director, "/director/decisions", "/director/decisions/director-challenge",
                 {"tournament": "naspa-td", "kind": "exchange", "outcome": "upheld",
                  "table": "4", "round": "1", "challenger": "Ann", "player": "Bob",
                  "reason": "bag had 5 tiles"})  # fmt: skip
    assert "(NASPA 4.11(a))" in page and "For the scorecard: NASPA 4.11(a)" in page
    row = journal.get(hall.db, journal.newest_id(hall.db))
    assert (row.kind, row.actor, row.kiosk) == ("exchange", "director", "director")
    refused = press(director, "/director/decisions", "/director/decisions/director-challenge",
                    {"tournament": "naspa-td", "kind": "scoring", "outcome": "upheld",
                     "reason": "no"})  # fmt: skip
    assert "The challenges the director decides are placement and exchange" in refused
    assert journal.newest_id(hall.db) == row.id


@pytest.mark.parametrize(
    "args, said",
    [
        (("--kind", "scoring", "--outcome", "upheld"), "Invalid value for '--kind'"),
        (("--kind", "placement", "--outcome", "maybe"), "Invalid value for '--outcome'"),
        (("--kind", "placement", "--outcome", "upheld", "--table", "4\u202e"), "table"),
        (("--kind", "placement", "--outcome", "upheld", "--reason", "no"), "Give the reason"),
    ],
)
def test_refusals_exit_2_and_record_nothing(rulebooks_hall, rulebooks_cli, args, said):
    event(rulebooks_hall, "wespa")
    newest = journal.newest_id(rulebooks_hall.db)
    reason = () if "--reason" in args else ("--reason", "seen at the table")
    out = rulebooks_cli("director-challenge", "--tournament", "wespa-td", *args, *reason)
    assert out.exit_code == 2 and out.stdout == "" and "Traceback" not in out.stderr
    assert said in out.stderr
    assert journal.newest_id(rulebooks_hall.db) == newest
    missing = rulebooks_cli("director-challenge", "--tournament", "nope", "--kind", "exchange",
                            "--outcome", "upheld", "--reason", "bag had 5")  # fmt: skip
    assert missing.exit_code == 2 and "No tournament 'nope'" in missing.stderr


def test_a_formula_typed_as_a_name_or_reason_is_text_in_the_csv(rulebooks_hall, rulebooks_cli):
    """A hostile hand types a spreadsheet formula as the player or the reason: the journal
    keeps it as typed, the CSV starts the cell with an apostrophe."""
    cli = rulebooks_cli
    event(rulebooks_hall, "wespa")
    formula = '=HYPERLINK("http://x.example/","ok")'
    out = cli("director-challenge", "--tournament", "wespa-td", "--kind", "exchange",
              "--outcome", "dismissed", "--player", "=1+1", "--reason", formula)  # fmt: skip
    assert out.exit_code == 0, out.stderr
    (row,) = [r for r in csv.DictReader(io.StringIO(cli("journal", "export").stdout))]
    assert row["player"] == "'=1+1" and row["note"] == "'" + formula
    assert journal.get(rulebooks_hall.db, 1).note == formula
