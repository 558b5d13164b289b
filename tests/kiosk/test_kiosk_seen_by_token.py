"""A kiosk that judges with its API token, and never polls its status, shows as seen (issue
44): `kiosk list` gives when, the hall's map and the overview say online, not "never seen".
Seen costs one write a minute at most, however often it judges, and nothing is written for a
challenge the hall did not record. The hall runs for real (`adjudicator serve`, two workers)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from adjudicator.hall import kiosks
from adjudicator.hall.director import hall_map, hall_status
from adjudicator.record.backends import connect

from support.servers import Server, cli, post, prepare_home

pytestmark = pytest.mark.slow  # a real server


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    home = prepare_home(tmp_path_factory.mktemp("seen") / "home")
    cli(home.path, "kiosk", "table", "k1", "1")  # a tile on the map
    with Server(home) as server:
        yield home, server


def last_seen(home) -> str | None:
    db = connect(str(home.path / "journal.sqlite3"))
    try:
        return kiosks.get(db, "k1").last_seen_at
    finally:
        db.close()


def listed(home) -> str:
    (line,) = [line for line in cli(home.path, "kiosk", "list").splitlines() if "k1" in line]
    return line


def test_a_kiosk_judging_by_token_is_seen_once_a_minute_at_most(hall):
    home, server = hall
    assert listed(home).endswith("last seen -")  # enrolled, not yet seen
    status, body = post(server.url, home.token, ["QI"])
    assert status == 201, body
    seen = last_seen(home)
    assert seen is not None
    assert listed(home).endswith(f"last seen {seen}")
    for words in (["ZA"], ["QI", "ZA"], ["XX"]):  # three more within the minute: no write
        assert post(server.url, home.token, words)[0] == 201
    assert last_seen(home) == seen
    db = connect(str(home.path / "journal.sqlite3"))
    try:
        kiosk = kiosks.get(db, "k1")
        now = datetime.now(UTC)
        assert hall_status.kiosk_status(kiosk, now).state == "online"
        assert hall_map.kiosk_state(kiosk, now).state == hall_map.ONLINE  # not "never seen"
    finally:
        db.close()


def test_a_challenge_refused_before_judging_does_not_mark_it_seen(tmp_path):
    home = prepare_home(tmp_path / "home")
    with Server(home) as server:
        status, _ = post(server.url, home.token, ["Q1"])  # a digit: no verdict, nothing recorded
        assert status == 400
        assert post(server.url, "k_not-a-token", ["QI"])[0] == 401
    assert last_seen(home) is None
