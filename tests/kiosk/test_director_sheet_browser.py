"""The pairing sheet printed from the director's Kiosks page, in real headless Chromium against
`adjudicator serve`: under the page's own Content-Security-Policy (no violation logged), four
tables on one A4 page and on one Letter page, small QR codes, each card's expiry and the hall
CA's fingerprint on the page. PDFs and a screenshot: test-artifacts/director-sheet-*."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from adjudicator.hall.network import hall_tls

from support.browser import ARTIFACTS, sign_in, staffed_home
from support.servers import PreparedHome

DIRECTOR_PASSWORD = "director-sheet-1"
JUDGE_PASSWORD = "judge-sheet-1234"

pytestmark = [pytest.mark.browser]

# Every policy violation the page sees, kept where the test can read it (the console message
# Chromium logs for one is read too).
WATCH_POLICY = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> PreparedHome:
    return staffed_home(tmp_path_factory.mktemp("sheet-home"), DIRECTOR_PASSWORD, JUDGE_PASSWORD)


@pytest.fixture(scope="module")
def fingerprint(home) -> str:
    """The hall's CA, made as `adjudicator hall` makes it; its fingerprint."""
    made = subprocess.run(
        [
            sys.executable,
            "-c",
            "from adjudicator.hall.network import hall_tls; "
            "print(hall_tls.ensure('club', ['192.168.1.20']).ca_fingerprint)",
        ],
        env={**home.env, "ADJUDICATOR_HOME": str(home.path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return made.stdout.strip()


def print_sheet(browser, server, tables: str, language: str = "en"):
    """The director signs in, fills the Kiosks page's sheet form and gets the sheet; the page,
    and what the console said."""
    page = sign_in(browser, server.url, "/director/login", "director", DIRECTOR_PASSWORD)
    page.context.add_init_script(WATCH_POLICY)
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.goto(server.url + "/director/kiosks")
    page.fill("#sheet-tables", tables)
    assert page.input_value("#sheet-hours") == "72"
    with page.expect_navigation():
        page.click("#print-sheet")
    page.wait_for_load_state("load")
    return page, console


def policy_violations(page, console: list[str]) -> list[str]:
    said = [line for line in console if "Content Security Policy" in line or "Refused" in line]
    return said + page.evaluate("window.__violations")


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_four_tables_print_on_one_page_with_no_policy_violation(
    browser, server, fingerprint, paper
):
    page, console = print_sheet(browser, server, "1-4")
    try:
        assert page.url == server.url + "/director/kiosks/sheet"
        assert page.locator(".table-card").count() == 4
        # the page's stylesheet applies: dashed cards, small QR codes (not 1,264 px wide)
        border = page.evaluate(
            "getComputedStyle(document.querySelector('.table-card')).borderTopStyle"
        )
        assert border == "dashed"
        for box in [q.bounding_box() for q in page.locator(".table-card svg.qr").all()]:
            assert 140 <= box["width"] <= 200 and box["width"] == box["height"]
        expiry = page.locator(".table-card .expires").all_inner_texts()
        assert len(expiry) == 4 and all(
            re.fullmatch(r"Valid until \d{4}-\d\d-\d\d \d\d:\d\d \(the hall's clock\);.*", text)
            for text in expiry
        )
        shown = " ".join(hall_tls.fingerprint_lines(fingerprint))  # as the terminal prints it
        assert page.locator(".fingerprint").inner_text().count(shown) == 1
        pdf = page.pdf(format=paper, print_background=True)
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / f"director-sheet-4-{paper}.pdf").write_bytes(pdf)
        page.screenshot(path=str(ARTIFACTS / "director-sheet-4.png"), full_page=True)
        assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1
        assert policy_violations(page, console) == []
    finally:
        page.context.close()


def test_the_sheet_is_served_under_the_pages_own_policy(browser, server, fingerprint):
    """The check above means something: the sheet's answer carries the strict policy, so an
    inline style on it would be blocked (and reported), as it was before."""
    page, console = print_sheet(browser, server, "5-6")
    try:
        answer = page.context.request.get(server.url + "/director/kiosks")
        assert "style-src 'self'" in answer.headers["content-security-policy"]
        page.evaluate(
            "() => { const s = document.createElement('style');"
            " s.textContent = 'body { color: red }'; document.head.appendChild(s); }"
        )
        page.wait_for_timeout(200)
        assert any("style-src" in line for line in policy_violations(page, console))
    finally:
        page.context.close()


def test_nine_tables_print_on_three_pages_each_with_the_fingerprint(browser, server, fingerprint):
    page, _console = print_sheet(browser, server, "11-19")
    try:
        pdf = page.pdf(format="A4", print_background=True)
        assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 3
        shown = " ".join(hall_tls.fingerprint_lines(fingerprint))
        assert page.locator(".fingerprint", has_text=shown).count() == 3
    finally:
        page.context.close()


def open_card(browser, server, link: str):
    """A tablet scans a card's QR code and presses Pair: the page it is left on, and the
    status of the answer to its press."""
    from support.browser import open_page

    tablet = open_page(browser, {"width": 768, "height": 1024})
    tablet.goto(link.replace("https://club.local:8443", server.url))
    with tablet.expect_response(
        lambda r: r.url.endswith("/pair") and r.request.method == "POST"
    ) as answer:
        tablet.click("#pair-button")
    return tablet, answer.value.status


def test_an_expired_card_is_refused_saying_to_ask_the_director_for_a_new_card(
    browser, server, home, monkeypatch
):
    from datetime import UTC, datetime, timedelta

    from adjudicator.hall import pairing_sheet
    from adjudicator.hall.hall import Hall

    monkeypatch.setenv("ADJUDICATOR_HOME", str(home.path))  # the server's journal and key
    printed = datetime.now(UTC) - timedelta(hours=3)  # a frozen clock: printed 3 hours ago
    (card,) = pairing_sheet.enrol_tables(
        Hall().db, "hall", [31], "https://club.local:8443", hours=2, now=printed
    )
    tablet, status = open_card(browser, server, card.link)
    try:
        assert status == 400
        said = tablet.inner_text("#pair .error")
        ends = (printed + timedelta(hours=2)).astimezone().strftime("%Y-%m-%d %H:%M")
        assert said == (
            f"This card's code expired at {ends} (the hall's clock). "
            "Ask the director for a new card."
        )
        assert not tablet.locator("#word-input").count()  # not paired
    finally:
        tablet.context.close()


def test_a_moved_or_revoked_kiosks_card_no_longer_pairs(browser, server, home, monkeypatch):
    from adjudicator.hall import pairing_sheet
    from adjudicator.hall.hall import Hall

    from support.servers import cli

    monkeypatch.setenv("ADJUDICATOR_HOME", str(home.path))
    cli(home.path, "tournament", "create", "annex", "--lexicon", "TINY", "--rule", "double")
    moved, revoked = pairing_sheet.enrol_tables(
        Hall().db, "hall", [41, 42], "https://club.local:8443"
    )
    cli(home.path, "kiosk", "move", moved.kiosk, "--tournament", "annex")
    cli(home.path, "kiosk", "revoke", revoked.kiosk)
    for card in (moved, revoked):
        tablet, status = open_card(browser, server, card.link)
        try:
            assert status == 400
            assert "Ask the director for a new one." in tablet.inner_text("#pair .error")
            assert not tablet.locator("#word-input").count()
        finally:
            tablet.context.close()
