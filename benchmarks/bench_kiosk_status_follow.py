"""What issue 36's papercuts add to the kiosk's status poll (GET /api/v1/kiosk, every kiosk every
5 s): whether its tournament is linked to TSH (`links.get`, one indexed read, so that a kiosk of
an unlinked tournament never asks /api/v1/table), and the lexicon's description in the kiosk's
language (`say_description`, said once per process and language). Measured side by side in one
run, alternating: the whole poll in-process (Flask test client, a French kiosk of a linked
tournament) as the floor, and the two additions alone; the ratio is their share of a poll.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.tsh import links
from kiosk.i18n import say_description, speak

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.alternating import alternate, best_of, report, timed  # noqa: E402

from tests.support import tsh_files  # noqa: E402
from tests.support.hall import NWL, build_setup, make_app  # noqa: E402

pytestmark = pytest.mark.usefixtures("quiet_logs")


def test_what_the_status_poll_pays_for_the_tsh_link_and_the_description(benchmark, tmp_path):
    setup = build_setup(tmp_path)
    db = setup.hall.db
    event = tsh_files.make_event({"A": 20}, 10, 5)
    links.link(db, NWL, str(tsh_files.write_tourney_js(tmp_path / "tourney.js", event)))
    tournaments.update(db, setup.store, NWL, language="fr")
    kiosks.set_table(db, "table-1", 3)
    app = make_app(setup.hall)
    client = app.test_client()
    token = setup.headers()
    description = setup.store.manifest("TINY-NWL").description

    def poll():
        body = client.get("/api/v1/kiosk", headers=token).get_json()
        assert body["tournament"]["tsh_linked"] is True and body["table"] == "3"

    def added():
        links.get(db, NWL)
        say_description(description)

    def added_in_french() -> float:
        with app.test_request_context():  # as inside the poll: its request, in French
            speak("fr")
            return best_of(added, 2000)

    polled, adding = alternate(timed(poll, 200), added_in_french)
    benchmark.pedantic(poll, rounds=20, iterations=5)
    report(
        benchmark,
        "us",
        ("added", "the TSH link and the description", adding),
        ("poll", "GET /api/v1/kiosk", polled),
    )
