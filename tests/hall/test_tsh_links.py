"""A tournament linked to its TSH event: the link (refused whole, the previous link kept), the
games kept for the hall, a table's current round, and the follower that reads the source again
when it changes (one process, the last good pairings kept when a read fails)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from adjudicator.hall.tsh import follow, games, links, source
from adjudicator.hall.tsh.event import TshError

from support import tsh_files
from support.hall import NWL


@pytest.fixture
def hall(setup):
    return setup.hall


def event_file(tmp_path, made):
    return tsh_files.write_tourney_js(tmp_path / "event" / "html" / "tourney.js", made)


def linked(hall, tmp_path, made):
    """`made` written as TSH's tourney.js and linked to the NWL tournament; the file's path."""
    path = event_file(tmp_path, made)
    links.link(hall.db, NWL, str(path))
    return path


def next_round(made, path) -> None:
    """TSH pairs division A's next round and writes its tourney.js again."""
    tsh_files.pair_round(made, "A")
    tsh_files.write_tourney_js(path, made)


def test_link_keeps_the_games_and_says_what_it_linked(hall, tmp_path):
    made = tsh_files.make_event({"A": 8}, 4, 2)
    summary = links.link(hall.db, NWL, str(event_file(tmp_path, made)))
    assert summary.event_name == "Spring Open"
    (division,) = summary.divisions
    assert (division.name, division.players, division.rounds_paired, division.current_round) == (
        "A",
        8,
        4,
        3,
    )
    assert summary.games == 16
    shown = games.show(hall.db, NWL, 3)
    assert [g.table for g in shown] == ["1", "2", "3", "4"]
    assert [s.name for s in shown[0].seats] == tsh_files.seated(made, "A", 3, 1)


def test_a_tables_current_round_is_the_earliest_unscored_then_the_latest(hall, tmp_path):
    made = tsh_files.make_event({"A": 6}, 5, 2)
    path = linked(hall, tmp_path, made)
    assert games.current_game(hall.db, NWL, "1").round == 3  # paired ahead to round 5
    assert games.current_game(hall.db, NWL, "01").round == 3  # '01' is table 1
    assert games.game_at(hall.db, NWL, "5", "2").round == 5
    assert games.game_at(hall.db, NWL, "six", "2") is None
    for round_number in (3, 4, 5):
        tsh_files.score_round(made, "A", round_number)
    tsh_files.write_tourney_js(path, made)
    links.link(hall.db, NWL, str(path))
    assert games.current_game(hall.db, NWL, "1").round == 5
    assert games.current_game(hall.db, NWL, "9") is None  # no such board
    assert games.current_game(hall.db, NWL, None) is None


def test_several_divisions_need_tsh_tables_map(hall, tmp_path):
    plain = tsh_files.make_event({"A": 4, "B": 4}, 2, 1)
    with pytest.raises(TshError, match=r"--division A.*config tables"):
        links.link(hall.db, NWL, str(event_file(tmp_path, plain)))
    summary = links.link(hall.db, NWL, str(event_file(tmp_path, plain)), ["b"])
    assert [d.name for d in summary.divisions] == ["B"]
    mapped = tsh_files.make_event({"A": 4, "B": 4}, 2, 1, tables={"A": [1, 2], "B": [3, 4]})
    summary = links.link(hall.db, NWL, str(event_file(tmp_path, mapped)))
    assert [d.name for d in summary.divisions] == ["A", "B"]
    assert {g.table: g.division for g in games.show(hall.db, NWL, 1)} == {
        "1": "A",
        "2": "A",
        "3": "B",
        "4": "B",
    }


def test_two_games_at_one_table_are_refused(hall, tmp_path):
    clash = tsh_files.make_event({"A": 4, "B": 4}, 1, 0, tables={"A": [1, 2], "B": [2, 3]})
    with pytest.raises(TshError, match="two games at table 2"):
        links.link(hall.db, NWL, str(event_file(tmp_path, clash)))


