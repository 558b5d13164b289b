"""`adjudicator tournament create|list|show|set`: a tournament binds one lexicon and one rule.

Every error exits 2 with a message on stderr and nothing on stdout, and changes nothing.
"""

from __future__ import annotations

import json
from datetime import date

import pytest

from adjudicator.hall import kiosks
from adjudicator.hall.hall import Hall, LexiconUnavailable
from adjudicator.words.wordlist import WordSet

from support.hall import CSW_WORDS, NWL_WORDS, ok, refused


@pytest.fixture
def lexicons(store):
    store.save("TINY-NWL", WordSet.of(NWL_WORDS))
    store.save("TINY-CSW", WordSet.of(CSW_WORDS))
    return store


def create(run, slug="spring-nwl", lexicon="TINY-NWL", rule="5-per-word", *extra):
    return run("tournament", "create", slug, "--lexicon", lexicon, "--rule", rule, *extra)


def listed(run) -> dict:
    return {t["slug"]: t for t in json.loads(ok(run("tournament", "list", "--json")))}


def test_create_prints_the_tournament_its_lexicon_and_rule(run, lexicons):
    out = ok(create(run, "spring-nwl", "TINY-NWL", "5-per-word", "--title", "Spring Open NWL"))
    fingerprint = lexicons.manifest("TINY-NWL").fingerprint
    pin = lexicons.manifest("TINY-NWL").pin
    assert out.splitlines() == [
        "Tournament spring-nwl: Spring Open NWL",
        f"  lexicon: TINY-NWL (12 words, fingerprint {fingerprint[:12]})",
        f"  pin:     {pin[:12]} (words, referral rule, alphabet, as set)",
        "  rule:    5-per-word (5 points per word challenged)",
        "  rulebook: none (no rulebook named: reissues, the 3.10.13 confirmation, free "
        "challenges, the director's challenges and second opinions are offered; NASPA 6.2's "
        "look-up penalty, school rule 12's free final challenge, NSA X.G's third opinion and "
        "NASPA 1.2's limit stay with their rulebooks)",  # issue 35
        f"  date:    {date.today().isoformat()}",
        "  language: en (English)",
    ]
    assert listed(run)["spring-nwl"]["lexicon_fingerprint"] == fingerprint


def test_the_title_defaults_to_the_slug(run, lexicons):
    ok(create(run, "club-night"))
    assert listed(run)["club-night"]["title"] == "club-night"


@pytest.mark.parametrize(
    "args, fragments",
    [
        (("spring-nwl", "NOPE", "double"), ("No lexicon named 'NOPE'", "TINY-CSW, TINY-NWL")),
        (("Spring Open", "TINY-NWL", "double"), ("Invalid tournament slug", "lower-case")),
        (("SPRING", "TINY-NWL", "double"), ("Invalid tournament slug",)),
        (("spring_nwl", "TINY-NWL", "double"), ("Invalid tournament slug",)),
        (("spring/nwl", "TINY-NWL", "double"), ("Invalid tournament slug",)),
        (("spring-nwl", "TINY-NWL", "triple"), ("Invalid value", "'triple'", "double")),
        (("spring-nwl", "../etc", "double"), ("Invalid lexicon name",)),
    ],
    ids=[
        "unknown lexicon",
        "spaces",
        "upper case",
        "underscore",
        "slash",
        "bad rule",
        "path as lexicon",
    ],
)
def test_create_refuses_bad_input(run, lexicons, args, fragments):
    refused(create(run, *args), *fragments)
    assert listed(run) == {}


def test_create_refuses_a_duplicate_and_keeps_the_first(run, lexicons):
    ok(create(run, "spring", "TINY-NWL", "double"))
    refused(create(run, "spring", "TINY-CSW", "single"), "already exists", "tournament set")
    assert listed(run)["spring"]["lexicon"] == "TINY-NWL"


def test_create_needs_a_lexicon_and_a_rule(run, lexicons):
    refused(run("tournament", "create", "spring", "--rule", "double"), "--lexicon")
    refused(run("tournament", "create", "spring", "--lexicon", "TINY-NWL"), "--rule")
    assert listed(run) == {}


