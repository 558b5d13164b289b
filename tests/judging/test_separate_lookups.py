"""NASPA 6.2, "Improper Lookups" (issue 11, item 9): one play's words looked up in parts.

"If you are challenging more than one word and you enter them separately ... If it was solely
your error and the word is invalid, you lose 10 points." Two challenges from one kiosk within
ADJUDICATOR_SEPARATE_LOOKUP_SECONDS at the same table and round are flagged to the director
(never shown to the players), who may record the 10 points as a ruling. Issue 20, item 8: only
where NASPA 6.2 applies (the tournament's rulebook is `naspa`) and the table is known; the
director may dismiss a flag with a reason; void ones leave the list.
"""

from __future__ import annotations

import json
import time

import pytest

from adjudicator.hall import tournaments
from adjudicator.judging import director_flags, lookups
from adjudicator.judging.corrections import voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.judging.corrections.second_opinion import SecondOpinionRefused
from adjudicator.record.journal import journal

from support.director import page_after, ruling
from support.hall import NWL

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


@pytest.fixture
def staffed(staffed):
    """The NWL division under the NASPA rulebook (NASPA 6.2 applies there only)."""
    tournaments.update(
        staffed.db, staffed.setup.store, NWL, rulebook="naspa", off_rulebook="a tiny test list"
    )
    return staffed


GAME = {"table": "7", "round": "2"}


def refused_lookup_ruling(staffed, entry_id: int, verdict: str, match: str) -> None:
    """A ruling with the NASPA 6.2 penalty is refused (`match`), and nothing is recorded."""
    with pytest.raises(SecondOpinionRefused, match=match):
        record_ruling(
            staffed.db,
            entry_id,
            verdict,
            "one play in two parts",
            actor="td",
            station="td",
            improper_lookup=True,
        )
    assert journal.get(staffed.db, entry_id + 1) is None


def test_naspa_6_2_the_second_part_is_flagged_for_the_director(staffed):
    first = staffed.challenge(["QI"], **GAME)
    second = staffed.challenge(["ZAX"], **GAME)
    assert first.flag is None and first.note is None
    assert second.flag == lookups.FLAG
    assert second.note.startswith(
        f"possible improper separate look-up (NASPA 6.2): #{first.id} came from this kiosk"
    )
    assert second.note.endswith("s earlier (table 7, round 2)")
    assert "QI" not in second.note and "ZAX" not in second.note  # it names rows, never words
    assert [e.id for e in lookups.flagged(staffed.db)] == [second.id]


def test_the_players_see_nothing_of_the_flag(staffed):
    browser = staffed.kiosk_browser()
    first = browser.post("/api/v1/adjudications", json={"words": ["QI"], **GAME}).get_json()
    second = browser.post("/api/v1/adjudications", json={"words": ["ZA"], **GAME}).get_json()
    assert set(first) == set(second)
    assert "flag" not in second and "note" not in second
    assert "look-up" not in json.dumps(second)


@pytest.mark.parametrize(
    "other",
    [{"table": "8", "round": "2"}, {"table": "7", "round": "3"}, {}],
    ids=["another table", "another round", "no table given"],
)
def test_other_games_are_not_flagged(staffed, other):
    staffed.challenge(["QI"], **GAME)
    assert staffed.challenge(["ZA"], **other).flag is None


def test_another_kiosk_is_not_flagged(staffed):
    staffed.challenge(["QI"], **GAME)
    assert staffed.challenge(["CH"], enrolment=staffed.setup.csw, **GAME).flag is None


def test_naspa_6_2_only_where_the_table_is_known(staffed):
    """A kiosk told no table may serve several tables (a shared computer): never flagged."""
    staffed.challenge(["QI"])
    assert staffed.challenge(["ZA"]).flag is None
    staffed.challenge(["QI"], round="2")
    assert staffed.challenge(["ZA"], round="2").flag is None


@pytest.mark.parametrize("book", [None, "wespa", "nsa-1998", "school-2011", "msa"])
def test_naspa_6_2_is_naspas_only(staffed, book):
    """No look-up flag and no 10-point penalty at an event under another rulebook (or none)."""
    off = "a tiny test list" if book else None
    tournaments.update(
        staffed.db, staffed.setup.store, NWL, rulebook=book or "none", off_rulebook=off
    )
    staffed.challenge(["QI"], **GAME)
    second = staffed.challenge(["ZAX"], **GAME)
    assert second.flag is None
    refused_lookup_ruling(staffed, second.id, "unacceptable", "not under the naspa rulebook")


def test_two_tournaments_challenges_are_never_linked(staffed):
    """A kiosk moved to another tournament: its earlier challenge is another event's."""
    from adjudicator.hall import kiosks

    staffed.challenge(["QI"], **GAME)
    kiosks.move(staffed.db, staffed.setup.nwl.kiosk.name, "spring-csw")
    tournaments.update(
        staffed.db, staffed.setup.store, "spring-csw", rulebook="naspa", off_rulebook="tiny list"
    )
    assert staffed.challenge(["CH"], **GAME).flag is None


