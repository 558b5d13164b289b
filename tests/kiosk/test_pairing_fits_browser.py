"""The pairing pages fit every screen without scrolling, in every language (issue 23: the
pairing page was 1,148 px tall in a 1,080 px window), in real Chromium."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.browser import Home, Server, browser_missing_reason, launched_chromium

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(browser_missing_reason() is not None, reason=str(browser_missing_reason())),
]

SCREENS = [(1920, 1080), (1366, 768), (768, 1024), (1024, 768), (390, 844), (360, 640)]
PAGES = ["/pair", "/", "/pair?lang=fr", "/pair?lang=pl", "/pair?lang=es", "/pair?lang=ca"]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    running = Server(Home.prepare(tmp_path_factory.mktemp("pairing-fit")))
    yield running
    running.stop()


@pytest.mark.parametrize(("width", "height"), SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def test_the_pairing_pages_fit_without_scrolling(server, width, height):
    with launched_chromium() as browser:
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        for path in PAGES:
            page.goto(server.url + path)
            size = page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            assert size == [width, height], (path, size)
            assert page.locator("#pair-button").is_visible()
            box = page.locator("#pair-button").bounding_box()
            assert box["y"] + box["height"] <= height, path
