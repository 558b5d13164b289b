"""The director's and word judges' pages in real Chromium: no axe-core violation on any page or
state, on a laptop and on a phone, and no sideways scrolling on a phone (390 px wide).

Pages: sign-in (and a refused password), the overview, tournaments and the change's
confirmation, lexicons (an import refused, an import done, verify results), kiosks and a
pairing page, the journal (rows and a burst), second opinions (open and closed), and the word
judge's pages (the number form, a refused number, the case, a flagged and a final result).
"""

from __future__ import annotations

import re

import pytest

from support.axe import AxeRecord, axe_missing_reason
from support.browser import LAPTOP, PHONE, fill_sign_in, open_page, save_screenshot, staffed_home
from support.servers import PreparedHome, Server, cli

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(axe_missing_reason() is not None, reason=str(axe_missing_reason())),
]

DIRECTOR_PASSWORD = "director-pages-1"
JUDGE_PASSWORD = "judge-pages-12"
SERVER_WORKERS = 2
SERVER_SETTINGS = {"burst_challenges": "2"}

# Visible elements sticking out sideways, unless inside a box that scrolls by itself.
SIDEWAYS_JS = """() => {
    const width = window.innerWidth;
    const found = [];
    const page = document.documentElement;
    if (page.scrollWidth > width) found.push(`the page is ${page.scrollWidth} px wide`);
    const scrollsItself = element => {  // or is inside a visually hidden box (a card's thead)
        for (let up = element.parentElement; up; up = up.parentElement) {
            const style = getComputedStyle(up);
            if (style.overflowX === 'auto' || style.overflowX === 'scroll') return true;
            if (style.overflowX === 'hidden' && up.getBoundingClientRect().width <= 1) return true;
        }
        return false;
    };
    for (const element of document.body.querySelectorAll('*')) {
        if (!element.getClientRects().length) continue;
        const box = element.getBoundingClientRect();
        if ((box.right > width + 0.5 || box.left < -0.5) && !scrollsItself(element)
                && getComputedStyle(element).position !== 'absolute') {
            found.push(`${element.tagName.toLowerCase()}${element.id ? '#' + element.id : ''}`
                + ` ${Math.round(box.left)}-${Math.round(box.right)}`);
        }
    }
    return found;
}"""


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> PreparedHome:
    home = staffed_home(
        tmp_path_factory.mktemp("staff-pages-home"), DIRECTOR_PASSWORD, JUDGE_PASSWORD
    )
    cli(home.path, "tournament", "create", "side-event", "--lexicon", "OTHER", "--rule", "single")
    cli(home.path, "kiosk", "add", "a-kiosk-with-a-rather-long-name", "--tournament", "side-event")
    return home


class PageCheck:
    """axe on a laptop and a phone, and sideways scrolling on the phone, for each state."""

    def __init__(self) -> None:
        self.axe = AxeRecord()
        self.sideways: list[str] = []

    def __call__(self, page, state: str) -> None:
        page.set_viewport_size(LAPTOP)
        self.axe.check(page, f"{state} (laptop)")
        page.set_viewport_size(PHONE)
        self.axe.check(page, f"{state} (phone)")
        stuck_out = page.evaluate(SIDEWAYS_JS)
        if stuck_out:
            save_screenshot(page, f"director-sideways-{state.replace(' ', '-')}", full_page=True)
            self.sideways.append(f"{state}: {stuck_out[:5]}")
        page.set_viewport_size(LAPTOP)

    def assert_clean(self) -> None:
        assert not self.sideways, "scrolls sideways on a phone:\n" + "\n".join(self.sideways)
        self.axe.assert_clean()


def staff_sign_in(browser, server: Server, path: str, name: str, password: str, check=None):
    """Signed in as staff; with `check`, a wrong password first, and its page checked."""
    page = open_page(browser, LAPTOP, timeout=10_000)
    page.goto(server.url + path)
    if check:
        fill_sign_in(page, name, "not the password")
        assert page.locator("#login-error").is_visible()
        check(page, "sign-in refused")
    fill_sign_in(page, name, password)
    return page


def submit(page, check, field: str, value: str, button: str, shown: str, label: str) -> None:
    """Fill `field` with `value` and press `button`: `shown` appears, and the page is checked."""
    page.fill(field, value)
    page.click(button)
    page.locator(shown).wait_for(state="visible")  # the form's answer is a new page: wait for it
    check(page, label)


def second_opinion(judge, server: Server, original_id: int, words: str, check=None) -> None:
    judge.goto(server.url + "/judge/")
    judge.fill("#adjudication-id", str(original_id))
    judge.click("#open-case")
    if check:
        check(judge, "the case to judge again")
    judge.fill("#words", words)
    judge.click("#judge-again")
    judge.wait_for_selector("#verdict")


def test_word_judges_pages(browser, server: Server):
    check = PageCheck()
    flagged = server.adjudicate(["QI", "ZA"])[1]
    agreed = server.adjudicate(["QI", "ZAX"])[1]
    judge = staff_sign_in(browser, server, "/judge/login", "alice", JUDGE_PASSWORD, check)
    judge.wait_for_url(server.url + "/judge/")
    check(judge, "second opinion: the number")
    submit(judge, check, "#adjudication-id", "999999", "#open-case", "#judge-error",
           "second opinion: no such number")  # fmt: skip
    second_opinion(judge, server, flagged["id"], "qi zax", check)
    assert judge.locator("#flagged").is_visible()
    check(judge, "second opinion: flagged")
    second_opinion(judge, server, agreed["id"], "qi zax")
    assert judge.locator("#final").is_visible()
    check(judge, "second opinion: final")
    judge.context.close()
    check.assert_clean()


