"""`adjudicator judge --tournament SLUG` (issue 11, item 4): judged with the tournament's lexicon
and rule, and recorded in the journal before it is printed; the first line is still the verdict.
"""

from __future__ import annotations

import json
import re

import pytest

from adjudicator.record.backends import connect
from adjudicator.record.database import migrations
from adjudicator.record.journal import journal
from adjudicator.words.wordlist import WordSet

from support.hall import refused
from support.words import mask

WORDS = ("AA", "QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA")


@pytest.fixture
def club(run, store):
    store.save("CLUB", WordSet.of(WORDS))
    for slug, rule in (("open", "5-per-word"), ("dingle", "dingle")):
        out = run("tournament", "create", slug, "--lexicon", "CLUB", "--rule", rule)
        assert out.exit_code == 0, out.stderr
    return run


def rows():
    database = connect()
    migrations.upgrade(database)
    return list(journal.entries(database))


def test_judge_tournament_records_and_prints_the_id(club):
    out = club("judge", "--tournament", "open", "qi", "za")
    assert out.exit_code == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines[0] == "ACCEPTABLE: the play stands"
    (entry,) = rows()
    assert (
        lines[1] == f"Recorded: adjudication #{entry.id} at {entry.recorded_at} (tournament open)"
    )
    assert lines[3] == "Rule: 5-per-word (5 points per word challenged)"
    assert lines[4] == (
        "Consequence: The play stands; 5 points x 2 words: the player adds 10; "
        "the challenger keeps the turn."
    )
    assert (entry.kind, entry.tournament, entry.lexicon_name, entry.rule) == (
        "challenge",
        "open",
        "CLUB",
        "5-per-word",
    )
    assert entry.kiosk.startswith("cli:") and entry.actor == entry.kiosk
    assert journal.verify(connect()).ok


def test_exit_codes_and_json(club):
    bad = club("judge", "--tournament", "open", "--json", "QI", "QX")
    assert bad.exit_code == 1
    body = json.loads(bad.stdout)
    assert body["verdict"] == "UNACCEPTABLE" and body["recorded"] is True
    assert body["penalty"]["play_stands"] is False and isinstance(body["id"], int)
    assert [e.id for e in rows()] == [body["id"]]


def test_the_tournaments_counting_rule_needs_the_game(club):
    refused(
        club("judge", "--tournament", "dingle", "QI"),
        "give the round, table, challenger",
        "Nothing was judged",
    )
    assert rows() == []
    game = ("--round", "2", "--table", "9", "--challenger", "Bo")
    first = club("judge", "--tournament", "dingle", *game, "QI")
    second = club("judge", "--tournament", "dingle", *game, "ZA")
    assert "first unsuccessful" in first.stdout and "2nd unsuccessful" in second.stdout
    assert [(e.round, e.table, e.challenger) for e in rows()] == [("2", "9", "BO")] * 2


def test_a_reissue_from_the_command_line(club):
    club("judge", "--tournament", "open", "QI", "ZO")
    (slip,) = rows()
    out = club("judge", "--tournament", "open", "--replaces", str(slip.id), "QI", "JO")
    assert out.exit_code == 0, out.stderr
    assert rows()[-1].refers_to == slip.id


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--tournament", "open", "--lexicon", "CLUB", "QI"), "leave out --lexicon and --rule"),
        (("--tournament", "open", "--rule", "single", "QI"), "leave out --lexicon and --rule"),
        (("--tournament", "nope", "QI"), "No tournament 'nope'"),
        (("--lexicon", "CLUB", "--table", "4", "QI"), "--table belong(s) to a recorded"),
        (("--lexicon", "CLUB", "--replaces", "4", "QI"), "--replaces belong(s) to a recorded"),
        (("--tournament", "open", "Q1"), "Word 1 ('Q1') has the digit '1'"),
    ],
)
def test_refusals_record_nothing(club, args, message):
    refused(club("judge", *args), message)
    assert rows() == []


def test_a_recorded_verdict_never_says_which_word_failed(club):
    good = ["QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA"]
    outputs = set()
    for position in range(8):
        words = list(good)
        words[position] = "QX"
        out = club("judge", "--tournament", "open", *words)
        text = re.sub(r"#\d+ at \S+", "#N at T", out.stdout)
        outputs.add((out.exit_code, mask(text, [*good, "QX"]), out.stderr))
    assert len(outputs) == 1
    ((code, text, stderr),) = outputs
    assert code == 1 and text.startswith("UNACCEPTABLE") and stderr == ""
