"""The kiosk page's polls in real Chromium (issue 36): the status poll is held by the server
with the ETag of the status shown (`?wait=25`, If-None-Match), and comes back at once when the
status changes; a kiosk of a tournament not linked to TSH asks nothing of /api/v1/table (its
status says there is nothing to ask), so no poll fails in its console or the access log."""

from __future__ import annotations

import pytest

from support.browser import Home, pair_page, wait_until

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("kiosk-polls-home"))
    home.tournament("open", "TINY", "double", "Unlinked Open")
    return home


def test_an_unlinked_kiosk_asks_nothing_of_the_table_and_learns_a_change(home, server, new_page):
    page = new_page()
    asked = []
    page.on("request", lambda request: asked.append((request.url, request.headers)))
    code = home.pairing_code("at-seven", "open", "--table", "7")
    pair_page(page, server.url, code, link="/pair#")
    page.wait_for_timeout(6000)  # past the first poll, which the server now holds
    polls = [(url, headers) for url, headers in asked if "/api/v1/kiosk?wait=25" in url]
    assert polls and all(h.get("if-none-match", "").startswith('"') for _, h in polls)
    home.cli("tournament", "set", "open", "--title", "Unlinked Open, day 2")
    wait_until(
        page, "document.getElementById('tournament-title').textContent.endsWith('day 2')", 15
    )
    assert not [url for url, _ in asked if "/api/v1/table" in url]
    assert "/api/v1/table" not in server.read_log()
