"""Issue 35, item 5: NSA VI.C's free challenge, granted by the director to a player for a
challenge they make later ("An appropriate penalty would be to give the opponent a free
challenge"), under each rulebook and with none: `adjudicator free-challenge --tournament SLUG
--to NAME [--round R --table N] --reason TEXT` and the director's decisions page.

The player's next unsuccessful challenge (in that game, where one is named) costs nothing; its
row cites the grant and the tournament's own clause (VI.C at NSA events, elsewhere the
rulebook's discretion clause). Other players' challenges are not affected. A grant not yet used
shows with its tournament. On the real lists; a TSH-linked game names the player as TSH does.
"""

from __future__ import annotations

import json

import pytest

from adjudicator.hall import kiosks
from adjudicator.hall.director import director_decisions
from adjudicator.hall.tsh import links
from adjudicator.judging import grant_uses, outcomes
from adjudicator.judging.corrections import voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.record.journal import journal

from support import tsh_files
from support.director import press
from support.rulebook_lexicons import RulebookHall

EVENT = {
    "nsa-1998": ("OWL-NSA1998", "double", "NSA VI.C"),
    "naspa": ("NWL2023", "double", "at the director's discretion, NASPA 1.2"),
    "wespa": ("CSW24", "5-per-word", "at the director's discretion, WESPA 6.1.2(e)"),
    "msa": ("MSA-UNION", "5-per-word", "at the director's discretion, MSA 20"),
    "school-2011": ("SCHOOL-OSPD", "double",
                    "at the director's discretion, school rules, closing note"),
    None: ("NWL2023", "double", "at the director's discretion"),
}  # fmt: skip
GOOD, BAD = ["CAT", "DOG"], ["CAT", "DOGX"]
GAME = {"round": "2", "table": "5"}


def event(hall: RulebookHall, book: str | None, rule: str | None = None):
    lexicon, default, _ = EVENT[book]
    return hall.event(f"{book or 'none'}-free", book, lexicon, rule or default)


def effect(hall: RulebookHall, entry_id: int) -> outcomes.Outcome:
    ((_, found),) = outcomes.with_outcomes(hall.db, [journal.get(hall.db, entry_id)])
    return found


def costs_nothing(penalty: dict) -> bool:
    return not (penalty["points_to_player"] or penalty["challenger_loses_turn"])


@pytest.mark.parametrize("book", list(EVENT), ids=[str(b) for b in EVENT])
def test_the_next_unsuccessful_challenge_of_that_player_costs_nothing(
    rulebooks_hall, rulebooks_cli, book
):
    hall, cli = rulebooks_hall, rulebooks_cli
    kiosk = event(hall, book)
    slug = kiosk.kiosk.tournament
    out = cli("free-challenge", "--tournament", slug, "--to", "Ann Lee", "--reason",
              "opponent recorded the score before the play")  # fmt: skip
    assert out.exit_code == 0, out.stderr
    grant_id = int(out.stdout.split("Free challenge #")[1].split()[0])
    how = EVENT[book][2]
    assert f"The director grants Ann Lee a free challenge ({how}): their next unsuccessful " \
        "challenge costs nothing." in out.stdout  # fmt: skip
    assert "Receipt:" in out.stdout
    grant = journal.get(hall.db, grant_id)
    assert (grant.kind, grant.verdict, grant.words, grant.lexicon_name) == (
        "free-challenge", "GRANTED", (), ""
    )  # fmt: skip
    shown = cli("tournament", "show", slug).stdout
    assert f"free challenge #{grant_id} not yet used: Ann Lee" in shown
    page = hall.director().get("/director/tournaments").get_data(as_text=True)
    assert f'id="grants-{slug}"' in page and "Ann Lee" in page

    bob = hall.challenge(kiosk, GOOD, challenger="Bob", **GAME)  # another player: unaffected
    assert not costs_nothing(bob.penalty_numbers()) and bob.detail("free_challenge") is None
    won = hall.challenge(kiosk, BAD, challenger="ann  lee", **GAME)  # successful: not used
    assert won.detail("free_challenge") is None
    used = hall.challenge(kiosk, GOOD, challenger="ANN LEE", **GAME)
    assert used.detail("free_challenge") == grant_id
    assert costs_nothing(used.penalty_numbers()) and used.penalty_numbers()["waived"] is True
    assert used.consequence == (
        f"The play stands; free challenge #{grant_id}, granted by the director ({how}): no "
        "penalty to either player."
    )
    again = hall.challenge(kiosk, GOOD, challenger="Ann Lee", **GAME)  # one grant, one use
    assert not costs_nothing(again.penalty_numbers())
    assert f"free challenge #{grant_id} not yet used" not in cli("tournament", "show", slug).stdout
    exported = {row["id"]: row for row in json.loads(cli("journal", "export", "--format",
                                                          "json").stdout)}  # fmt: skip
    assert exported[used.id]["details"] == {"free_challenge": grant_id}
    assert exported[grant_id]["kind"] == "free-challenge"
    assert effect(hall, used.id).penalty["waived"] is True


