"""Issue 46 in real headless Chromium: the challenge report and the season as the director reads
them on a real `adjudicator serve` (axe-clean, sortable, printed on A4 with nothing cut off),
the report's own file as `adjudicator report` writes it (several A4 pages, no table wider than
the page), closing the event from the Tournaments page, and a kiosk of the closed event.

Screenshots and PDFs go to test-artifacts/ (record-*).
"""

from __future__ import annotations

import re
import time

import pytest

from adjudicator.hall.director import report, report_page
from adjudicator.judging.corrections import voids

from support.axe import AxeRecord, axe_missing_reason
from support.browser import ARTIFACTS, open_page, sign_in, staffed_home
from support.hall import build_setup
from support.servers import PreparedHome, cli

DIRECTOR_PASSWORD = "director-record-1"
JUDGE_PASSWORD = "judge-record-123"
A4_WIDTH = 703  # CSS pixels inside the report's 12 mm margins: (210 - 24) mm at 96 dpi

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(axe_missing_reason() is not None, reason=str(axe_missing_reason())),
]


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> PreparedHome:
    return staffed_home(tmp_path_factory.mktemp("record-home"), DIRECTOR_PASSWORD, JUDGE_PASSWORD)


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf))


def overflow(page) -> list[str]:
    """What sticks out to the right of the page as printed (none: an empty list)."""
    return page.evaluate(
        """() => {
            const width = document.documentElement.clientWidth;
            const out = [];
            for (const node of document.querySelectorAll('main table, main p, main h1, main h2')) {
                const box = node.getBoundingClientRect();
                if (box.right > width + 1 && getComputedStyle(node).display !== 'none') {
                    out.push(node.tagName + '#' + node.id + ' ' + Math.round(box.right));
                }
            }
            if (document.documentElement.scrollWidth > width + 1) { out.push('the page'); }
            return out;
        }"""
    )


def printed(page, name: str) -> int:
    """The page printed to PDF on A4 (kept in test-artifacts/): its number of pages, once
    nothing overflows the A4 width when laid out for print."""
    page.emulate_media(media="print")
    page.set_viewport_size({"width": A4_WIDTH, "height": 1000})
    assert overflow(page) == [], name
    pdf = page.pdf(format="A4", print_background=True)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"record-{name}.pdf").write_bytes(pdf)
    page.emulate_media(media="screen")
    return pdf_pages(pdf)


def test_the_director_reads_closes_and_prints_the_report(browser, server, home):
    for words, who in ((["QI", "ZA"], ("Lee, Ann", "Okafor, Dev")),
                       (["CAT", "DOGX"], ("Okafor, Dev", "Lee, Ann")),
                       (["ZEBRA"], ("Lee, Ann", "Okafor, Dev"))):  # fmt: skip
        status, _ = server.adjudicate(words, challenger=who[0], player=who[1], round="1", table="3")
        assert status == 201
    axe = AxeRecord()
    page = sign_in(browser, server.url, "/director/login", "director", DIRECTOR_PASSWORD)
    page.goto(server.url + "/director/tournaments")
    page.click("#report-hall")
    page.wait_for_selector("#report-title")
    assert "this report is the director's alone" in page.inner_text("#report-state")
    assert page.locator("#report-words").count() == 0  # no study list while the event runs
    axe.check(page, "report")
    assert printed(page, "director-report") >= 1
    assert page.locator(".staff-bar").is_visible()  # on screen; hidden when printed
    page.goto(server.url + "/director/season")
    page.click("#col-challenges_made a")
    page.wait_for_selector('#col-challenges_made[aria-sort="descending"]')
    axe.check(page, "season")
    names = page.locator("#season-players tbody th").all_inner_texts()
    assert names[0] == "Lee, Ann"  # two challenges made

    page.goto(server.url + "/director/tournaments")
    page.click("#close-hall")
    page.wait_for_selector("#close-form")
    axe.check(page, "close confirmation")
    page.fill("#close-reason", "the last round is in")
    page.click("#close-confirm")
    assert "is closed" in page.inner_text(".flash-ok")
    page.click("#report-hall")
    page.click("#report-words")
    page.wait_for_selector("#report-title")
    assert "DOGX" in page.inner_text("#report")
    axe.check(page, "report with the words")
    page.screenshot(path=str(ARTIFACTS / "record-report-words.png"), full_page=True)
    axe.assert_clean()
    cli(home.path, "tournament", "reopen", "hall", "--reason", "the tests go on")
    page.context.close()