def test_list_when_empty_and_with_divisions(run, lexicons):
    assert ok(run("tournament", "list")).startswith("No tournaments yet")
    assert json.loads(ok(run("tournament", "list", "--json"))) == []
    ok(create(run, "spring-nwl", "TINY-NWL", "double"))
    ok(create(run, "spring-csw", "TINY-CSW", "5-per-word", "--title", "CSW division"))
    lines = ok(run("tournament", "list")).splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["spring-csw", "TINY-CSW", "5-per-word"],
        ["spring-nwl", "TINY-NWL", "double"],
    ]
    assert lines[0].endswith("CSW division")
    found = listed(run)
    assert found["spring-csw"]["rule"] == "5-per-word"
    assert set(found["spring-nwl"]) >= {"slug", "title", "lexicon", "lexicon_fingerprint", "rule"}


def test_show_in_text_and_json(run, lexicons):
    ok(create(run, "spring", "TINY-CSW", "double", "--title", "Spring"))
    assert ok(run("tournament", "show", "spring")).startswith("Tournament spring: Spring\n")
    shown = json.loads(ok(run("tournament", "show", "spring", "--json")))
    assert shown["lexicon"] == "TINY-CSW" and shown["rule"] == "double"
    refused(run("tournament", "show", "autumn"), "No tournament 'autumn'", "spring")


def test_set_changes_rule_title_and_lexicon(run, lexicons):
    ok(create(run, "spring", "TINY-NWL", "double"))
    out = ok(run("tournament", "set", "spring", "--rule", "10-per-word", "--title", "Spring B"))
    assert "Tournament spring: Spring B" in out and "10-per-word" in out
    ok(run("tournament", "set", "spring", "--lexicon", "TINY-CSW"))
    found = listed(run)["spring"]
    assert (found["lexicon"], found["rule"], found["title"]) == (
        "TINY-CSW",
        "10-per-word",
        "Spring B",
    )
    assert found["lexicon_fingerprint"] == lexicons.manifest("TINY-CSW").fingerprint


@pytest.mark.parametrize(
    "args, fragments",
    [
        (("autumn", "--rule", "single"), ("No tournament 'autumn'",)),
        (("spring", "--lexicon", "NOPE"), ("No lexicon named 'NOPE'",)),
        (("spring", "--rule", "51-per-word"), ("Invalid value", "1 to 50")),
    ],
)
def test_set_refuses_bad_input_and_changes_nothing(run, lexicons, args, fragments):
    ok(create(run, "spring", "TINY-NWL", "double"))
    before = listed(run)
    refused(run("tournament", "set", *args), *fragments)
    assert listed(run) == before


def test_set_applies_from_the_next_challenge(run, lexicons):
    ok(create(run, "spring", "TINY-NWL", "double"))
    hall = Hall(rate_limit=None)
    kiosk = kiosks.add(hall.db, "table-1", "spring").kiosk
    first = hall.adjudicate(kiosk, ["CH"])
    assert (first.verdict, first.rule, first.lexicon_name) == ("UNACCEPTABLE", "double", "TINY-NWL")
    ok(run("tournament", "set", "spring", "--lexicon", "TINY-CSW", "--rule", "single"))
    second = hall.adjudicate(kiosk, ["CH"])
    assert (second.verdict, second.rule, second.lexicon_name) == (
        "ACCEPTABLE",
        "single",
        "TINY-CSW",
    )


def test_set_lexicon_pins_a_reimported_edition_again(run, lexicons):
    ok(create(run, "spring", "TINY-NWL", "double"))
    hall = Hall(rate_limit=None)
    kiosk = kiosks.add(hall.db, "table-1", "spring").kiosk
    lexicons.save("TINY-NWL", WordSet.of([*NWL_WORDS, "QAT"]))
    with pytest.raises(LexiconUnavailable, match="call the director"):
        hall.adjudicate(kiosk, ["QAT"])
    ok(run("tournament", "set", "spring", "--lexicon", "TINY-NWL"))
    assert hall.adjudicate(kiosk, ["QAT"]).verdict == "ACCEPTABLE"


def test_set_with_nothing_to_change_says_so(run, lexicons):
    create(run)
    refused(run("tournament", "set", "spring-nwl"), "Nothing to change", "--lexicon", "--rule")
