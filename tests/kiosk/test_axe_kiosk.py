"""axe-core finds nothing on any kiosk page or state, in real Chromium.

Pages: not paired, pairing (and a refused code), the error page. States of the kiosk: idle,
a refused word in the box, both banners up, each verdict while it is locked and after, NOT
JUDGED; on a hall screen and on a phone.
"""

from __future__ import annotations

import pytest

from support.axe import AxeRecord, axe_missing_reason
from support.browser import HD, PHONE, SETTLE_JS, Home, Server, open_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(axe_missing_reason() is not None, reason=str(axe_missing_reason())),
]

SCREENS = {"hd": HD, "phone": PHONE}
SPANISH_WORDS = ["chico", "perro", "año", "[c][h]at"]


SERVER_SETTINGS = {"verdict_seconds": "300"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("axe-kiosk-home"))
    home.tournament("open", "TINY", "5-per-word", "Spring Open, Division A")
    home.tournament("refer", "REFER", "single", "Referral division")
    home.import_words("ES-T", SPANISH_WORDS, "spanish")
    home.tournament("es", "ES-T", "double", "Open de Madrid")
    return home


def pair(browser, home: Home, server: Server, tournament: str, screen: str, axe: AxeRecord):
    page = open_page(browser, SCREENS[screen], timeout=10_000)
    code = home.pairing_code(f"axe-{tournament}-{screen}", tournament)
    page.goto(f"{server.url}/pair/{code}")
    axe.check(page, f"pairing ({screen})")
    page.click("#pair-button")
    page.wait_for_selector("#lexicon-words:not(:empty)")
    return page


def judge(page, words: str, shown: str) -> None:
    page.locator("#word-input").fill(words)
    page.click("#judge-button")
    page.wait_for_selector(f"#{shown}:not([hidden])")
    page.evaluate(SETTLE_JS)


def check_verdict(axe: AxeRecord, page, words: str, verdict: str, label: str) -> None:
    """Judge `words`: the verdict shown is `verdict`, checked locked and then unlocked."""
    judge(page, words, "verdict-screen")
    assert page.inner_text("#verdict-word") == verdict
    axe.check(page, f"{label}, locked")
    page.locator("#verdict-done:enabled").wait_for()
    axe.check(page, label)


@pytest.mark.parametrize("screen", list(SCREENS))
def test_every_kiosk_state_has_no_axe_violation(browser, home: Home, server: Server, screen):
    axe = AxeRecord()
    page = pair(browser, home, server, "open", screen, axe)
    axe.check(page, "idle")
    page.locator("#word-input").fill("qi qu?t")
    axe.check(page, "a refused word in the box")
    page.locator("#word-input").fill("")

    judge(page, "qi za", "verdict-screen")
    assert page.locator("#verdict-done").is_disabled()
    axe.check(page, "ACCEPTABLE, locked")
    page.locator("#verdict-done:enabled").wait_for()
    axe.check(page, "ACCEPTABLE")
    page.click("#verdict-done")
    judge(page, "qi zzz", "verdict-screen")
    axe.check(page, "UNACCEPTABLE, locked")
    page.click("#verdict-done")

    page.route("**/api/v1/adjudications", lambda route: route.abort())
    judge(page, "qi za", "error-screen")
    axe.check(page, "NOT JUDGED, locked")
    page.locator("#error-back:enabled").wait_for()
    axe.check(page, "NOT JUDGED")
    page.unroute("**/api/v1/adjudications")
    page.click("#error-back")

    page.route("**/api/v1/kiosk*", lambda route: route.abort())
    page.evaluate("Kiosk.refreshStatus()")  # the held poll would notice only when answered
    page.wait_for_selector("#offline-alert:not([hidden])")
    page.evaluate("document.getElementById('lexicon-alert').hidden = false")
    axe.check(page, "idle with both banners")

    refer = pair(browser, home, server, "refer", screen, axe)
    check_verdict(axe, refer, "qi abcdefgh", "REFER", "REFER")
    page.context.close()
    refer.context.close()
    axe.assert_clean()


@pytest.mark.parametrize("screen", list(SCREENS))
def test_a_spanish_kiosk_with_tiles_has_no_axe_violation(
    browser, home: Home, server: Server, screen
):
    """The row of special tiles, words as tiles with a choice of split, a refused word, the
    verdict drawn in tiles."""
    axe = AxeRecord()
    page = pair(browser, home, server, "es", screen, axe)
    page.wait_for_selector("#tile-row:not([hidden])")
    axe.check(page, "Spanish idle, with the tile row")
    page.locator("#word-input").fill("chat perro a")
    page.click("#tile-row .tile-key[data-tile='\u00d1']")
    page.keyboard.type("o ")
    page.wait_for_selector("#chips .chip-split")
    axe.check(page, "Spanish words as tiles, one to split")
    page.click("#chips .chip-split")
    axe.check(page, "a word split another way")
    page.locator("#word-input").fill("[ch ")
    page.wait_for_selector("#chips .chip-problem")
    page.locator("#word-input").fill("whisky")
    axe.check(page, "a word the server refused and a word refused in the box")
    page.locator("#word-input").fill("")
    page.click("#chips .chip-problem .chip-remove")
    check_verdict(axe, page, "", "ACCEPTABLE", "ACCEPTABLE in tiles")
    page.context.close()
    axe.assert_clean()


def test_pages_for_browsers_that_are_not_kiosks_have_no_axe_violation(browser, server: Server):
    axe = AxeRecord()
    page = open_page(browser, SCREENS["hd"])
    page.goto(server.url + "/")
    assert page.locator("#unpaired").is_visible()
    axe.check(page, "not paired")
    page.fill("#code", "NOT-A-CODE")
    page.click("#pair-button")
    assert page.locator(".error").is_visible()
    axe.check(page, "pairing code refused")
    page.goto(server.url + "/no-such-page")
    assert page.locator("#error-page").is_visible()
    axe.check(page, "error page")
    page.context.close()
    axe.assert_clean()
