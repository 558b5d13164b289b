"""The pairing sheet printed by real Chromium on A4 and on Letter: four tables a page, no card
cut across two pages, every card's QR code, code and expiry inside the card, and the hall
CA's fingerprint on every page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adjudicator.hall import sheet_page
from adjudicator.hall.network import hall_tls
from adjudicator.hall.pairing_sheet import SheetTable

from support.browser import browser_missing_reason, launched_chromium
from support.paths import ARTIFACTS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(browser_missing_reason() is not None, reason=str(browser_missing_reason())),
]
BASE = "https://scrabble.local:8443"


FINGERPRINT = ":".join(["9F", "3A", "C4", "17"] * 8)


def sheet(count: int) -> str:
    expires = "2031-05-04T16:30:00.000000+00:00"
    tables = [
        SheetTable(
            n, f"open table {n}", f"ABCDEFGH{n:02d}", f"{BASE}/pair#ABCDEFGH{n:02d}", True, expires
        )
        for n in range(1, count + 1)
    ]
    return sheet_page.render(
        "Club Open, CSW division", "open", tables, BASE, fingerprint=FINGERPRINT
    )


@pytest.mark.parametrize("paper", ["A4", "Letter"])
@pytest.mark.parametrize("count, pages", [(20, 5), (5, 2), (1, 1)])
def test_the_sheet_prints_four_tables_a_page(paper, count, pages, tmp_path):
    with launched_chromium() as chromium:
        page = chromium.new_page()
        page.set_content(sheet(count))
        pdf = page.pdf(format=paper, print_background=True)
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / f"pairing-sheet-{count}-{paper}.pdf").write_bytes(pdf)
        assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == pages
        shown = " ".join(hall_tls.fingerprint_lines(FINGERPRINT))  # as the terminal prints it
        assert page.locator(".fingerprint", has_text=shown).count() == pages
        page.emulate_media(media="print")
        cards = page.locator(".table-card")
        assert cards.count() == count
        for i in range(count):  # each card shows its whole QR code, its code and its expiry
            box = cards.nth(i).bounding_box()
            qr = cards.nth(i).locator("svg").bounding_box()
            code = cards.nth(i).locator(".code").bounding_box()
            expires = cards.nth(i).locator(".expires").bounding_box()
            once = cards.nth(i).locator(".once").bounding_box()
            assert 150 <= qr["width"] <= 200 and 150 <= qr["height"] <= 200  # ~42 mm: small,
            # and still what a camera reads at arm's length
            for inner in (qr, code, expires, once):
                assert (
                    box["y"] <= inner["y"]
                    and inner["y"] + inner["height"] <= box["y"] + box["height"]
                )


def test_the_sheet_and_the_trust_page_have_no_accessibility_violation(tmp_path, monkeypatch):
    from support.axe import axe_missing_reason, axe_violations

    if axe_missing_reason():
        pytest.skip(axe_missing_reason())
    from adjudicator.hall.network import hall_tls
    from kiosk import create_app

    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    hall_tls.ensure("club", ["192.168.1.20"])
    trust = create_app({"TESTING": True}).test_client().get("/hall/trust")
    assert trust.status_code == 200
    with launched_chromium() as chromium:
        page = chromium.new_page()
        page.set_content(sheet(3))
        assert axe_violations(page) == []
        # the trust page with its styles inlined: set_content has no server to load them from
        css = (Path(__file__).resolve().parents[2] / "kiosk" / "static" / "kiosk.css").read_text()
        html = re.sub(r'<link rel="stylesheet"[^>]*>', f"<style>{css}</style>", trust.text)
        page.set_content(html)
        assert axe_violations(page) == []