def test_a_grant_for_one_game_waits_for_that_game(rulebooks_hall):
    hall = rulebooks_hall
    kiosk = event(hall, "nsa-1998")
    grant = director_decisions.grant_free_challenge(
        hall.db, "nsa-1998-free", "Ann", "score written early", actor="td", station="td",
        round_no="2", table="05",
    )  # fmt: skip
    assert (grant.round, grant.table) == ("2", "05")
    elsewhere = hall.challenge(kiosk, GOOD, challenger="Ann", round="2", table="6")
    later = hall.challenge(kiosk, GOOD, challenger="Ann", round="3", table="5")
    assert elsewhere.detail("free_challenge") is None and later.detail("free_challenge") is None
    there = hall.challenge(kiosk, GOOD, challenger="Ann", round="2", table="5")  # '05' is '5'
    assert there.detail("free_challenge") == grant.id
    assert "in round 2 at table 05 costs nothing" in grant.consequence


def test_the_grant_goes_back_when_its_challenge_is_void_or_ruled_successful(rulebooks_hall):
    hall = rulebooks_hall
    kiosk = event(hall, "nsa-1998")
    grant = director_decisions.grant_free_challenge(
        hall.db, "nsa-1998-free", "Ann", "score written early", actor="td", station="td"
    )
    first = hall.challenge(kiosk, GOOD, challenger="Ann", **GAME)
    assert first.detail("free_challenge") == grant.id
    assert not grant_uses.open_grants(hall.db, "nsa-1998-free")
    voids.void(hall.db, first.id, "wrong table", actor="td", station="td")
    assert [g.id for g in grant_uses.open_grants(hall.db, "nsa-1998-free")] == [grant.id]
    second = hall.challenge(kiosk, GOOD, challenger="Ann", **GAME)
    assert second.detail("free_challenge") == grant.id
    record_ruling(hall.db, second.id, "unacceptable", "misread", actor="td", station="td")
    third = hall.challenge(kiosk, GOOD, challenger="Ann", **GAME)  # the grant is free again
    assert third.detail("free_challenge") == grant.id
    fourth = hall.challenge(kiosk, GOOD, challenger="Ann", **GAME)
    assert fourth.detail("free_challenge") is None


def test_a_ruling_that_makes_a_challenge_unsuccessful_uses_the_grant(rulebooks_hall):
    hall = rulebooks_hall
    kiosk = event(hall, "naspa")
    grant = director_decisions.grant_free_challenge(
        hall.db, "naspa-free", "Ann", "score written early", actor="td", station="td"
    )
    row = hall.challenge(kiosk, BAD, challenger="Ann", **GAME)  # successful as judged
    ruling = record_ruling(hall.db, row.id, "acceptable", "DOGX was DOGS on the board",
                           actor="td", station="td", words=["CAT", "DOGS"])  # fmt: skip
    assert ruling.detail("free_challenge") == grant.id
    found = effect(hall, row.id)
    assert found.verdict == "ACCEPTABLE" and costs_nothing(found.penalty)
    assert f"free challenge #{grant.id}" in found.consequence


def test_a_challenge_that_costs_nothing_anyway_leaves_the_grant(rulebooks_hall):
    """Under `single`, and for school rule 12's final play, an unsuccessful challenge is free
    already: the grant waits for one that would cost something."""
    hall = rulebooks_hall
    single = hall.event("single-free", "naspa", "NWL2023", "single")
    director_decisions.grant_free_challenge(
        hall.db, "single-free", "Ann", "score early", actor="td", station="td"
    )
    row = hall.challenge(single, GOOD, challenger="Ann", **GAME)
    assert row.detail("free_challenge") is None
    assert grant_uses.open_grants(hall.db, "single-free")
    school = event(hall, "school-2011")
    director_decisions.grant_free_challenge(
        hall.db, "school-2011-free", "Ann", "score early", actor="td", station="td"
    )
    final = hall.challenge(school, GOOD, challenger="Ann", final_play=True, **GAME)
    assert final.detail("free_challenge") is None and "school rule 12" in final.consequence
    later = hall.challenge(school, GOOD, challenger="Ann", **GAME)
    assert later.detail("final_play") is None and later.detail("free_challenge") is not None


def test_it_still_counts_as_an_unsuccessful_challenge_under_dingle(rulebooks_hall):
    """Only its penalty is free: the rules that count a player's unsuccessful challenges count
    it (as the director's waiver is counted)."""
    hall = rulebooks_hall
    kiosk = hall.event("dingle-free", "naspa", "NWL2023", "5-then-10")
    grant = director_decisions.grant_free_challenge(
        hall.db, "dingle-free", "Ann", "score early", actor="td", station="td"
    )
    first = hall.challenge(kiosk, GOOD, challenger="Ann", **GAME)
    assert first.detail("free_challenge") == grant.id and costs_nothing(first.penalty_numbers())
    second = hall.challenge(kiosk, GOOD, challenger="Ann", **GAME)
    assert second.penalty_numbers()["points_to_player"] == 10  # the second: 10, not 5


