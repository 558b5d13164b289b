"""gunicorn's "Listening at:" line names each socket with the scheme it serves (issue 44): the
hall's plain-HTTP port (the trust page alone, served without TLS) as `http://...:8080`, its
HTTPS port as `https://`. A real `adjudicator hall` in a network of the test's own."""

from __future__ import annotations

import re
import signal

import pytest

from adjudicator.hall.network.lan import LOOPBACK
from kiosk.server.access_log import plain_listeners

from support.netns import HALL_ADDRESS, HallNetwork
from support.running_hall import RunningHall
from support.servers import prepare_home


def test_the_plain_port_is_named_http_and_only_it():
    said = (
        "https://192.0.2.1:8443,https://127.0.0.1:8443,https://192.0.2.1:8080,https://[::1]:80800"
    )
    assert plain_listeners(said, 8080) == (
        "https://192.0.2.1:8443,https://127.0.0.1:8443,http://192.0.2.1:8080,https://[::1]:80800"
    )
    assert plain_listeners(said, 0) == said  # `serve`, or --http-port 0: every socket is TLS


@pytest.mark.slow
def test_the_hall_logs_its_plain_port_as_http(hall_network: HallNetwork, tmp_path):
    home = prepare_home(tmp_path / "home").path
    hall = RunningHall(home, "listening", 8443, http_port=None, netns=hall_network.hall).start()
    try:
        (line,) = [x for x in hall.stderr().splitlines() if "Listening at: " in x]
        listeners = set(re.search(r"Listening at: (\S+)", line).group(1).split(","))
        assert listeners == {
            f"https://{HALL_ADDRESS}:8443",
            f"https://{LOOPBACK}:8443",
            f"http://{HALL_ADDRESS}:8080",
            f"http://{LOOPBACK}:8080",
        }, line
    finally:
        hall.process.send_signal(signal.SIGINT)
        hall.process.wait(timeout=30)
