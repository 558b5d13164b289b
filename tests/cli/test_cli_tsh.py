"""`adjudicator tsh link / show / unlink`: a tournament linked to TSH's tourney.js, event
folder or URL; what it prints; exit 2 and no change on bad input; and a real server (two
workers) following a URL with its ETag, one process asking, a new round reaching the API."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from support import tsh_files
from support.servers import Server, cli, prepare_home


@pytest.fixture
def linked_home(run, tiny, tmp_path):
    assert (
        run("tournament", "create", "open", "--lexicon", "TINY", "--rule", "double").exit_code == 0
    )
    made = tsh_files.make_event({"A": 7, "B": 6}, 4, 2, tables={"A": [1, 2, 3], "B": [4, 5, 6]})
    folder = tsh_files.write_folder(tmp_path / "event", made)
    tsh_files.write_tourney_js(folder / "html" / "tourney.js", made)
    return made, folder


def test_link_prints_the_event_divisions_players_rounds_and_current_round(run, linked_home):
    made, folder = linked_home
    outcome = run("tsh", "link", "open", str(folder / "html" / "tourney.js"))
    assert outcome.exit_code == 0, outcome.stderr
    assert outcome.stdout.splitlines() == [
        f"Linked open to Spring Open ({folder / 'html' / 'tourney.js'}).",
        "Division A: 7 players, 4 round(s) paired, current round 3.",
        "Division B: 6 players, 4 round(s) paired, current round 3.",
        "24 game(s) linked.",
    ]


def test_an_event_folder_links_too_and_one_division_alone(run, linked_home):
    made, folder = linked_home
    outcome = run("tsh", "link", "open", str(folder), "--division", "b")
    assert outcome.exit_code == 0, outcome.stderr
    assert "Division B: 6 players" in outcome.stdout and "Division A" not in outcome.stdout


def test_show_lists_the_games_first_player_first(run, linked_home):
    made, folder = linked_home
    run("tsh", "link", "open", str(folder))
    text = run("tsh", "show", "open", "--round", "3").stdout
    first, second = tsh_files.seated(made, "B", 3, 1)
    assert "B  round 3  table 4:  #" in text and f"{first}  v  #" in text and second in text
    assert "[not scored]" in text
    games = json.loads(run("tsh", "show", "open", "--round", "3", "--json").stdout)
    assert len(games) == 6
    at_four = next(g for g in games if g["table"] == "4")
    assert at_four["division"] == "B" and at_four["round"] == 3
    assert [p["name"] for p in at_four["players"]] == [first, second]
    assert [p["first"] for p in at_four["players"]] == [True, False]
    assert set(at_four["players"][0]) == {"id", "name", "first"}
    everything = json.loads(run("tsh", "show", "open", "--all", "--json").stdout)
    assert len(everything) == 24


def test_a_cross_tables_suffix_is_the_players_id_not_their_name(run, linked_home, tmp_path):
    made = tsh_files.make_event(
        {"A": 4},
        1,
        0,
        names={"A": ["Tunnicliffe, Matthew:XT017175", "Lee, Ann", "Park, Ben", "Xu, Wei"]},
    )
    run("tsh", "link", "open", str(tsh_files.write_tourney_js(tmp_path / "t.js", made)))
    players = [
        p for g in json.loads(run("tsh", "show", "open", "--json").stdout) for p in g["players"]
    ]
    matthew = next(p for p in players if p["id"] == 1)
    assert matthew == {
        "id": 1,
        "name": "Tunnicliffe, Matthew",
        "first": matthew["first"],
        "xtid": "XT017175",
    }
    assert "XT" not in run("tsh", "show", "open").stdout


@pytest.mark.parametrize(
    "args, says",
    [
        (("tsh", "link", "open", "/no/such/tourney.js"), "no file or folder"),
        (("tsh", "link", "nope", "EVENT"), "No tournament 'nope'"),
        (("tsh", "link", "open", "EVENT", "--division", "Q"), "no division 'Q'"),
        (("tsh", "link", "open", "NOT_TSH"), "not TSH's tourney.js"),
        (("tsh", "link", "open", "CUT"), "ends early"),
        (("tsh", "link", "open", "PLAIN_TWO"), "maps no tables"),
        (("tsh", "show", "open", "--round", "0"), "Invalid value"),
    ],
)
def test_bad_input_exits_2_saying_why_and_the_previous_link_stays(
    run, linked_home, tmp_path, args, says
):
    made, folder = linked_home
    run("tsh", "link", "open", str(folder), "--division", "A")
    before = run("tsh", "show", "open", "--json").stdout
    (tmp_path / "not-tsh.js").write_text('{"divisions": []}')
    js = (folder / "html" / "tourney.js").read_bytes()
    (tmp_path / "cut.js").write_bytes(js[: len(js) // 2])
    tsh_files.write_tourney_js(tmp_path / "two.js", tsh_files.make_event({"A": 4, "B": 4}, 1, 0))
    named = {
        "EVENT": str(folder),
        "NOT_TSH": str(tmp_path / "not-tsh.js"),
        "CUT": str(tmp_path / "cut.js"),
        "PLAIN_TWO": str(tmp_path / "two.js"),
    }
    outcome = run(*(named.get(arg, arg) for arg in args))
    assert outcome.exit_code == 2
    assert says in outcome.stderr and "Traceback" not in outcome.stderr
    assert outcome.stdout == ""
    assert run("tsh", "show", "open", "--json").stdout == before


def test_show_and_unlink_of_a_tournament_not_linked(run, linked_home):
    assert run("tsh", "show", "open").exit_code == 2
    made, folder = linked_home
    run("tsh", "link", "open", str(folder))
    assert run("tsh", "unlink", "open").stdout == "Unlinked open from TSH.\n"
    outcome = run("tsh", "unlink", "open")
    assert outcome.exit_code == 2 and "not linked" in outcome.stderr


def test_judge_names_the_game_from_the_command_line(run, linked_home):
    made, folder = linked_home
    run("tsh", "link", "open", str(folder))
    first, second = tsh_files.seated(made, "A", 3, 2)
    outcome = run("judge", "-t", "open", "--table", "2", "--challenger", second, "--json", "QI")
    row = json.loads(outcome.stdout)
    assert (row["round"], row["challenger"], row["players"]) == ("3", second, [first, second])
    refused = run("judge", "-t", "open", "--table", "2", "--challenger", "Zed, Who", "QI")
    assert refused.exit_code == 2 and f"{first} (#" in refused.stderr
    assert refused.stdout == ""


# --- a real server following a URL ------------------------------------------------------------


def table_round(url: str, token: str) -> int | None:
    request = urllib.request.Request(
        url + "/api/v1/table", headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())["round"]
    except urllib.error.HTTPError:
        return None


@pytest.mark.slow
def test_a_served_hall_follows_a_url_one_process_asking_with_its_etag(tmp_path):
    made = tsh_files.make_event({"A": 6}, 2, 2)
    published = tsh_files.TourneyJsServer(tsh_files.tourney_js(made))
    home = prepare_home(tmp_path / "home")
    cli(home.path, "tsh", "link", "hall", published.url)
    token = cli(home.path, "kiosk", "add", "k-table-1", "--tournament", "hall", "--table", "1")
    token = token.strip().splitlines()[-1]
    server = Server(
        home,
        workers=2,
        env={"ADJUDICATOR_TSH_URL_SECONDS": "1", "ADJUDICATOR_TSH_POLL_SECONDS": "1"},
    )
    try:
        server.start()
        assert table_round(server.url, token) == 2
        asked = len(published.requests)
        time.sleep(6)
        during = len(published.requests) - asked
        # two workers, each looking every second: one claim a second lands, not two
        assert 1 <= during <= 9, during
        assert all(r.get("If-None-Match") for r in published.requests[asked:])  # all 304s
        tsh_files.score_round(made, "A", 2)
        tsh_files.pair_round(made, "A")
        published.body = tsh_files.tourney_js(made)
        deadline = time.monotonic() + 30
        while table_round(server.url, token) != 3:
            assert time.monotonic() < deadline, "the new round never reached the API"
            time.sleep(0.5)
    finally:
        server.stop()
        published.close()


@pytest.mark.parametrize(
    "reply, says",
    [
        (b"hello, this is not a web server\r\n", "not a whole HTTP reply"),
        (b"HTTP/1.1 304 Not Modified\r\n\r\n", "304 Not Modified to a plain request"),
    ],
)
def test_a_url_answering_badly_exits_2_saying_why(run, linked_home, reply, says):
    served = tsh_files.RawHttpServer(reply)
    try:
        outcome = run("tsh", "link", "open", served.url)
    finally:
        served.close()
    assert outcome.exit_code == 2 and says in outcome.stderr and "Traceback" not in outcome.stderr
    assert outcome.stdout == ""


@pytest.mark.parametrize(
    "config, says",
    [
        ("config tfile_encoding = 'klingon'\n", "tfile_encoding names 'klingon'"),
        ("config tables = " + "[" * 3000 + "]" * 3000 + "\n", "nests lists or hashes too deeply"),
    ],
)
def test_a_config_tsh_the_hall_cannot_read_exits_2_saying_why(
    run, linked_home, tmp_path, config, says
):
    folder = tmp_path / "archive"
    folder.mkdir()
    (folder / "config.tsh").write_text(
        "division a a.t\n" + config + "#begin_file name=a.t\nLee, Ann 1500 2; 400\n"
        "Xu, Wei 1400 1; 380\n#end_file name=a.t\n"
    )
    outcome = run("tsh", "link", "open", str(folder))
    assert outcome.exit_code == 2 and says in outcome.stderr and "Traceback" not in outcome.stderr


def test_show_without_a_round_shows_the_current_round(run, linked_home, tmp_path):
    """Issue 36, papercut 9: `tsh show SLUG` prints the current round (a 27-round division
    printed 303 lines); --round R another, --all every round."""
    made, folder = linked_home
    run("tsh", "link", "open", str(folder))
    shown = run("tsh", "show", "open")
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "Round 3, the current round (--round R for another, --all for every round)."
    third = json.loads(run("tsh", "show", "open", "--round", "3", "--json").stdout)
    assert len(lines) == 1 + len(third) == 1 + 6
    assert all("  round 3  table " in line for line in lines[1:])
    assert json.loads(run("tsh", "show", "open", "--json").stdout) == third
    every = run("tsh", "show", "open", "--all").stdout.splitlines()
    assert len(every) == 24 and {"round 1", "round 4"} <= {line.split("  ")[1] for line in every}

    # the divisions' rounds apart: each division's own current round, said so
    tsh_files.score_round(made, "A", 3)
    run("tsh", "link", "open", str(tsh_files.write_tourney_js(tmp_path / "t.js", made)))
    lines = run("tsh", "show", "open").stdout.splitlines()
    assert lines[0] == (
        "The current rounds: division A round 4, division B round 3 "
        "(--round R for another, --all for every round)."
    )
    assert {line.split("  ")[:2][1] for line in lines[1:] if line.startswith("A ")} == {"round 4"}
    assert {line.split("  ")[:2][1] for line in lines[1:] if line.startswith("B ")} == {"round 3"}

    both = run("tsh", "show", "open", "--round", "2", "--all")
    assert both.exit_code == 2 and "not both" in both.stderr and both.stdout == ""


def test_judge_at_a_table_with_no_game_is_refused_naming_the_tables_with_one(run, linked_home):
    """Issue 36, papercut 2: `judge --tournament SLUG --table 40` at a linked tournament whose
    table 40 has no game this round recorded the challenge silently, the challenger as typed.
    Now it exits 2, naming the tables that have a game, and records nothing."""
    made, folder = linked_home
    run("tsh", "link", "open", str(folder))
    refused = run("judge", "--tournament", "open", "--table", "40", "--challenger", "Zed", "QI")
    assert refused.exit_code == 2 and refused.stdout == ""
    assert "table 40 has no game this round" in refused.stderr
    assert "the tables with a game this round are 1-6" in refused.stderr
    assert "Traceback" not in refused.stderr
    in_round = run("judge", "--tournament", "open", "--round", "2", "--table", "40", "QI")
    assert in_round.exit_code == 2
    assert "table 40 has no game in round 2: the tables with a game in round 2 are 1-6" in (
        " ".join(in_round.stderr.split())
    )
    later = run("judge", "--tournament", "open", "--round", "9", "--table", "2", "QI")
    assert later.exit_code == 2 and "TSH pairs no game in round 9" in later.stderr
    assert json.loads(run("journal", "export", "--format", "json").stdout) == []

    first, second = tsh_files.seated(made, "A", 3, 2)
    judged = run("judge", "--tournament", "open", "--table", "2", "--challenger", first, "QI")
    assert judged.exit_code == 0, judged.stderr
    (row,) = json.loads(run("journal", "export", "--format", "json").stdout)
    assert (row["round"], row["table"], row["challenger"]) == ("3", "2", first)
    # an unlinked tournament's table is the director's to name, as before
    run("tsh", "unlink", "open")
    assert run("judge", "--tournament", "open", "--table", "40", "QI").exit_code == 0


@pytest.mark.parametrize(
    "option, value, says",
    [
        ("--round", "9" * 5000, "The round is 5000 characters long"),
        ("--table", "9" * 5000, "The table is 5000 characters long"),
        ("--round", "9" * 20, "TSH pairs no game in round 99999999999999999999"),
        ("--round", "abc", "TSH pairs no game in round ABC"),
        ("--round", "0", "TSH pairs no game in round 0"),
    ],
)
def test_a_nonsense_round_or_table_at_a_linked_tournament_exits_2_not_a_traceback(
    run, linked_home, option, value, says
):
    made, folder = linked_home
    run("tsh", "link", "open", str(folder))
    table = () if option == "--table" else ("--table", "40")
    outcome = run("judge", "--tournament", "open", option, value, *table, "QI")
    assert outcome.exit_code == 2 and outcome.stdout == ""
    assert says in outcome.stderr and "Traceback" not in outcome.stderr
