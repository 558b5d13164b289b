"""Issue 43, item 1: a free challenge used at the kiosk, in real Chromium.

NSA VI.C: for a player found recording the score before making the play, "An appropriate
penalty would be to give the opponent a free challenge." The director grants it (`adjudicator
free-challenge --tournament nsa-open --to Ann --round 1 --table 5`); Ann then challenges at the
kiosk of table 5. The kiosk asks who challenges (the rulebook names free challenges: the fields
are shown, to fill in or not), the verdict says the free challenge pays for it, citing VI.C, the
grant is used (the row records it; `tournament show` no longer lists it), and Ann's next
unsuccessful challenge costs the turn again. Under NASPA, whose rulebook names no free challenge
granted for later, the kiosk asks only while a grant may be open for its table, and stops when
it is used. On the real NWL2023; the kiosk is paired as a tablet through its pairing link.
"""

from __future__ import annotations

import json

import pytest

from support.browser import PAIRING_LINK, TABLET, pair_page, staffed_home, type_and_judge
from support.paths import SHARED_LEXICONS, present
from support.servers import PreparedHome, cli

pytestmark = [pytest.mark.browser]

DIRECTOR_PASSWORD = "free-director-12"
POLL_SECONDS = 25  # a held status poll answers within a second or two of a change


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> PreparedHome:
    """An NSA event and a NASPA event on the real NWL2023 under double challenge."""
    nwl = present(SHARED_LEXICONS / "NWL2023.txt", "is needed: the kiosk judges on it")
    home = staffed_home(tmp_path_factory.mktemp("free-kiosk"), DIRECTOR_PASSWORD, "judge-free-12")
    cli(home.path, "lexicon", "import", str(nwl), "--name", "NWL2023")
    cli(
        home.path, "tournament", "create", "nsa-open", "--lexicon", "NWL2023", "--rule", "double",
        "--rulebook", "nsa-1998", "--title", "NSA Open",
        "--off-rulebook", "a browser test: NWL2023 stands in for the 1998 OWL recipe",
    )  # fmt: skip
    cli(
        home.path, "tournament", "create", "naspa-open", "--lexicon", "NWL2023", "--rule",
        "double", "--rulebook", "naspa", "--title", "NASPA Open",
    )  # fmt: skip
    return home


def kiosk(home, server, new_page, name: str, tournament: str, table: str):
    out = cli(home.path, "kiosk", "add", name, "--tournament", tournament, "--table", table)
    return pair_page(new_page(TABLET), server.url, PAIRING_LINK.search(out).group(1), "/pair#")


def challenge(page, words: str, **fields: str) -> dict[str, str]:
    """Fill the game fields given, type `words`, JUDGE: what the verdict screen says."""
    for name, value in fields.items():
        page.fill(f"#game-{name}", value)
    type_and_judge(page, words)
    shown = {
        "id": page.inner_text("#verdict-id").lstrip("#"),
        "word": page.inner_text("#verdict-word"),
        "consequence": page.inner_text("#verdict-consequence"),
        "screen": page.inner_text("#verdict-screen"),
    }
    page.wait_for_timeout(1600)  # the verdict screen ignores input for 1.5 s
    page.click("#verdict-done")
    page.wait_for_selector("#idle-screen:not([hidden])")
    return shown


def row(home, row_id: str) -> dict:
    rows = json.loads(cli(home.path, "journal", "export", "--format", "json"))
    return next(r for r in rows if str(r["id"]) == row_id)


def test_nsa_vi_c_the_kiosk_asks_who_challenges_and_the_grant_pays(home, server, new_page):
    page = kiosk(home, server, new_page, "nsa-table-5", "nsa-open", "5")
    # VI.C names the free challenge: the kiosk asks who challenges, to fill in or not
    page.wait_for_selector("#game-details:not([hidden])")
    assert page.locator("#game-why-free").is_visible()
    assert page.locator("#game-why-count").is_hidden()
    assert page.input_value("#game-table") == "5"  # the kiosk's own table, read-only
    # a challenge that names nobody is judged as ever (nothing required)
    plain = challenge(page, "QI")
    assert "The challenger loses their turn." in plain["consequence"]
    out = cli(
        home.path, "free-challenge", "--tournament", "nsa-open", "--to", "Ann", "--round", "1",
        "--table", "5", "--reason", "Bob recorded the score before playing",
    )  # fmt: skip
    grant = out.split("Free challenge #")[1].split()[0]
    assert f"free challenge #{grant} not yet used: Ann" in cli(
        home.path, "tournament", "show", "nsa-open"
    )
    # Bob's unsuccessful challenge is not Ann's: it costs his turn
    bob = challenge(page, "ZA", round="1", challenger="Bob")
    assert f"#{grant}" not in bob["screen"]
    assert "The challenger loses their turn." in bob["consequence"]
    # Ann's: the grant pays for it, citing NSA VI.C, and nothing else of any rulebook
    ann = challenge(page, "QI ZA", round="1", challenger="Ann")
    assert ann["word"] == "ACCEPTABLE"
    assert f"Free challenge #{grant}, granted by the director (NSA VI.C): no penalty to " \
        "either player." in ann["consequence"]  # fmt: skip
    assert "loses their turn" not in ann["consequence"] and "XII" not in ann["screen"]
    used = row(home, ann["id"])
    assert used["details"]["free_challenge"] == int(grant)
    assert used["penalty"]["waived"] is True and not used["penalty"]["challenger_loses_turn"]
    assert (used["challenger"], used["round"], used["table"]) == ("Ann", "1", "5")
    assert "not yet used" not in cli(home.path, "tournament", "show", "nsa-open")
    # spent: her next unsuccessful challenge costs the turn again (NSA X.F)
    again = challenge(page, "QI", round="1", challenger="Ann")
    assert f"#{grant}" not in again["screen"]
    assert "The challenger loses their turn." in again["consequence"]


def test_naspa_the_kiosk_asks_only_while_a_grant_may_be_open_for_its_table(home, server, new_page):
    page = kiosk(home, server, new_page, "naspa-table-7", "naspa-open", "7")
    assert page.locator("#game-details").is_hidden()  # double, and no grant: nothing asked
    out = cli(
        home.path, "free-challenge", "--tournament", "naspa-open", "--to", "Bea", "--round",
        "2", "--table", "7", "--reason", "opponent recorded the score early",
    )  # fmt: skip
    grant = out.split("Free challenge #")[1].split()[0]
    # the next status poll (held, answered on the change) shows the fields
    page.wait_for_selector("#game-details:not([hidden])", timeout=POLL_SECONDS * 1000)
    assert page.locator("#game-why-free").is_visible()
    bea = challenge(page, "QI", round="2", challenger="Bea")
    assert f"Free challenge #{grant}, granted at the director's discretion (NASPA 1.2): no " \
        "penalty to either player." in bea["consequence"]  # fmt: skip
    assert "VI.C" not in bea["screen"] and "NSA" not in bea["screen"]
    # used: the kiosk stops asking
    page.wait_for_selector("#game-details", state="hidden", timeout=POLL_SECONDS * 1000)
    # another table's grant does not make this kiosk ask
    cli(
        home.path, "free-challenge", "--tournament", "naspa-open", "--to", "Cy", "--round", "2",
        "--table", "9", "--reason", "opponent recorded the score early",
    )  # fmt: skip
    page.wait_for_timeout(3000)
    assert page.locator("#game-details").is_hidden()