def test_directors_pages(browser, server: Server, home: PreparedHome):
    check = PageCheck()
    for words in (["QI", "ZA"], ["CAT", "DOGS"], ["QI", "ZZZ"]):  # a burst from kiosk k1
        assert server.adjudicate(words)[0] == 201
    open_case = server.adjudicate(["QI", "ZA"])[1]
    ruled_case = server.adjudicate(["CAT"])[1]
    judge = staff_sign_in(browser, server, "/judge/login", "alice", JUDGE_PASSWORD)
    judge.wait_for_url(server.url + "/judge/")
    second_opinion(judge, server, open_case["id"], "qi zax")
    second_opinion(judge, server, ruled_case["id"], "cat dogz")
    judge.context.close()

    page = staff_sign_in(browser, server, "/director/login", "director", DIRECTOR_PASSWORD, check)
    page.wait_for_url(server.url + "/director/")
    assert page.locator("#glance").is_visible()
    check(page, "overview")

    page.goto(server.url + "/director/flags")
    case = page.locator(f"#case-{ruled_case['id']}")
    case.locator("input[value=UNACCEPTABLE]").check()
    case.locator("input[name=reason]").fill("DOGZ is not on the board; the slip was right")
    case.locator("input[name=words]").fill("CAT DOGZ")  # the words differ: the page asks
    case.locator("button").click()
    assert page.locator(".flash-ok").is_visible()
    assert page.locator(f"#case-{open_case['id']}").is_visible()
    check(page, "second opinions")

    page.goto(server.url + "/director/journal")
    assert page.locator("#bursts").is_visible()
    check(page, "journal")
    page.goto(server.url + "/director/journal?since=not-a-time")
    assert page.locator(".flash-error").is_visible()
    check(page, "journal, a time refused")

    page.goto(server.url + "/director/tournaments")
    check(page, "tournaments")
    row = page.locator("#tournament-hall")
    row.locator("select[name=lexicon]").select_option("OTHER")
    row.get_by_role("button", name="Review change…").click()
    assert page.locator("#confirm-table").is_visible()
    check(page, "tournament change to confirm")

    page.goto(server.url + "/director/lexicons")
    check(page, "lexicons")
    page.click("#verify")
    verified = page.locator("#verify-results li").all_inner_texts()  # each read in a child
    assert verified and all(": ok (" in line for line in verified), verified
    check(page, "lexicons verified")
    page.set_input_files("#file", files=[_upload("bad.txt", b"QI\nZA\nNOT A WORD\n")])
    submit(page, check, "#lexicon-name", "BAD", "#import", "#import-error", "an import refused")
    page.set_input_files("#file", files=[_upload("good.txt", b"QI\nZA\nXU\n")])
    submit(page, check, "#lexicon-name", "GOOD", "#import", "#import-summary", "an import done")

    page.goto(server.url + "/director/decisions")  # issue 35: what no kiosk judges
    check(page, "director's decisions")
    page.select_option("#grant-tournament", "side-event")
    page.fill("#grant-round", "2")
    page.fill("#grant-table", "4")
    page.fill("#grant-to", "Lee, Ann")
    submit(page, check, "#grant-reason", "no", "#grant-submit", ".flash-error",
           "a free challenge refused (a reason too short)")  # fmt: skip
    page.fill("#grant-to", "Lee, Ann")
    submit(page, check, "#grant-reason", "score written before the play", "#grant-submit",
           "#open-grants li", "a free challenge granted")  # fmt: skip
    page.check("#decide-form input[value=exchange]")
    page.check("#decide-form input[value=upheld]")
    submit(page, check, "#decide-reason", "the bag held five tiles", "#decide-submit",
           "#recent-decisions td:text-is('UPHELD')", "a director's challenge")  # fmt: skip
    assert page.locator(".flash-ok").is_visible()

    page.goto(server.url + "/director/kiosks")
    check(page, "kiosks")
    submit(page, check, "#kiosk-name", "table-9", "#enrol", "#pairing-code",
           "a kiosk's pairing code")  # fmt: skip
    page.context.close()
    check.assert_clean()


def _upload(name: str, data: bytes) -> dict:
    return {"name": name, "mimeType": "text/plain", "buffer": data}


def test_the_overview_refreshes_by_itself(browser, server: Server, home: PreparedHome):
    page = staff_sign_in(browser, server, "/director/login", "director", DIRECTOR_PASSWORD)
    page.wait_for_url(server.url + "/director/")
    page.clock.install()
    page.reload()
    page.evaluate("window.notReloaded = true")
    kiosks_shown = "#overview-hall-kiosks"  # how many, and a link to each on the hall map
    enrolled = int(re.search(r"of (\d+) online", page.inner_text(kiosks_shown)).group(1))
    cli(home.path, "kiosk", "add", "refresh-kiosk", "--tournament", "hall")
    page.clock.run_for(21_000)  # past the 20 s refresh
    page.wait_for_selector(f"{kiosks_shown}:text('of {enrolled + 1} online')")
    assert page.evaluate("window.notReloaded") is True  # the body was fetched, not the page
    assert page.inner_text("#overview-refresh") == "Refreshes by itself every 20 s."

    page.route("**/director/overview", lambda route: route.abort())
    page.clock.run_for(21_000)
    page.wait_for_selector("#overview-refresh.bad")
    assert "Cannot reach the server" in page.inner_text("#overview-refresh")
    assert f"of {enrolled + 1} online" in page.inner_text(kiosks_shown)  # the last state stays
    check = PageCheck()
    check(page, "overview, server unreachable")
    page.unroute("**/director/overview")

    page.context.clear_cookies()
    page.clock.run_for(21_000)
    page.wait_for_selector("#overview-refresh:text('Signed out')")
    assert "reload the page to sign in again" in page.inner_text("#overview-refresh")
    check.assert_clean()
    page.context.close()
