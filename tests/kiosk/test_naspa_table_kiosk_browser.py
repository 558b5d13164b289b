"""NASPA 6.2 at a table's kiosk, in real Chromium (issue 28's "Done when").

NASPA 6.2, "Improper Lookups": "If you are challenging more than one word and you enter them
separately ... if it was solely your error and the word is invalid, you lose 10 points." The hall
flags two challenges from one kiosk within the look-up window for the same table and round. A
NASPA event on NWL2023 (NASPA 1.3) under double challenge asks the players for no game details,
so the table comes from the kiosk: `kiosk add NAME --table N`. Paired as a tablet, the kiosk
judges two challenges in a row; the players see two verdicts and nothing of a flag; the
director's flags page lists the second as a possible separate look-up at table 5.
"""

from __future__ import annotations

import re

import pytest

from support.browser import (
    PAIRING_LINK,
    TABLET,
    pair_page,
    save_screenshot,
    sign_in,
    staffed_home,
    type_and_judge,
)
from support.paths import SHARED_LEXICONS, present
from support.servers import PreparedHome, cli

pytestmark = [pytest.mark.browser]

DIRECTOR_PASSWORD = "naspa-director-1"
# Generous: the box is loaded, and the two challenges must fall inside the window.
SERVER_SETTINGS = {"separate_lookup_seconds": "600"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> PreparedHome:
    """A NASPA event on the real NWL2023 under double challenge, the director's password set."""
    nwl = present(SHARED_LEXICONS / "NWL2023.txt", "is needed: NASPA 1.3 names NWL")
    home = staffed_home(tmp_path_factory.mktemp("naspa-6-2"), DIRECTOR_PASSWORD, "judge-6-2-pw12")
    cli(home.path, "lexicon", "import", str(nwl), "--name", "NWL2023")
    made = cli(
        home.path, "tournament", "create", "naspa-open", "--lexicon", "NWL2023", "--rule",
        "double", "--rulebook", "naspa", "--title", "NASPA Open", "--date", "2025-03-01",
    )  # fmt: skip
    assert "off the rulebook" not in made  # NWL2023 and double: NASPA 1.3's own
    return home


def judge(page, words: str) -> str:
    """Type `words`, press JUDGE; the adjudication's number on the verdict screen."""
    type_and_judge(page, words)
    return page.inner_text("#verdict-id").lstrip("#")


def test_naspa_6_2_a_tables_kiosk_raises_the_flag_on_the_directors_flags_page(
    home, server, new_page, browser
):
    out = cli(home.path, "kiosk", "add", "table-5", "--tournament", "naspa-open", "--table", "5")
    page = pair_page(new_page(TABLET), server.url, PAIRING_LINK.search(out).group(1), "/pair#")
    assert page.locator("#game-details").is_hidden()  # double: the players give no game
    first = judge(page, "QI")
    page.wait_for_timeout(1600)  # the verdict screen ignores input for 1.5 s
    page.click("#verdict-done")
    page.wait_for_selector("#idle-screen:not([hidden])")
    second = judge(page, "ZAX QAT")
    shown = page.inner_text("#verdict-screen")
    assert "6.2" not in shown and "look-up" not in shown.lower()  # the players see no flag
    director = sign_in(browser, server.url, "/director/login", "director", DIRECTOR_PASSWORD)
    director.goto(f"{server.url}/director/flags")
    card = director.locator(f"#lookup-{second}")
    card.wait_for()
    text = card.inner_text()
    assert "NASPA Open" in text or "naspa-open" in text
    assert "table 5" in text
    assert re.search(rf"possible improper separate look-up \(NASPA 6\.2\): #{first} came", text)
    assert director.locator(f"#lookup-{first}").count() == 0  # the first is not flagged
    save_screenshot(director, "naspa-6-2-flags-at-a-tables-kiosk", full_page=True)
    director.context.close()
