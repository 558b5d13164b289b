"""The hall's identity on the director's overview, in real Chromium on a phone-sized screen:
the CA's fingerprint whole and inside the screen, and another device answering for the hall's
name named at the top; gone once the hall that found it has stopped."""

from __future__ import annotations

import os

import pytest

from adjudicator.hall.network import hall_tls, name_claims

from support.browser import PHONE, fill_sign_in, staffed_home
from support.paths import ARTIFACTS
from support.servers import PreparedHome, Server

pytestmark = pytest.mark.browser

DIRECTOR_PASSWORD = "director-identity-1"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> PreparedHome:
    return staffed_home(
        tmp_path_factory.mktemp("overview-identity"), DIRECTOR_PASSWORD, "judge-identity-1234"
    )


def test_the_overview_shows_the_fingerprint_and_another_device_on_a_phone(
    new_page, server: Server, home: PreparedHome, monkeypatch
):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(home.path))
    tls = hall_tls.ensure("club", ["192.168.1.20"], own_networks=[])
    heard = {"192.168.1.66": (1_700_000_000.0, 1_700_000_030.0)}
    found = name_claims.others_from(heard, frozenset({"192.168.1.20"}))
    # written as the running hall writes it (this process plays the supervising one)
    name_claims.write(
        name_claims.NameClaims("club", True, "https://192.168.1.20:8443", found, os.getpid())
    )
    page = new_page(PHONE)
    page.goto(server.url + "/director/login")
    fill_sign_in(page, "director", DIRECTOR_PASSWORD)
    page.wait_for_url(server.url + "/director/")

    fingerprint = page.locator("#overview-ca-fingerprint")
    lines = hall_tls.fingerprint_lines(tls.ca_fingerprint)  # as the terminal prints it
    assert fingerprint.inner_text().split() == " ".join(lines).split()
    box = fingerprint.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]  # wrapped, all of it
    # eight groups of four pairs, none broken across lines on a 390 px phone (issue 36)
    assert groups_as_shown(page, "#overview-ca-fingerprint") == [
        (group, 1) for group in " ".join(lines).split()
    ]
    warning = page.locator("#overview-name-warnings li")
    assert warning.count() == 1
    said = warning.inner_text()
    assert "Another device (192.168.1.66) answers for club.local too" in said
    assert "https://192.168.1.20:8443" in said and "another --name" in said
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "overview-identity-phone.png"), full_page=True)

    name_claims.clear()  # the hall stopped
    page.reload()
    assert page.locator("#overview-name-warnings").count() == 0
    assert page.locator("#overview-ca-fingerprint").inner_text().split() == (
        " ".join(lines).split()
    )


def groups_as_shown(page, where: str) -> list[tuple[str, int]]:
    """Each fingerprint group under `where`: its text and how many line boxes it takes."""
    return [
        tuple(item)
        for item in page.evaluate(
            "(where) => [...document.querySelectorAll(where + ' .fingerprint-group')]"
            ".map(g => [g.textContent, g.getClientRects().length])",
            where,
        )
    ]
