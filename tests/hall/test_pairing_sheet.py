"""The pairing sheet: table numbers read, a kiosk per table enrolled or reused, codes that last
until used (once) or replaced, refusals before any change, and the printable page."""

from __future__ import annotations

import re

import pytest

from adjudicator.hall import kiosks, pairing_sheet, sheet_page, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.hall.pairing_sheet import SheetError

BASE = "https://club.local:8443"


@pytest.fixture
def hall(home, tiny):
    hall = Hall()
    hall.upgrade()
    tournaments.create(hall.db, hall.store, "spring", "TINY", "double", "Spring <Open>")
    return hall


def test_tables_are_read_from_ranges_and_lists():
    assert pairing_sheet.tables("1-4") == [1, 2, 3, 4]
    assert pairing_sheet.tables(" 1-3, 8,10-11 ,3") == [1, 2, 3, 8, 10, 11]


@pytest.mark.parametrize(
    "text, says",
    [
        ("", "such as 1-20"),
        ("1-", "such as 1-20"),
        ("a-b", "such as 1-20"),
        ("5-2", "the smaller number first"),
        ("0-3", "from 1 to 999"),
        ("1-1000", "from 1 to 999"),
        ("1-201", "at most 200"),
    ],
)
def test_bad_tables_say_what_to_type(text, says):
    with pytest.raises(SheetError, match=says):
        pairing_sheet.tables(text)


def test_each_table_gets_a_kiosk_and_a_code_that_lasts_until_used_once(hall):
    sheet = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2], BASE)
    assert [t.kiosk for t in sheet] == ["spring table 1", "spring table 2"]
    assert all(t.new for t in sheet)
    assert sheet[0].link == f"{BASE}/pair#{sheet[0].pairing_code}"
    row = hall.db.query_one(
        "SELECT pairing_expires_at FROM kiosks WHERE name = ?", ("spring table 1",)
    )
    assert row["pairing_expires_at"] == kiosks.UNTIL_USED  # not 24 hours: it is on paper
    kiosk, _nonce = kiosks.redeem_pairing(hall.db, sheet[0].pairing_code)
    assert kiosk.name == "spring table 1" and kiosk.tournament == "spring"
    assert kiosks.redeem_pairing(hall.db, sheet[0].pairing_code) is None  # once only


def test_printing_again_reuses_the_kiosks_and_replaces_the_old_codes(hall):
    first = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2], BASE)
    second = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2, 3], BASE)
    assert [t.new for t in second] == [False, False, True]
    assert len(kiosks.list_all(hall.db)) == 3
    assert kiosks.redeem_pairing(hall.db, first[0].pairing_code) is None  # a lost sheet: dead
    assert kiosks.redeem_pairing(hall.db, second[0].pairing_code) is not None


def test_a_revoked_tables_kiosk_refuses_the_whole_sheet_before_any_change(hall):
    first = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2], BASE)
    kiosks.revoke(hall.db, "spring table 2")
    with pytest.raises(SheetError, match="Table 2's kiosk 'spring table 2' was revoked"):
        pairing_sheet.enrol_tables(hall.db, "spring", [1, 2, 3], BASE)
    assert kiosks.redeem_pairing(hall.db, first[0].pairing_code) is not None  # unchanged
    assert len(kiosks.list_all(hall.db)) == 2


def test_an_unknown_tournament_is_refused(hall):
    with pytest.raises(tournaments.TournamentError):
        pairing_sheet.enrol_tables(hall.db, "autumn", [1], BASE)


def test_the_page_has_a_card_per_table_four_a_page_and_says_the_code_works_once(hall):
    sheet = pairing_sheet.enrol_tables(hall.db, "spring", list(range(1, 10)), BASE)
    page = sheet_page.render("Spring <Open>", "spring", sheet, BASE)
    assert page.count('<article class="table-card"') == 9
    assert page.count('<section class="sheet-page">') == 3  # 4 + 4 + 1
    assert page.count("<svg") == 9
    assert "Spring &lt;Open&gt;" in page and "Spring <Open>" not in page
    assert page.count("This code works once") == 9
    assert f"{BASE}/hall/trust" in page
    assert not re.search(r"<(script|link|img)\b", page)  # one file: nothing else to load
    for table in sheet:
        assert f'<p class="code">{table.pairing_code}</p>' in page


def test_the_links_speak_the_tournaments_language(hall):
    tournaments.update(hall.db, hall.store, "spring", language="pl")
    sheet = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2], BASE)
    assert [table.link for table in sheet] == [
        f"{BASE}/pair?lang=pl#{table.pairing_code}" for table in sheet
    ]