@pytest.mark.parametrize(
    "source, says",
    [
        ("nowhere/tourney.js", "no file or folder"),
        ("ftp://example.org/tourney.js", "not an http"),
        ("", "Give TSH's tourney.js"),
    ],
)
def test_a_bad_source_changes_nothing(hall, tmp_path, source, says):
    made = tsh_files.make_event({"A": 4}, 2, 1)
    linked(hall, tmp_path, made)
    before = (links.get(hall.db, NWL), games.show(hall.db, NWL))
    with pytest.raises(TshError, match=says):
        links.link(hall.db, NWL, str(tmp_path / source) if source.startswith("no") else source)
    assert (links.get(hall.db, NWL), games.show(hall.db, NWL)) == before


def test_a_damaged_file_or_a_missing_division_changes_nothing(hall, tmp_path):
    made = tsh_files.make_event({"A": 4}, 2, 1)
    good = linked(hall, tmp_path, made)
    before = (links.get(hall.db, NWL), games.show(hall.db, NWL))
    cut = tmp_path / "cut.js"
    cut.write_bytes(good.read_bytes()[:200])
    with pytest.raises(TshError, match="ends early"):
        links.link(hall.db, NWL, str(cut))
    with pytest.raises(TshError, match="no division 'Z'"):
        links.link(hall.db, NWL, str(good), ["Z"])
    assert (links.get(hall.db, NWL), games.show(hall.db, NWL)) == before


def test_unlink_takes_the_games_away(hall, tmp_path):
    links.link(hall.db, NWL, str(event_file(tmp_path, tsh_files.make_event({"A": 4}, 1, 0))))
    assert links.unlink(hall.db, NWL) is True
    assert links.get(hall.db, NWL) is None and games.show(hall.db, NWL) == []
    assert links.unlink(hall.db, NWL) is False


# --- following the source ----------------------------------------------------------------------


def test_a_rewritten_file_is_read_again_by_one_follower(hall, tmp_path):
    made = tsh_files.make_event({"A": 6}, 2, 2)
    path = linked(hall, tmp_path, made)
    one, two = follow.Follower(hall.db, 1, 30), follow.Follower(hall.db, 1, 30)
    assert one.run_once() == {} and two.run_once() == {}  # nothing changed
    assert games.current_game(hall.db, NWL, "1").round == 2
    next_round(made, path)
    assert one.run_once() == {NWL: "updated"}
    assert two.run_once() == {}  # the change was read once, by the first to claim it
    assert games.current_game(hall.db, NWL, "1").round == 3


def test_a_failed_read_keeps_the_last_good_pairings_and_says_since_when(hall, tmp_path):
    made = tsh_files.make_event({"A": 6}, 3, 1)
    path = linked(hall, tmp_path, made)
    shown = games.show(hall.db, NWL)
    follower = follow.Follower(hall.db, 1, 0)
    path.write_bytes(path.read_bytes()[:300])  # TSH caught mid-write
    assert follower.run_once() == {NWL: "failed"}
    failed = links.get(hall.db, NWL)
    assert "ends early" in failed.failure and failed.failed_since
    assert games.show(hall.db, NWL) == shown
    path.unlink()
    assert follower.run_once() == {NWL: "failed"}
    assert links.get(hall.db, NWL).failed_since == failed.failed_since  # since the first
    tsh_files.write_tourney_js(path, made)
    assert follower.run_once() == {NWL: "unchanged"}
    assert links.get(hall.db, NWL).failure is None


def test_a_read_claimed_and_never_stored_is_read_again(hall, tmp_path):
    made = tsh_files.make_event({"A": 6}, 2, 2)
    path = linked(hall, tmp_path, made)
    assert not links.get(hall.db, NWL).unfinished
    next_round(made, path)
    stamp = source.file_stamp(source.parse(str(path)))
    assert links.claim(hall.db, links.get(hall.db, NWL), stamp)  # its process dies here
    assert links.get(hall.db, NWL).unfinished
    assert follow.Follower(hall.db, 1, 30).run_once() == {}  # not yet: 30 s after the claim
    assert follow.Follower(hall.db, 1, 0).run_once() == {NWL: "updated"}
    assert not links.get(hall.db, NWL).unfinished
    assert games.current_game(hall.db, NWL, "1").round == 3


