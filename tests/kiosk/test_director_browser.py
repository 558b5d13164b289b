"""The director's and word judges' pages in real headless Chromium against `adjudicator serve`.

Screenshots go to test-artifacts/ (director-*.png).
"""

from __future__ import annotations

import pytest

from support.browser import ARTIFACTS, open_page, sign_in, staffed_home
from support.servers import PreparedHome, cli

DIRECTOR_PASSWORD = "director-browser-1"
JUDGE_PASSWORD = "judge-browser-12"
SERVER_WORKERS = 2


pytestmark = [
    pytest.mark.browser,
]


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> PreparedHome:
    return staffed_home(tmp_path_factory.mktemp("director-home"), DIRECTOR_PASSWORD, JUDGE_PASSWORD)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"director-{name}.png"), full_page=True)


def test_director_login_with_a_wrong_then_the_right_password(browser, server):
    page = sign_in(browser, server.url, "/director/login", "director", "not-the-password")
    assert "Wrong name or password." in page.inner_text("#login-error")
    shot(page, "login-refused")
    page.fill("#name", "director")
    page.fill("#password", DIRECTOR_PASSWORD)
    page.click("#sign-in")
    page.wait_for_url(server.url + "/director/")
    assert "0 second opinions waiting" in page.inner_text("#glance-flags")
    page.click("#logout")
    page.wait_for_url(server.url + "/director/login")
    page.context.close()


def test_changing_the_lexicon_shows_on_the_paired_kiosk(browser, server, home):
    from playwright.sync_api import expect

    kiosk = open_page(browser, {"width": 1280, "height": 800})
    kiosk.goto(f"{server.url}/pair#{home.pairing_code}")
    kiosk.click("#pair-button")
    expect(kiosk.locator("#lexicon-name")).to_have_text("TINY")

    page = sign_in(browser, server.url, "/director/login", "director", DIRECTOR_PASSWORD)
    page.goto(server.url + "/director/tournaments")
    row = page.locator("#tournament-hall")
    row.locator("select[name=lexicon]").select_option("OTHER")
    row.get_by_role("button", name="Review change…").click()
    assert page.inner_text("#new-lexicon-words") == "6"
    assert len(page.inner_text("#new-lexicon-fingerprint")) == 64
    shot(page, "confirm-lexicon")
    page.click("#confirm-change")
    assert "now judges with OTHER" in page.inner_text(".flash-ok")

    expect(kiosk.locator("#lexicon-name")).to_have_text("OTHER", timeout=15_000)
    shot(kiosk, "kiosk-after-change")
    page.goto(server.url + "/director/kiosks")
    assert "paired" in page.inner_text("#kiosk-k1")
    kiosk.context.close()
    page.context.close()


def test_second_opinion_flow_end_to_end(browser, server, home):
    status, original = server.adjudicate(["QI", "ZA"])
    assert status == 201 and original["verdict"] == "ACCEPTABLE"

    judge = sign_in(browser, server.url, "/judge/login", "alice", JUDGE_PASSWORD)
    judge.wait_for_url(server.url + "/judge/")
    judge.fill("#adjudication-id", str(original["id"]))
    judge.click("#open-case")
    assert "k1" in judge.inner_text("#original")
    judge.fill("#words", "qi zax")
    judge.click("#judge-again")
    assert judge.inner_text("#verdict") == "UNACCEPTABLE"
    assert "differs from the original" in judge.inner_text("#agreement")
    assert "flagged for the director" in judge.inner_text("#flagged")
    shot(judge, "second-opinion")

    director = sign_in(browser, server.url, "/director/login", "director", DIRECTOR_PASSWORD)
    director.goto(server.url + "/director/flags")
    case = director.locator(f"#case-{original['id']}")
    case.locator("input[value=ACCEPTABLE]").check()
    case.locator("input[name=reason]").fill("ZA was on the board; the slip was miscopied")
    # the judge typed other words, so the page asks which words the ruling is on (issue 20)
    assert case.locator("input[name=words]").get_attribute("required") is not None
    case.locator("input[name=words]").fill("QI ZA")
    shot(director, "flags")
    case.locator("button").click()
    assert f"Final ruling on #{original['id']}: ACCEPTABLE" in director.inner_text(".flash-ok")
    director.goto(server.url + "/director/journal?kind=ruling")
    assert "the slip was miscopied" in director.inner_text("#journal")
    shot(director, "journal")
    assert "hash chain verified" in cli(home.path, "journal", "verify")
    judge.context.close()
    director.context.close()
