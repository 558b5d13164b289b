"""The hall's beat (record/journal/hall_beat.py): a server the hall process runs records no
verdict while the beat is older than the pause setting (the laptop slept, or its processes were
stopped), says so to kiosks in their language and to the director, and judges again once the
hall process beats; the beat stops at a pause until the hall process looked at the network."""

from __future__ import annotations

import pytest

from adjudicator.record.journal import hall_beat, journal

from support.director import build_staffed
from support.hall import build_setup, make_app

ADJUDICATIONS = "/api/v1/adjudications"


@pytest.fixture
def beat_file(tmp_path, monkeypatch):
    """A server given a beat file, as `adjudicator hall` gives its own (pause: 10 s)."""
    path = tmp_path / "hall" / "beat"
    path.parent.mkdir()
    monkeypatch.setenv(hall_beat.BEAT_ENV, str(path))
    monkeypatch.delenv("ADJUDICATOR_HALL_PAUSE_SECONDS", raising=False)
    return path


def test_a_beat_is_read_back_and_a_missing_or_garbled_one_is_none(tmp_path):
    path = tmp_path / "beat"
    assert hall_beat.age(path) is None
    hall_beat.write(path, hall_beat.now() - 3)
    assert 3 <= hall_beat.age(path) < 4
    hall_beat.write(path, hall_beat.now())
    assert 0 <= hall_beat.age(path) < 1  # at once: never a beat from the future
    path.write_text("not a time\n")
    assert hall_beat.age(path) is None
    hall_beat.write(path, hall_beat.now() + 3600)  # left from before a restart: not a beat
    assert hall_beat.age(path) is None


def test_only_a_server_given_a_beat_checks_it(beat_file, monkeypatch):
    hall_beat.write(beat_file, hall_beat.now() - 9)
    assert hall_beat.paused_for() is None  # 9 s: within the 10 s of a pause
    hall_beat.write(beat_file, hall_beat.now() - 30)
    assert 30 <= hall_beat.paused_for() < 31
    with pytest.raises(hall_beat.HallPaused, match="checking its network after a pause"):
        hall_beat.check_in_append()
    beat_file.unlink()  # the hall process stopped: it beats no more
    assert hall_beat.paused_for() == float("inf")
    monkeypatch.setenv("ADJUDICATOR_HALL_PAUSE_SECONDS", "60")
    hall_beat.write(beat_file, hall_beat.now() - 30)
    assert hall_beat.paused_for() is None
    monkeypatch.delenv(hall_beat.BEAT_ENV)  # `serve` and the commands: no beat to check
    beat_file.unlink()
    assert hall_beat.paused_for() is None
    hall_beat.check_in_append()


def test_a_paused_server_records_nothing_and_says_so_then_judges_again(tmp_path, beat_file):
    setup = build_setup(tmp_path)
    client = make_app(setup.hall).test_client()
    hall_beat.write(beat_file, hall_beat.now())
    first = client.post(ADJUDICATIONS, json={"words": ["QI"]}, headers=setup.headers())
    assert first.status_code == 201, first.get_json()

    hall_beat.write(beat_file, hall_beat.now() - 120)  # the laptop slept two minutes
    french = {**setup.headers(), "Accept-Language": "fr"}
    for words in (["QI"], ["QI", "XYZZY"]):  # the same answer, whatever the words
        refused = client.post(ADJUDICATIONS, json={"words": words}, headers=french)
        assert refused.status_code == 503
        body = refused.get_json()
        assert "verdict" not in body and "shown" not in body and "id" not in body
        assert body["shown_error"].startswith("La salle vérifie son réseau après une pause")
    assert journal.newest_id(setup.hall.db) == first.get_json()["id"]
    health = client.get("/healthz")
    assert health.status_code == 503
    assert "checking its network after a pause" in health.get_json()["error"]
    state = setup.hall.journal_health()
    assert state.state == "paused" and "has not beaten for 12" in state.detail

    hall_beat.write(beat_file, hall_beat.now())  # it looked, and beats again
    again = client.post(ADJUDICATIONS, json={"words": ["QI"]}, headers=setup.headers())
    assert again.status_code == 201 and again.get_json()["id"] == first.get_json()["id"] + 1
    assert client.get("/healthz").status_code == 200


class Clock:
    def __init__(self):
        self.at = 1000.0

    def __call__(self) -> float:
        return self.at


def test_the_beat_stops_at_a_pause_until_the_hall_looked(tmp_path, monkeypatch):
    monkeypatch.delenv("ADJUDICATOR_HALL_PAUSE_SECONDS", raising=False)
    clock = Clock()
    path = tmp_path / "hall" / "beat"
    beat = hall_beat.Beat(path, clock=clock, every=3600)  # ticks by hand below
    beat.start()
    try:
        assert float(path.read_text()) == 1000.0
        clock.at += 1
        beat.tick()
        assert float(path.read_text()) == 1001.0 and beat.paused is None
        clock.at += 9.5  # a slow second, not a pause
        beat.tick()
        assert float(path.read_text()) == 1010.5 and beat.paused is None
        clock.at += 600  # asleep ten minutes
        beat.tick()
        assert beat.paused == 600
        clock.at += 1
        beat.tick()  # still no beat: the hall has not looked yet
        assert float(path.read_text()) == 1010.5 and beat.paused == 600
        clock.at += 2
        beat.resume()  # the hall process looked at the network
        assert float(path.read_text()) == 1613.5 and beat.paused is None
        clock.at += 1
        beat.tick()
        assert float(path.read_text()) == 1614.5
    finally:
        beat.stop()
    assert not path.exists()  # a server left running judges nothing


@pytest.mark.usefixtures("fast_hashes")
def test_the_directors_overview_says_judging_is_paused_and_why(tmp_path, beat_file):
    staffed = build_staffed(tmp_path)
    hall_beat.write(beat_file, hall_beat.now() - 45)
    director = staffed.director()
    page = director.get("/director/").get_data(as_text=True)
    assert "Judging PAUSED while the hall looks at its network:" in page
    assert "has not beaten for 45 s" in page and "start the hall again" in page
    french = director.get("/director/", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Arbitrage EN PAUSE pendant que la salle examine son réseau" in french
    hall_beat.write(beat_file, hall_beat.now())
    assert "Judging PAUSED" not in director.get("/director/").get_data(as_text=True)


def test_a_beat_that_cannot_be_written_says_so_once_and_again_when_it_can(tmp_path, caplog):
    clock = Clock()
    folder = tmp_path / "hall"
    beat = hall_beat.Beat(folder / "beat", clock=clock, every=3600).start()
    try:
        folder.chmod(0o500)  # the data home cannot be written (root writes it anyway: below)
        beat.path.unlink()
        beat.path.mkdir()  # what is at the beat's path cannot be replaced by a file
        for _ in range(3):
            clock.at += 1
            beat.tick()
        said = [r.getMessage() for r in caplog.records if "beat" in r.getMessage()]
        assert len(said) == 1 and "cannot be written" in said[0], said
        beat.path.rmdir()
        folder.chmod(0o700)
        clock.at += 1
        beat.tick()
        assert float(beat.path.read_text()) == clock.at
        said = [r.getMessage() for r in caplog.records if "beat" in r.getMessage()]
        assert len(said) == 2 and "written again" in said[1], said
    finally:
        folder.chmod(0o700)
        beat.stop()