def test_a_void_or_dismissed_flag_leaves_the_list_and_the_overview_counts_the_rest(staffed):
    from adjudicator.hall.director import hall_status

    staffed.challenge(["QI"], **GAME)
    second = staffed.challenge(["ZA"], **GAME)
    third = staffed.challenge(["JO"], **GAME)
    assert [e.id for e in director_flags.separate_lookups(staffed.db)] == [third.id, second.id]
    assert hall_status.build(staffed.setup.hall).other_flags == 2
    voids.void(staffed.db, third.id, "entered by mistake", actor="td", station="td")
    assert [e.id for e in director_flags.separate_lookups(staffed.db)] == [second.id]
    with pytest.raises(Exception, match="Give the reason"):
        director_flags.dismiss(staffed.db, second.id, "", actor="td")
    which = director_flags.dismiss(staffed.db, second.id, "two plays, not one", actor="td")
    assert which == "separate-lookup"
    assert director_flags.separate_lookups(staffed.db) == []
    assert hall_status.build(staffed.setup.hall).other_flags == 0
    with pytest.raises(director_flags.DismissRefused, match="no open flag"):
        director_flags.dismiss(staffed.db, second.id, "again", actor="td")


def test_the_window_is_a_setting(staffed, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_SEPARATE_LOOKUP_SECONDS", "1")
    staffed.challenge(["QI"], **GAME)
    time.sleep(1.2)
    assert staffed.challenge(["ZA"], **GAME).flag is None
    monkeypatch.setenv("ADJUDICATOR_SEPARATE_LOOKUP_SECONDS", "0")  # off
    assert staffed.challenge(["JO"], **GAME).flag is None


def test_naspa_6_2_the_director_records_the_10_points_as_a_ruling(staffed):
    first = staffed.challenge(["QI"], **GAME)
    second = staffed.challenge(["ZAX"], **GAME)
    ruling = record_ruling(
        staffed.db,
        second.id,
        "unacceptable",
        "QI and ZAX were one play, looked up in two parts",
        actor="td",
        station="td",
        words="QI ZAX",
        improper_lookup=True,
    )
    assert ruling.words == ("QI", "ZAX")
    assert ruling.consequence == (
        "The play comes off the board and scores zero. Improper separate look-ups "
        "(NASPA 6.2): the challenger loses 10 points."
    )
    assert ruling.penalty_numbers() == {
        "play_stands": False,
        "points_to_player": 0,
        "challenger_loses_turn": False,
        "points_to_challenger": -10,
    }
    assert ruling.note.endswith("[improper separate look-ups, NASPA 6.2]")
    assert first.id < second.id


def test_naspa_6_2_no_penalty_when_the_play_is_acceptable(staffed):
    """ "If it was solely your error and the word is invalid": no invalid word, no 10 points."""
    staffed.challenge(["QI"], **GAME)
    second = staffed.challenge(["ZA"], **GAME)
    refused_lookup_ruling(staffed, second.id, "acceptable", "only when the play is unacceptable")


def test_the_flags_page_lists_them_and_takes_the_ruling(staffed):
    staffed.challenge(["QI"], **GAME)
    second = staffed.challenge(["ZAX"], **GAME)
    director = staffed.director()
    page = director.get("/director/flags").get_data(as_text=True)
    assert f'id="lookup-{second.id}"' in page and "NASPA 6.2" in page
    text = page_after(
        director,
        f"/director/flags/{second.id}/ruling",
        {
            "verdict": "UNACCEPTABLE",
            "reason": "one play in two parts",
            "words": "QI ZAX",
            "improper_lookup": "1",
        },
        page="/director/flags",
    )
    assert "the challenger loses 10 points" in text
    # ruled: the card stays for the record, without a form
    assert f'action="/director/flags/{second.id}/ruling"' not in text


def test_cli_flags_lists_open_look_ups(run, home, staffed, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", staffed.db.url)
    monkeypatch.setenv("ADJUDICATOR_HOME", str(staffed.setup.store.root.parent))
    first = staffed.challenge(["QI"], **GAME)
    second = staffed.challenge(["ZAX"], **GAME)
    out = run("flags")
    assert out.exit_code == 0
    lines = out.stdout.splitlines()
    assert lines[0] == "No second opinion is waiting for a ruling."
    assert lines[1].startswith(f"#{second.id} | spring-nwl | kiosk table-1 table 7 round 2 | ")
    assert f"#{first.id} came from this kiosk" in lines[1]
    (item,) = json.loads(run("flags", "--json").stdout)
    assert (item["flag"], item["id"], item["table"], item["round"]) == (
        "separate-lookup",
        second.id,
        "7",
        "2",
    )
    ruled = ruling(
        run,
        second.id,
        "unacceptable",
        "one play in parts",
        "QI",
        "ZAX",
        flags=("--improper-lookup",),
    )
    assert ruled.exit_code == 0, ruled.stderr
    assert "the challenger loses 10 points" in ruled.stdout
    assert json.loads(run("flags", "--json").stdout) == []
