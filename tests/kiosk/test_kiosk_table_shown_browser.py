"""A kiosk seated at a table shows its table, with TSH or without (issue 44; docs/director.md:
"its screen shows the table, read-only"). In real Chromium: a tournament on no TSH link and a
rule that asks for no game details (double), a kiosk added with `--table 1` shows "Table 1"
on its status bar; moved to table 4 (`kiosk table`), it shows 4 from its next poll; seated at
no table, it shows none. Nothing of it can be typed over."""

from __future__ import annotations

import pytest

from support.browser import PAIRING_LINK, PHONE, TABLET, off_screen, pair_page, wait_until
from support.servers import PreparedHome, cli, prepare_home

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> PreparedHome:
    return prepare_home(tmp_path_factory.mktemp("table-shown") / "home", rule="double")


def paired_at(home, server, new_page, name: str, *table: str, viewport=TABLET):
    out = cli(home.path, "kiosk", "add", name, "--tournament", "hall", *table)
    code = PAIRING_LINK.search(out).group(1)
    return pair_page(new_page(viewport), server.url, code, "/pair#")


def test_a_kiosk_added_with_a_table_shows_it_without_tsh(home, server, new_page):
    page = paired_at(home, server, new_page, "table-one", "--table", "1")
    assert page.locator("#game-details").is_hidden()  # double: no game details are asked
    assert page.locator("#table-game").is_hidden()  # no TSH link: no game to show
    shown = page.locator("#kiosk-table")
    assert shown.is_visible()
    assert " ".join(shown.inner_text().split()).lower() == "table 1"
    assert page.locator("#kiosk-table input").count() == 0  # shown, not typed
    cli(home.path, "kiosk", "table", "table-one", "4")
    number = "document.getElementById('kiosk-table-number').textContent"
    wait_until(page, f"{number} === '4'", timeout=40)  # from its next poll
    cli(home.path, "kiosk", "table", "table-one", "none")
    wait_until(page, "document.getElementById('kiosk-table').hidden", timeout=40)


def test_a_kiosk_of_no_table_shows_none(home, server, new_page):
    page = paired_at(home, server, new_page, "hall-computer")
    wait_until(page, "document.getElementById('tournament-title').textContent !== '…'")
    assert page.locator("#kiosk-table").is_hidden()


def test_the_table_fits_a_phones_status_bar(home, server, new_page):
    page = paired_at(home, server, new_page, "table-twelve", "--table", "12", viewport=PHONE)
    assert page.locator("#kiosk-table").is_visible()
    assert off_screen(page) == []
