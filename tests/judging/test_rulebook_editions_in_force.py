"""Issue 35, item 1: under NASPA 1.3 ("whichever versions of the NASPA Word List (NWL) and the
Collins Scrabble Words (CSW) lexicons are in effect at the time") and WESPA 1.2(b) (tournaments
"must not deviate from the official word source"), a tournament takes only the catalogue's
edition in force on its date, on `tournament create` and `tournament set` alike; any other
edition needs `--off-rulebook REASON`, recorded and shown. The refusal names the edition in
force that day, or says the catalogue has none. NSA 1998, school 2011 and MSA keep their
recipes; with no rulebook an old edition is only a warning. On the real lists.
"""

from __future__ import annotations

import json

import pytest

from adjudicator.hall import tournaments

from support.director import press

REFUSALS = [
    # the three commands, and the gaps of the catalogue
    ("naspa", "TWL06", "2025-03-01",
     "in force then: NWL2023 (2024-01-01 on), CSW24 (2025-01-01 on)"),
    ("wespa", "CSW24", "2010-11-01", "in force then: CSW07 (2007-01-01 to 2011-12-31)"),
    ("wespa", "CSW07", "2020-01-01", "in force then: CSW19 (2019-07-01 to 2021-12-31)"),
    ("naspa", "NWL2023", "2017-06-01",
     "in force then: CSW15 (2015-09-01 to 2019-06-30); the catalogue has no NWL edition in "
     "force on 2017-06-01"),
    ("wespa", "CSW07", "2005-06-01", "the catalogue has no CSW edition in force on 2005-06-01"),
]  # fmt: skip
CLAUSE = {
    "naspa": 'NASPA 1.3: "whichever versions of the NASPA Word List (NWL) and the Collins '
    'Scrabble Words (CSW) lexicons are in effect at the time"',
    "wespa": 'WESPA 1.2(b): tournaments "must not deviate from the official word source"',
}


@pytest.mark.parametrize("book, lexicon, day, named", REFUSALS, ids=[r[2] for r in REFUSALS])
def test_create_refuses_an_edition_not_in_force_naming_the_one_that_was(
    rulebooks_cli, book, lexicon, day, named
):
    cli = rulebooks_cli
    out = cli("tournament", "create", "club", "-l", lexicon, "-r", "double", "--rulebook", book,
              "--date", day)  # fmt: skip
    assert out.exit_code == 2 and out.stdout == "" and "Traceback" not in out.stderr
    assert f"was not in force on {day}" in out.stderr
    assert CLAUSE[book] in out.stderr and named in out.stderr
    assert "--off-rulebook" in out.stderr
    assert cli("tournament", "list", "--json").stdout.strip() == "[]"


def test_an_edition_in_force_that_day_needs_no_reason(rulebooks_cli):
    cli = rulebooks_cli
    for slug, lexicon, book, day in (
        ("a", "TWL06", "naspa", "2010-05-01"),
        ("b", "CSW07", "wespa", "2010-11-01"),
        ("c", "CSW24", "naspa", "2025-03-01"),
        ("d", "OWL", "naspa", "2004-05-01"),
    ):
        out = cli("tournament", "create", slug, "-l", lexicon, "-r", "double", "--rulebook", book,
                  "--date", day)  # fmt: skip
        assert out.exit_code == 0, out.stderr
        assert "off the rulebook" not in out.stdout and out.stderr == ""


