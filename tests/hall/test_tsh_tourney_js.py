"""TSH's tourney.js as TSH writes it (support.tsh_files follows JavaScript::Serializable): read
whole, with its JavaScript that is not JSON, and refused when it is not TSH's or is cut short."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.hall.tsh import event, tourney_js
from adjudicator.hall.tsh.event import TshError

from support import tsh_files


def one_division(players=6, paired=3, scored=1, **kw):
    return tsh_files.make_event({"A": players}, paired, scored, **kw)


def test_the_javascript_tsh_writes_is_not_json_and_is_read():
    written = tsh_files.tourney_js(one_division())
    text = written.decode()
    assert text.startswith('newt={"config":') and text.endswith("};\n")
    assert "undefined" in text  # players[0], unset options
    read = tourney_js.read(written)
    assert read.name == "Spring Open"
    assert [d.name for d in read.divisions] == ["A"]
    assert [p.number for p in read.divisions[0].players] == [1, 2, 3, 4, 5, 6]


def test_javascript_quirks_undefined_bare_fractions_line_continuations_raw_tabs():
    value = tourney_js.parse(
        b'newt={"a":undefined,"b":[.5,-.25,1.5,undefined],"c":"say \\"hi\\"\\\\ \\\nnext",'
        b'"d":"tab\there","e":{}};\n'
    )
    assert value == {
        "a": None,
        "b": [0.5, -0.25, 1.5, None],
        "c": 'say "hi"\\ next',  # the backslash before the line break stands for nothing
        "d": "tab\there",
        "e": {},
    }


def test_the_writer_in_the_tests_writes_what_javascript_serializable_does():
    assert tsh_files.javascript({"b": "0.50", "a": "007", "c": "1.", "d": None}) == (
        '{"a":7,"b":0.50,"c":"1.","d":undefined}'
    )
    assert tsh_files.javascript('two\nlines "q" \\') == '"two\\\nlines \\"q\\" \\\\"'


def test_a_name_is_tshs_and_a_cross_tables_suffix_is_an_id_not_part_of_it():
    names = [
        "Tunnicliffe, Matthew:XT017175",
        "Smith, John 3,",
        "  Lee,   Ann  ",
        "Xu, Wei",
        "Ng, Ola",
        "Bo, Li",
    ]
    read = tourney_js.read(tsh_files.tourney_js(one_division(names={"A": names})))
    players = read.divisions[0].players
    assert (players[0].name, players[0].xtid) == ("Tunnicliffe, Matthew", "XT017175")
    assert players[1].name == "Smith, John 3"  # TSH's trailing comma after a digit
    assert players[2].name == "Lee, Ann"


def test_byes_are_no_games_and_every_game_has_its_board_and_first_player():
    made = one_division(players=5, paired=4, scored=2)
    division = tourney_js.read(tsh_files.tourney_js(made)).divisions[0]
    games = event.games(division)
    assert len(games) == 4 * 2  # five players: two games and a bye each round
    for game in games:
        names = [seat.name for seat in game.seats]
        assert names == [
            n.split(":")[0] for n in tsh_files.seated(made, "A", game.round, game.board)
        ]
        assert game.seats[0].first and not game.seats[1].first
        assert game.table == str(game.board)
    assert {game.scored for game in games if game.round <= 2} == {True}
    assert {game.scored for game in games if game.round > 2} == {False}


def test_the_current_round_is_the_earliest_unscored_else_the_latest():
    made = one_division(players=6, paired=5, scored=2)
    games = event.games(tourney_js.read(tsh_files.tourney_js(made)).divisions[0])
    assert event.current_round(games) == 3  # paired ahead to 5; 3 is being played
    for round_number in (3, 4, 5):
        tsh_files.score_round(made, "A", round_number)
    games = event.games(tourney_js.read(tsh_files.tourney_js(made)).divisions[0])
    assert event.current_round(games) == 5
    assert event.current_round([]) is None


def test_several_divisions_and_a_tables_map():
    made = tsh_files.make_event(
        {"A": 6, "B": 4}, 2, 1, tables={"A": [10, 11, 12], "b": ["20", "21"]}
    )
    read = tourney_js.read(tsh_files.tourney_js(made))
    assert read.division("a").tables == ("10", "11", "12")
    assert read.division("B").tables == ("20", "21")  # TSH upper-cases division names
    tables = {game.table for d in read.divisions for game in event.games(d)}
    assert tables == {"10", "11", "12", "20", "21"}
    with pytest.raises(TshError, match="no division 'C'.*A, B"):
        read.division("C")


def test_a_pairing_only_one_side_names_is_no_game():
    made = one_division(players=4, paired=1, scored=0)
    players = made["divisions"][0]["players"]
    opponent = players[1]["pairings"][0]
    players[opponent]["pairings"][0] = 0  # the opponent's side says bye
    division = tourney_js.read(tsh_files.tourney_js(made)).divisions[0]
    assert all(1 not in {s.number for s in g.seats} for g in event.games(division))


@pytest.mark.parametrize(
    "data, says",
    [
        (b"", "not TSH's"),
        (b'{"divisions": []}', "not TSH's"),  # JSON, but not what TSH writes
        (b"<html><body>404</body></html>", "not TSH's"),
        (b"newt=[1,2];", "not TSH's"),
        (b'newt={"config":{}};', "no divisions"),
        (b'newt={"divisions":[{"name":"A","players":[{"id":1}]}]};', "do not start at 1"),
        (
            b'newt={"divisions":[{"name":"A","players":[undefined,{"id":2,"name":"X"}]}]};',
            "says it is number 2",
        ),
        (b'newt={"divisions":[{"name":"A","players":[undefined,{"id":1}]}]};', "no name"),
        (
            b'newt={"divisions":[{"name":"A","players":[undefined,{"id":1,"name":"Lee, A",'
            b'"pairings":["x"]}]}]};',
            "not a number",
        ),
        (
            b'newt={"divisions":[{"name":"A","players":[undefined,{"id":1,"name":"Lee\\u202e, A"'
            b"}]}]};",
            "invisible or control character",
        ),
        (b"\xff\xfe n\x00e\x00w\x00", "not UTF-8"),
        (
            b'newt={"config":{"event_name":"Open\x1b[2J"},"divisions":[{"name":"A","players":'
            b"[undefined]}]};",
            "event name holds an invisible or control character",
        ),
        (b"newt=" + b"[" * 5000 + b"]" * 5000 + b";", "nests too deeply|not TSH's"),
    ],
)
def test_input_that_is_not_tshs_is_refused_saying_so(data, says):
    with pytest.raises(TshError, match=says):
        tourney_js.read(data)


def test_a_file_cut_short_is_refused_as_cut_short():
    written = tsh_files.tourney_js(one_division())
    for cut in (len(written) - 3, len(written) // 2, 40):
        with pytest.raises(TshError, match="ends early|not TSH's"):
            tourney_js.read(written[:cut])
    with pytest.raises(TshError, match="ends early"):
        tourney_js.read(written[: len(written) // 2])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cut=st.integers(min_value=0),
    flips=st.lists(st.tuples(st.integers(0), st.integers(0, 255)), max_size=4),
)
def test_damaged_files_are_refused_or_read_never_crash(cut, flips):
    written = bytearray(tsh_files.tourney_js(one_division(players=4, paired=2, scored=1)))
    for at, byte in flips:
        written[at % len(written)] = byte
    damaged = bytes(written[: cut % (len(written) + 1)])
    try:
        read = tourney_js.read(damaged)
    except TshError:
        return
    for division in read.divisions:
        event.games(division)  # whatever was read makes games without an error