def test_tsh_names_the_player_in_a_linked_tournament(rulebooks_hall, rulebooks_cli, tmp_path):
    hall, cli = rulebooks_hall, rulebooks_cli
    kiosk = event(hall, "nsa-1998")
    made = tsh_files.make_event({"A": 8}, 3, 2)
    links.link(hall.db, "nsa-1998-free", str(
        tsh_files.write_tourney_js(tmp_path / "html" / "tourney.js", made)))  # fmt: skip
    last, first = tsh_files.seated(made, "A", 3, 1)[0].split(", ")
    out = cli("free-challenge", "--tournament", "nsa-1998-free", "--to", f"{first} {last}",
              "--round", "3", "--table", "1", "--reason", "score early")  # fmt: skip
    assert out.exit_code == 0, out.stderr
    grant = journal.get(hall.db, journal.newest_id(hall.db))
    assert grant.challenger == f"{last}, {first}" and grant.players  # as TSH names them
    row = hall.challenge(kiosk, GOOD, challenger=f"{last.upper()}, {first}", round="3",
                         table="1")  # fmt: skip
    assert row.detail("free_challenge") == grant.id
    other = cli("free-challenge", "--tournament", "nsa-1998-free", "--to", "Nobody Here",
                "--round", "3", "--table", "1", "--reason", "score early")  # fmt: skip
    assert other.exit_code == 2 and "is not playing at table 1 in round 3" in other.stderr


@pytest.mark.parametrize(
    "args, said",
    [
        (("--tournament", "nope", "--to", "Ann", "--reason", "early"), "No tournament 'nope'"),
        (("--tournament", "nsa-1998-free", "--to", "Ann", "--reason", "x"), "Give the reason"),
        (("--tournament", "nsa-1998-free", "--to", "A" * 41, "--reason", "early"), "40"),
        (("--tournament", "nsa-1998-free", "--to", "Ann\u200b", "--reason", "early"), "player"),
        (("--tournament", "nsa-1998-free", "--to", "Ann", "--table", "=1+1\u0000",
          "--reason", "early"), "table"),
    ],
)  # fmt: skip
def test_refusals_exit_2_and_record_nothing(rulebooks_hall, rulebooks_cli, args, said):
    event(rulebooks_hall, "nsa-1998")
    newest = journal.newest_id(rulebooks_hall.db)
    out = rulebooks_cli("free-challenge", *args)
    assert out.exit_code == 2 and out.stdout == "" and "Traceback" not in out.stderr
    assert said in out.stderr
    assert journal.newest_id(rulebooks_hall.db) == newest


def test_the_directors_decisions_page_grants_one(rulebooks_hall):
    hall = rulebooks_hall
    kiosk = event(hall, "wespa")
    director = hall.director()
    page = press(director, "/director/decisions", "/director/decisions/free-challenge",
                 {"tournament": "wespa-free", "to": "Ann", "round": "2", "table": "5",
                  "reason": "opponent wrote the score first"})  # fmt: skip
    assert "granted: The director grants Ann a free challenge (at the director&#39;s " \
        "discretion, WESPA 6.1.2(e))" in page  # fmt: skip
    assert 'id="open-grants"' in page and "wespa-free · Ann" in page
    used = hall.challenge(kiosk, GOOD, challenger="Ann", **GAME)
    assert used.detail("free_challenge") is not None
    refused = press(director, "/director/decisions", "/director/decisions/free-challenge",
                    {"tournament": "wespa-free", "to": "", "reason": "early"})  # fmt: skip
    assert "Name the player who gets the free challenge" in refused


def test_the_kiosk_says_the_free_challenge_in_its_language(rulebooks_hall):
    hall = rulebooks_hall
    kiosk = event(hall, "nsa-1998")
    director_decisions.grant_free_challenge(
        hall.db, "nsa-1998-free", "Ann", "score early", actor="td", station="td"
    )
    browser = hall.kiosk_browser(kiosk)
    answer = browser.post("/api/v1/adjudications", json={"words": GOOD, "challenger": "Ann",
                          **GAME}, headers={"Accept-Language": "pl"}).get_json()  # fmt: skip
    assert answer["penalty"]["waived"] is True
    used = journal.get(hall.db, answer["id"]).detail("free_challenge")
    assert answer["shown"]["consequence"] == (
        f"Sprawdzenie bez kary #{used}, przyznane przez sędziego głównego (NSA VI.C): bez kary "
        "dla żadnego z graczy."
    )
    assert kiosks.get(hall.db, kiosk.kiosk.name).tournament == "nsa-1998-free"
