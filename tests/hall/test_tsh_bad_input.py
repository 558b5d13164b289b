"""Bad input behind a TSH link, each kind the reviewer found escaping as a traceback: a web
server answering something that is not HTTP, or cut short, or 304 to a plain request; an
unknown `config tfile_encoding` with an archived .t file; `config tables` nested without end;
a cross-tables number in digits Python cannot read. Linking says what is wrong and changes
nothing; following records the failure, which the overview shows, and keeps the last good
pairings. A failure nobody foresaw is recorded too (a generic message, the details logged)."""

from __future__ import annotations

import logging
import threading

import pytest

from adjudicator.hall.tsh import follow, games, links, source, tourney_js
from adjudicator.hall.tsh.event import TshError

from support import tsh_files
from support.hall import NWL


@pytest.fixture
def hall(setup):
    return setup.hall


def http_reply(body: bytes) -> bytes:
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    return head.encode() + body


BAD_REPLIES = {
    "not-http": (b"hello, this is not a web server\r\n", "not a whole HTTP reply"),
    "cut-short": (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n400\r\nnewt={",
        "not a whole HTTP reply",
    ),
    "304-unasked": (b"HTTP/1.1 304 Not Modified\r\n\r\n", "304 Not Modified to a plain request"),
}


@pytest.fixture
def web():
    made = tsh_files.make_event({"A": 6}, 2, 2)
    served = tsh_files.RawHttpServer(http_reply(tsh_files.tourney_js(made)))
    yield served
    served.close()


@pytest.mark.parametrize("case", sorted(BAD_REPLIES))
def test_a_url_answering_badly_is_refused_and_its_failure_recorded(hall, web, case):
    reply, says = BAD_REPLIES[case]
    links.link(hall.db, NWL, web.url)
    before = (links.get(hall.db, NWL), games.show(hall.db, NWL))
    web.reply = reply
    with pytest.raises(TshError, match=says):
        links.link(hall.db, NWL, web.url)
    assert (links.get(hall.db, NWL), games.show(hall.db, NWL)) == before
    assert follow.Follower(hall.db, 1, 0).run_once() == {NWL: "failed"}
    assert says in links.get(hall.db, NWL).failure
    assert games.show(hall.db, NWL) == before[1]


ARCHIVE = "#begin_file name=a.t\nLee, Ann 1500 2; 400\nXu, Wei 1400 1; 380\n#end_file name=a.t\n"
BAD_FOLDERS = {
    "unknown-encoding": (
        "division a a.t\nconfig tfile_encoding = 'klingon'\n" + ARCHIVE,
        "tfile_encoding names 'klingon'",
    ),
    "tables-nested-without-end": (
        "division a a.t\nconfig tables = " + "[" * 5000 + "]" * 5000 + "\n" + ARCHIVE,
        "nests lists or hashes too deeply",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FOLDERS))
def test_a_folder_tsh_would_not_read_is_refused_and_its_failure_recorded(hall, tmp_path, case):
    config, says = BAD_FOLDERS[case]
    folder = tmp_path / "event"
    folder.mkdir()
    (folder / "config.tsh").write_text("division a a.t\n" + ARCHIVE)
    links.link(hall.db, NWL, str(folder))
    before = (links.get(hall.db, NWL), games.show(hall.db, NWL))
    (folder / "config.tsh").write_text(config)
    with pytest.raises(TshError, match=says):
        links.link(hall.db, NWL, str(folder))
    assert (links.get(hall.db, NWL), games.show(hall.db, NWL)) == before
    assert follow.Follower(hall.db, 1, 0).run_once() == {NWL: "failed"}
    assert says in links.get(hall.db, NWL).failure


def test_a_cross_tables_number_in_other_digits_is_no_id_and_no_crash(hall, tmp_path):
    folder = tmp_path / "event"
    folder.mkdir()
    (folder / "config.tsh").write_text("division a a.t\n")
    (folder / "a.t").write_text(
        "Lee, Ann 1500 2; 400; xtid \u00b2\nXu, Wei 1400 1; 380; xtid 17175\n", "utf-8"
    )
    (folder / "config.tsh").write_text("division a a.t\nconfig tfile_encoding = 'utf8'\n")
    links.link(hall.db, NWL, str(folder))
    seats = {seat.name: seat.xtid for seat in games.show(hall.db, NWL)[0].seats}
    assert seats == {"Lee, Ann": None, "Xu, Wei": "XT017175"}
    made = tsh_files.make_event({"A": 2}, 1, 0)
    made["divisions"][0]["players"][1]["etc"]["xtid"] = ["\u00b2"]
    made["divisions"][0]["players"][2]["etc"]["xtid"] = [17175]
    links.link(hall.db, NWL, str(tsh_files.write_tourney_js(tmp_path / "t.js", made)))
    assert sorted(seat.xtid or "" for seat in games.show(hall.db, NWL)[0].seats) == [
        "",
        "XT017175",
    ]


def test_a_failure_nobody_foresaw_is_recorded_and_logged(hall, tmp_path, monkeypatch, caplog):
    path = tsh_files.write_tourney_js(tmp_path / "t.js", tsh_files.make_event({"A": 6}, 2, 2))
    links.link(hall.db, NWL, str(path))
    shown = games.show(hall.db, NWL)

    def unforeseen(data, where):
        raise KeyError("a case no check foresaw")

    monkeypatch.setattr(tourney_js, "read", unforeseen)
    path.write_bytes(path.read_bytes() + b"\n")
    with caplog.at_level(logging.ERROR, logger="adjudicator.tsh"):
        assert follow.Follower(hall.db, 1, 0).run_once() == {NWL: "failed"}
    failed = links.get(hall.db, NWL)
    assert failed.failure == follow.UNEXPECTED_FAILURE and failed.failed_since
    assert "a case no check foresaw" in caplog.text  # the details are in the server's log
    assert games.show(hall.db, NWL) == shown


def drip_headers(sock, stop):
    """A server that never finishes its status line: a byte every second."""
    for byte in b"HTTP/1.1 200 OK" * 1000:
        if stop.wait(1):
            return
        sock.sendall(bytes([byte]))


def drip_body(sock, stop):
    """A server that sends its headers, then the body a byte every second."""
    body = tsh_files.tourney_js(tsh_files.make_event({"A": 6}, 2, 2))
    sock.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode())
    for byte in body:
        if stop.wait(1):
            return
        sock.sendall(bytes([byte]))


@pytest.mark.parametrize("drip", [drip_headers, drip_body], ids=["headers", "body"])
def test_a_url_that_drips_is_given_up_and_its_failure_recorded(hall, web, monkeypatch, drip):
    """Each byte comes well within the read timeout (10 s), so only the whole answer's
    deadline ends the read; the follower then records the failure and is free again."""
    monkeypatch.setattr(source, "FETCH_DEADLINE_SECONDS", 3)
    links.link(hall.db, NWL, web.url)
    shown = games.show(hall.db, NWL)
    web.reply = drip
    done: list = []
    reader = threading.Thread(target=lambda: done.append(follow.Follower(hall.db, 1, 0).run_once()))
    reader.start()
    reader.join(timeout=120)  # without a deadline, the drip would last an hour
    assert not reader.is_alive(), "the follower is stuck on a dripping server"
    assert done == [{NWL: "failed"}]
    assert "did not send the whole tourney.js within 3 s" in links.get(hall.db, NWL).failure
    assert games.show(hall.db, NWL) == shown
    with pytest.raises(TshError, match="within 3 s"):
        links.link(hall.db, NWL, web.url)