def test_a_kiosk_of_a_closed_event_says_it_is_over(browser, server, home):
    from playwright.sync_api import expect

    kiosk = open_page(browser, {"width": 1280, "height": 800})
    kiosk.goto(f"{server.url}/pair#{home.pairing_code}")
    kiosk.click("#pair-button")
    expect(kiosk.locator("#lexicon-name")).to_have_text("TINY")
    assert kiosk.locator("#service-alert").is_hidden()
    cli(home.path, "tournament", "close", "hall", "--reason", "the event is over")
    kiosk.reload()
    expect(kiosk.locator("#service-alert")).to_contain_text("This event is over", timeout=15_000)
    kiosk.locator("#word-input").fill("QI")
    kiosk.keyboard.press("Enter")
    expect(kiosk.locator("body")).to_contain_text("no challenge is judged", timeout=10_000)
    assert "ACCEPTABLE" not in kiosk.inner_text("body")
    kiosk.screenshot(path=str(ARTIFACTS / "record-kiosk-closed.png"))
    status, body = server.adjudicate(["QI"])
    if status == 429:  # the page's browser holds the kiosk's six connections, all just used
        assert "as many connections open as a kiosk may" in body.get("error", str(body))
        time.sleep(1.5)  # one idle a second makes room (kiosk/server/admission.py)
        status, body = server.adjudicate(["QI"])
    assert status == 409 and "verdict" not in body
    cli(home.path, "tournament", "reopen", "hall", "--reason", "one more game")
    expect(kiosk.locator("#service-alert")).to_be_hidden(timeout=15_000)
    kiosk.context.close()


def test_the_report_file_prints_on_a4_pages_with_nothing_cut_off(browser, tmp_path, monkeypatch):
    """A long event (8 rounds, 12 tables, long names, corrections) as `adjudicator report
    --format html` writes it: several A4 pages, every table inside the page, axe-clean."""
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    setup = build_setup(tmp_path)
    hall = setup.hall
    from adjudicator.hall import kiosks

    kiosk = kiosks.get(hall.db, "table-1")
    long_names = ["Wolfe-Zielinski, Maximilian Alexander", "Okafor-Tanaka, Cleopatra Evangeline"]
    for round_number in range(1, 9):
        for table in range(1, 13):
            words = ["QUIXOTIC", "ZEBRA", "CAT", "DOG", "FOX"] if table % 3 else ["DOGX"]
            entry = hall.adjudicate(kiosk, words, round=str(round_number), table=str(table),
                                    challenger=long_names[table % 2],
                                    player=long_names[1 - table % 2])  # fmt: skip
            if table == 5:
                voids.void(hall.db, entry.id, "typed at the wrong table, then typed again at "
                           "the right one by the director", actor="td", station="td")  # fmt: skip
    found = report.build(hall, "spring-nwl")
    html = report_page.page(report_page.body(found), report_page.title(found))
    page = open_page(browser)
    page.set_content(html)
    axe = AxeRecord()
    axe.check(page, "report file")
    axe.assert_clean()
    pages = printed(page, "report-file")
    assert pages >= 4  # 96 challenges and the players' tables
    rounds = page.locator("h2[id^=round-]").all_inner_texts()
    assert rounds == [f"Round {n}" for n in range(1, 9)]
    page.context.close()
