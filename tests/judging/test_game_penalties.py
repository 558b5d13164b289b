"""WESPA 3.10.15(c): the penalty systems that count the challenger's earlier unsuccessful
challenges in the same game, counted from the journal, on SQLite and on PostgreSQL.

A game is tournament + round + table; the challenger is named. The count is taken inside the
append transaction under the chain lock: it survives restarts, holds across several servers,
and two challenges recorded at once are never both the first.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.judging.corrections import voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.judging.game import GameDetailsRequired, canonical, earlier_unsuccessful
from adjudicator.record.backends import connect
from adjudicator.record.journal import journal

from support.hall import build_store

GOOD, BAD = ["QI", "ZA"], ["QI", "QX"]  # an unsuccessful challenge, and a successful one
GAME = {"round": "3", "table": "12"}


class Club:
    """A hall on one journal database with one tournament per rule and a kiosk for each."""

    def __init__(self, root: Path, url: str):
        self.url = url
        self.store = build_store(root / "lexicons")
        self.hall = self.open_hall()
        self.hall.upgrade()
        for rule in ("dingle", "5-then-10", "escalating", "5-per-word"):
            tournaments.create(self.hall.db, self.store, rule, "TINY-NWL", rule, rule)
            kiosks.add(self.hall.db, f"tablet-{rule}", rule)

    def open_hall(self) -> Hall:
        """Another server on the same journal: its own connection and group committer."""
        return Hall(self.store, connect(self.url), rate_limit=None)

    def challenge(self, rule: str, words, challenger="Ann", hall: Hall | None = None, **game):
        kiosk = kiosks.get(self.hall.db, f"tablet-{rule}")
        details = {**GAME, **game}
        return (hall or self.hall).adjudicate(kiosk, words, challenger=challenger, **details)


@pytest.fixture
def club(db_url, tmp_path) -> Club:
    made = Club(tmp_path, db_url)
    yield made
    made.hall.db.close()


def points(entry) -> int:
    return entry.penalty_numbers()["points_to_player"]


def test_wespa_3_10_15_c_i_dingle_counts_per_challenger_and_game(club):
    first = club.challenge("dingle", GOOD)
    assert first.penalty_numbers() == {
        "play_stands": True,
        "points_to_player": 0,
        "challenger_loses_turn": False,
        "points_to_challenger": 0,
    }
    assert "first unsuccessful challenge in this game: no penalty" in first.consequence
    second = club.challenge("dingle", GOOD)
    assert second.penalty_numbers()["challenger_loses_turn"] is True
    assert "2nd unsuccessful challenge in this game: the challenger loses" in second.consequence
    # the opponent, another table, another round: each is a fresh count
    for other in (
        club.challenge("dingle", GOOD, challenger="Bob"),
        club.challenge("dingle", GOOD, table="13"),
        club.challenge("dingle", GOOD, round="4"),
    ):
        assert other.penalty_numbers()["challenger_loses_turn"] is False
    assert club.challenge("dingle", GOOD).penalty_numbers()["challenger_loses_turn"] is True


def test_wespa_3_10_15_a_a_successful_challenge_is_not_counted(club):
    """Only unsuccessful challenges count: one that takes the play off costs nothing."""
    taken_off = club.challenge("5-then-10", BAD)
    assert taken_off.verdict == "UNACCEPTABLE" and points(taken_off) == 0
    assert points(club.challenge("5-then-10", GOOD)) == 5
    assert points(club.challenge("5-then-10", BAD)) == 0
    assert points(club.challenge("5-then-10", GOOD)) == 10
    assert points(club.challenge("5-then-10", GOOD)) == 10


def test_wespa_3_10_15_c_iii_escalating_5_5_10_20_30_30(club):
    charged = [points(club.challenge("escalating", GOOD)) for _ in range(7)]
    assert charged == [5, 5, 10, 20, 30, 30, 30]


def test_game_names_compare_in_one_form(club):
    """`ann` is `ANN`, table `012` is `12`: a typing difference makes no new game."""
    club.challenge("dingle", GOOD, challenger="  Ann ")
    again = club.challenge("dingle", GOOD, challenger="ANN", table="012", round=" 3")
    assert again.penalty_numbers()["challenger_loses_turn"] is True
    assert (again.challenger, again.table, again.round) == ("ANN", "12", "3")
    assert canonical("ann  lee") == "ANN LEE" and canonical("07") == "7"
    assert canonical("²") == "²" and canonical("٣") == "3"  # a superscript is no number


@pytest.mark.parametrize("missing", ["round", "table", "challenger"])
def test_the_counting_rules_refuse_a_challenge_without_its_game(club, missing):
    kiosk = kiosks.get(club.hall.db, "tablet-dingle")
    details = {"round": "1", "table": "2", "challenger": "Ann", missing: None}
    with pytest.raises(GameDetailsRequired, match=f"give the {missing}"):
        club.hall.adjudicate(kiosk, GOOD, **details)
    assert journal.get(club.hall.db, 1) is None  # nothing judged, nothing recorded


def test_a_standard_rule_needs_no_game(club):
    kiosk = kiosks.get(club.hall.db, "tablet-5-per-word")
    entry = club.hall.adjudicate(kiosk, GOOD)
    assert points(entry) == 10 and entry.round is None


def test_the_count_survives_a_restart_and_holds_across_servers(club):
    club.challenge("dingle", GOOD)
    club.hall.db.close()
    restarted = club.open_hall()  # a new process would open the journal just like this
    other_server = club.open_hall()
    second = club.challenge("dingle", GOOD, hall=restarted)
    third = club.challenge("dingle", GOOD, hall=other_server)
    assert "2nd unsuccessful" in second.consequence and "3rd unsuccessful" in third.consequence
    restarted.db.close()
    other_server.db.close()


def test_concurrent_challenges_in_one_game_are_never_both_the_first(club):
    """Eight servers record a challenge in the same game at the same moment: the counts are
    1st to 8th, each once, in journal order."""
    servers = [club.open_hall() for _ in range(8)]
    start = threading.Barrier(len(servers))
    results, errors = [], []

    def challenge(hall):
        try:
            start.wait(10)
            results.append(club.challenge("escalating", GOOD, hall=hall))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=challenge, args=(hall,)) for hall in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors
    by_id = sorted(results, key=lambda e: e.id)
    assert [points(e) for e in by_id] == [5, 5, 10, 20, 30, 30, 30, 30]
    ordinals = [e.consequence.split("challenger's ")[1].split(" ")[0] for e in by_id]
    assert ordinals == ["first", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th"]
    assert journal.verify(club.hall.db).ok
    for hall in servers:
        hall.db.close()


def test_concurrent_challenges_from_one_server_share_a_commit_and_still_count_in_order(club):
    start = threading.Barrier(6)
    results = []

    def challenge():
        start.wait(10)
        results.append(club.challenge("dingle", GOOD))

    threads = [threading.Thread(target=challenge) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    loses = [
        e.penalty_numbers()["challenger_loses_turn"] for e in sorted(results, key=lambda e: e.id)
    ]
    assert loses == [False, True, True, True, True, True]


# ---------- a challenge counts by its effective outcome ----------


def test_nsa_iv_i_2_a_void_challenge_does_not_count(club):
    """A challenge withdrawn "with no penalty to either player" is no unsuccessful challenge."""
    withdrawn = club.challenge("dingle", GOOD)
    voids.void(club.hall.db, withdrawn.id, "blank misunderstood", actor="td", station="director")
    assert "first unsuccessful" in club.challenge("dingle", GOOD).consequence


def test_wespa_3_10_12_a_reissued_challenge_counts_once(club):
    slip = club.challenge("dingle", GOOD)
    kiosk = kiosks.get(club.hall.db, "tablet-dingle")
    reissue = club.hall.adjudicate(kiosk, ["QI", "JO"], replaces=slip.id, challenger="Ann", **GAME)
    assert reissue.refers_to == slip.id
    assert "first unsuccessful" in reissue.consequence  # the slip it replaces does not count
    assert "2nd unsuccessful" in club.challenge("dingle", GOOD).consequence


def test_wespa_3_10_11_c_a_ruling_decides_how_a_challenge_counts(club):
    judged_good = club.challenge("dingle", GOOD)
    record_ruling(
        club.hall.db, judged_good.id, "unacceptable", "misadjudicated", actor="td", station="td"
    )
    assert "first unsuccessful" in club.challenge("dingle", GOOD).consequence  # no longer counts
    judged_bad = club.challenge("5-then-10", BAD)
    record_ruling(
        club.hall.db, judged_bad.id, "acceptable", "slip miscopied", actor="td", station="td"
    )
    assert points(club.challenge("5-then-10", GOOD)) == 10  # the ruled one is the first


def test_a_ruling_counts_only_the_challenges_before_the_one_it_rules_on(club):
    first = club.challenge("escalating", GOOD)
    club.challenge("escalating", GOOD)
    club.challenge("escalating", GOOD)
    ruling = record_ruling(
        club.hall.db, first.id, "acceptable", "confirmed on review", actor="td", station="td"
    )
    assert points(ruling) == 5 and "first unsuccessful" in ruling.consequence


# ---------- the count is one index seek ----------


def test_the_count_uses_the_game_index(club):
    with club.hall.db.transaction() as cur:
        if club.hall.db.backend == "sqlite":
            plan = cur.execute(
                "EXPLAIN QUERY PLAN SELECT COUNT(*) FROM adjudications AS c WHERE "
                "c.tournament = ? AND c.round_no = ? AND c.table_no = ? AND c.challenger = ? "
                "AND c.kind = 'challenge'",
                ("dingle", "3", "12", "ANN"),
            ).tuples()
            text = " ".join(str(part) for row in plan for part in row)
        else:
            cur.execute("SET LOCAL enable_seqscan = off")
            plan = cur.execute(
                "EXPLAIN SELECT COUNT(*) FROM adjudications AS c WHERE c.tournament = 'x' AND "
                "c.round_no = '3' AND c.table_no = '12' AND c.challenger = 'ANN' "
                "AND c.kind = 'challenge'"
            ).tuples()
            text = " ".join(str(row[0]) for row in plan)
        assert "adjudications_by_game" in text
        assert earlier_unsuccessful(cur, "dingle", "3", "12", "ANN") == 0


def test_the_look_up_flags_use_their_index(club):
    """The director's list of possible separate look-ups (NASPA 6.2) is one seek, too."""
    sql = "SELECT * FROM adjudications WHERE flag = 'separate-lookup' ORDER BY id DESC LIMIT 50"
    with club.hall.db.transaction() as cur:
        if club.hall.db.backend == "sqlite":
            rows = cur.execute("EXPLAIN QUERY PLAN " + sql).tuples()
            text = " ".join(str(part) for row in rows for part in row)
        else:
            cur.execute("SET LOCAL enable_seqscan = off")
            text = " ".join(str(row[0]) for row in cur.execute("EXPLAIN " + sql).tuples())
    assert "adjudications_by_flag" in text


# ---------- the command line in another process: the same journal, the same count ----------


def test_judge_tournament_in_separate_processes_continues_the_count(tmp_path, monkeypatch):
    home = tmp_path / "home"
    env = {"ADJUDICATOR_HOME": str(home), "PATH": "/usr/bin:/bin"}
    build_store(home / "lexicons")

    def cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "adjudicator", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert (
        cli("tournament", "create", "club", "--lexicon", "TINY-NWL", "--rule", "dingle").returncode
        == 0
    )
    game = ("--round", "1", "--table", "5", "--challenger", "Ann")
    first = cli("judge", "--tournament", "club", *game, "QI")
    second = cli("judge", "--tournament", "club", *game, "ZA")
    assert first.returncode == second.returncode == 0
    assert "first unsuccessful challenge in this game: no penalty" in first.stdout
    assert "2nd unsuccessful challenge in this game: the challenger loses" in second.stdout