def test_off_the_rulebook_with_a_reason_recorded_and_shown(rulebooks_cli, rulebooks_hall):
    cli = rulebooks_cli
    made = cli("tournament", "create", "retro", "-l", "TWL06", "-r", "double", "--rulebook",
               "naspa", "--date", "2025-03-01", "--off-rulebook",
               "a TWL06 revival night")  # fmt: skip
    assert made.exit_code == 0, made.stderr
    assert "  off the rulebook: a TWL06 revival night" in made.stdout
    assert "lexicon TWL06 is TWL06, which was not in force on 2025-03-01" in made.stdout
    (entry,) = json.loads(cli("tournament", "list", "--json").stdout)
    assert entry["off_rulebook"] == "a TWL06 revival night"
    page = rulebooks_hall.director().get("/director/tournaments").get_data(as_text=True)
    assert "a TWL06 revival night" in page and "not in force on 2025-03-01" in page
    overview = rulebooks_hall.director().get("/director/").get_data(as_text=True)
    assert "a TWL06 revival night" in overview


def test_set_refuses_a_date_or_an_edition_out_of_force_and_takes_a_reason(rulebooks_cli):
    cli = rulebooks_cli
    assert cli("tournament", "create", "w", "-l", "CSW07", "-r", "5-per-word", "--rulebook",
               "wespa", "--date", "2010-11-01").exit_code == 0  # fmt: skip
    moved = cli("tournament", "set", "w", "--date", "2020-01-01")
    assert moved.exit_code == 2 and "in force then: CSW19" in moved.stderr
    assert json.loads(cli("tournament", "show", "w", "--json").stdout)["date"] == "2010-11-01"
    swapped = cli("tournament", "set", "w", "--lexicon", "CSW24")
    assert swapped.exit_code == 2 and "in force then: CSW07" in swapped.stderr
    named = cli("tournament", "set", "w", "--rulebook", "naspa", "--date", "2026-01-10")
    assert named.exit_code == 2 and "CSW24 (2025-01-01 on)" in named.stderr
    ok = cli("tournament", "set", "w", "--lexicon", "CSW24", "--date", "2026-01-10")
    assert ok.exit_code == 0, ok.stderr
    assert "off the rulebook" not in ok.stdout
    reasoned = cli("tournament", "set", "w", "--date", "2010-11-01", "--off-rulebook",
                   "replaying the 2010 final on today's list")  # fmt: skip
    assert reasoned.exit_code == 0, reasoned.stderr
    assert "off the rulebook: replaying the 2010 final" in reasoned.stdout


@pytest.mark.parametrize(
    "book, lexicon",
    [("nsa-1998", "OWL-NSA1998"), ("school-2011", "SCHOOL-OSPD"), ("msa", "MSA-UNION"),
     (None, "TWL06")],
)  # fmt: skip
def test_nsa_school_msa_keep_their_recipes_and_none_only_warns(rulebooks_cli, book, lexicon):
    """NSA I.A, school rule 10 and MSA 15 name their own lists, whatever the date; with no
    rulebook an old edition is accepted with the warning, as before."""
    cli = rulebooks_cli
    args = ["tournament", "create", "x", "-l", lexicon, "-r", "double", "--date", "2026-02-01"]
    out = cli(*args, *(["--rulebook", book] if book else []))
    assert out.exit_code == 0, out.stderr
    assert "off the rulebook" not in out.stdout
    if book is None:
        assert "Warning: Tournament x: TWL06 was not in force on 2026-02-01" in out.stderr


def test_the_tournaments_page_refuses_and_takes_a_reason(rulebooks_hall):
    hall = rulebooks_hall
    director = hall.director()
    form = {"slug": "cup", "lexicon": "CSW24", "rule": "5-per-word", "rulebook": "wespa",
            "date": "2010-11-01", "language": "en"}  # fmt: skip
    refused = press(director, "/director/tournaments", "/director/tournaments", form)
    assert "not in force on 2010-11-01" in refused and "in force then: CSW07" in refused
    assert not [t for t in tournaments.list_all(hall.db) if t.slug == "cup"]
    form["off_rulebook"] = "an exhibition on the current list"
    made = press(director, "/director/tournaments", "/director/tournaments", form)
    assert "an exhibition on the current list" in made
    assert tournaments.get(hall.db, "cup").off_rulebook == "an exhibition on the current list"
