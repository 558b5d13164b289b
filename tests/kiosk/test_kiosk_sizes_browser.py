"""Issue 23's sizes, in real Chromium: on a 1080p hall screen the idle screen uses its height
(instructions readable from two metres); a long lexicon description takes two lines at most,
one on a phone; the verdict icon is never clipped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.browser import SETTLE_JS, Home, Server, browser_missing_reason, launched_chromium

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(browser_missing_reason() is not None, reason=str(browser_missing_reason())),
]

DESCRIPTION = (
    "Collins Scrabble Words 2024 as the federation publishes it, with the club's additions and "
    "removals agreed at the annual general meeting, and the school list's exceptions"
)


@pytest.fixture(scope="module")
def hall(tmp_path_factory) -> Iterator[tuple[Home, Server]]:
    home = Home.prepare(tmp_path_factory.mktemp("sizes"))
    LexiconStore(root=home.path / "lexicons").save(
        "LONG", WordSet.of(["QI", "ZA", "CAT"]), description=DESCRIPTION
    )
    home.tournament("long", "LONG", "double", "Spring Open, Division A")
    home.tournament("refer", "REFER", "double", "Spring Open, Division B")
    running = Server(home, verdict_seconds="300")
    yield home, running
    running.stop()


def _kiosk(browser, home, server, name, tournament, width, height):
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.goto(f"{server.url}/pair/{home.pairing_code(name, tournament)}")
    page.click("#pair-button")
    page.wait_for_selector("#lexicon-words:not(:empty)")
    page.evaluate(SETTLE_JS)
    return page


def _px(page, selector: str, prop: str) -> float:
    return page.evaluate(
        f"parseFloat(getComputedStyle(document.querySelector('{selector}')).{prop})"
    )


def test_a_hall_screen_uses_its_height_for_instructions_read_from_two_metres(hall):
    home, server = hall
    with launched_chromium() as browser:
        page = _kiosk(browser, home, server, "hall-1", "long", 1920, 1080)
        assert _px(page, "#typing-help", "fontSize") >= 30  # was about 23 px
        bottom = page.evaluate(
            "document.getElementById('challenge-form').getBoundingClientRect().bottom"
        )
        assert bottom > 1080 * 0.75  # was 640 px: the bottom half empty
        assert page.evaluate("document.documentElement.scrollHeight") == 1080


@pytest.mark.parametrize(("width", "height", "lines"), [(390, 844, 1), (1920, 1080, 2)])
def test_a_long_lexicon_description_is_cut_short(hall, width, height, lines):
    home, server = hall
    with launched_chromium() as browser:
        page = _kiosk(browser, home, server, f"desc-{width}", "long", width, height)
        line = _px(page, "#lexicon-description", "lineHeight")
        box = page.locator("#lexicon-description").bounding_box()
        assert box["height"] <= lines * line + 1
        assert page.get_attribute("#lexicon-description", "title") == DESCRIPTION
        status = page.locator("#status").bounding_box()
        assert status["height"] <= height * 0.2  # was a quarter of a phone screen


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (1920, 1080), (390, 844)])
def test_the_refer_icon_is_never_clipped(hall, width, height):
    home, server = hall
    with launched_chromium() as browser:
        page = _kiosk(browser, home, server, f"refer-{width}", "refer", width, height)
        page.locator("#word-input").fill("ABCDEFG ")
        page.click("#judge-button")
        page.wait_for_selector("#verdict-screen:not([hidden])")
        page.evaluate(SETTLE_JS)
        ring = page.evaluate(
            """() => {
            const svg = document.getElementById('icon-refer');
            const ring = svg.querySelector('circle');
            const r = Number(ring.getAttribute('r'));
            const w = Number(ring.getAttribute('stroke-width'));
            return r + w / 2;
        }"""
        )
        assert ring < 50  # the ring's outer edge inside the 100-unit box, with room to spare
        box = page.locator("#icon-refer").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