def test_an_event_folder_is_followed_through_its_t_files(hall, tmp_path):
    made = tsh_files.make_event({"A": 6}, 2, 2)
    folder = tsh_files.write_folder(tmp_path / "event", made)
    links.link(hall.db, NWL, str(folder))
    assert links.get(hall.db, NWL).kind == "folder"
    tsh_files.pair_round(made, "A")
    tsh_files.write_folder(folder, made)
    assert follow.Follower(hall.db, 1, 30).run_once() == {NWL: "updated"}
    assert games.current_game(hall.db, NWL, "2").round == 3


def test_a_relink_during_a_read_wins(hall, tmp_path):
    made = tsh_files.make_event({"A": 6}, 2, 2)
    path = linked(hall, tmp_path, made)
    found = links.get(hall.db, NWL)
    mark = links.claim(hall.db, found, "new stamp")
    links.link(hall.db, NWL, str(path))  # the director links again meanwhile
    reading = source.read(source.parse(str(path)))
    assert links.store_reading(hall.db, found, mark, reading) == "superseded"
    assert links.claim(hall.db, found, None) is None  # an old claim is taken no more


@pytest.fixture
def published():
    served = tsh_files.TourneyJsServer(tsh_files.tourney_js(tsh_files.make_event({"A": 6}, 2, 2)))
    yield served
    served.close()


def test_a_url_is_asked_with_its_etag_and_a_new_round_is_read(hall, published):
    links.link(hall.db, NWL, published.url)
    assert json.loads(links.get(hall.db, NWL).stamp)["etag"]
    follower = follow.Follower(hall.db, 1, 0)
    assert follower.run_once() == {NWL: "unchanged"}
    assert published.requests[-1].get("If-None-Match")  # answered 304
    made = tsh_files.make_event({"A": 6}, 2, 2)
    tsh_files.pair_round(made, "A")
    published.body = tsh_files.tourney_js(made)
    assert follower.run_once() == {NWL: "updated"}
    assert games.current_game(hall.db, NWL, "1").round == 3


def test_a_url_is_asked_only_when_due_and_by_one_process(hall, published):
    links.link(hall.db, NWL, published.url)
    asked = len(published.requests)
    for _ in range(3):  # three workers, none due: the URL is left alone
        assert follow.Follower(hall.db, 1, 30).run_once() == {}
    assert len(published.requests) == asked
    seen = links.get(hall.db, NWL)  # what every worker read before claiming
    marks: list = []
    workers = [
        threading.Thread(target=lambda: marks.append(links.claim(hall.db, seen, None)))
        for _ in range(6)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len([mark for mark in marks if mark]) == 1  # one claim lands; that one reads


def test_a_url_that_fails_keeps_the_pairings(hall, published):
    links.link(hall.db, NWL, published.url)
    shown = games.show(hall.db, NWL)
    published.body = b"<html>gateway timeout</html>"
    assert follow.Follower(hall.db, 1, 0).run_once() == {NWL: "failed"}
    assert "not TSH's tourney.js" in links.get(hall.db, NWL).failure
    assert games.show(hall.db, NWL) == shown
    published.close()
    assert follow.Follower(hall.db, 1, 0).run_once() == {NWL: "failed"}
    assert "Cannot fetch" in links.get(hall.db, NWL).failure


def test_a_url_too_large_or_redirected_off_the_web_is_refused(hall, published, monkeypatch):
    monkeypatch.setattr(source, "MAX_BYTES", 1000)
    with pytest.raises(TshError, match="larger than 1000 bytes"):
        links.link(hall.db, NWL, published.url)
    monkeypatch.undo()

    class Redirect(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(302)
            self.send_header("Location", "ftp://127.0.0.1/tourney.js")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(TshError, match="not an http"):
            links.link(hall.db, NWL, f"http://127.0.0.1:{server.server_address[1]}/t.js")
    finally:
        server.shutdown()
        server.server_close()
    assert links.get(hall.db, NWL) is None
