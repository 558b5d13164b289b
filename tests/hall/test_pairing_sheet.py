"""The pairing sheet: table numbers read, a kiosk per table enrolled or reused, codes that last
until used (once), replaced, expired, or their kiosk moved or revoked; refusals before any
change; and the printable page (each card's expiry, the CA's fingerprint on every page)."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

import pytest

from adjudicator.hall import kiosks, pairing_sheet, sheet_page, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.hall.network import hall_tls
from adjudicator.hall.pairing_sheet import SheetError

BASE = "https://club.local:8443"
FINGERPRINT = ":".join(f"{n * 7 % 256:02X}" for n in range(32))  # 00:07:0E:15:1C:...


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


def test_each_table_gets_a_kiosk_and_a_code_that_expires_72_hours_after_printing(hall):
    before = datetime.now(UTC)
    sheet = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2], BASE)
    assert [t.kiosk for t in sheet] == ["spring table 1", "spring table 2"]
    assert all(t.new for t in sheet)
    assert sheet[0].link == f"{BASE}/pair#{sheet[0].pairing_code}"
    row = hall.db.query_one(
        "SELECT pairing_expires_at FROM kiosks WHERE name = ?", ("spring table 1",)
    )
    expires = datetime.fromisoformat(row["pairing_expires_at"])
    assert before + timedelta(hours=72) <= expires <= datetime.now(UTC) + timedelta(hours=72)
    assert {t.expires_at for t in sheet} == {row["pairing_expires_at"]}  # one time a sheet
    kiosk, _nonce = kiosks.redeem_pairing(hall.db, sheet[0].pairing_code)
    assert kiosk.name == "spring table 1" and kiosk.tournament == "spring"
    assert kiosks.redeem_pairing(hall.db, sheet[0].pairing_code) is None  # once only


def test_an_expired_card_is_refused_saying_when_it_expired(hall):
    printed = datetime.now(UTC) - timedelta(hours=3)  # a frozen clock: printed 3 hours ago
    sheet = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2], BASE, hours=2, now=printed)
    with pytest.raises(kiosks.PairingExpired, match="ask the director for a new card") as refused:
        kiosks.redeem_pairing(hall.db, sheet[0].pairing_code)
    assert refused.value.expires_at == (printed + timedelta(hours=2)).isoformat(
        timespec="microseconds"
    )
    assert kiosks.get(hall.db, "spring table 1").session_nonce is None  # nothing paired
    fresh = pairing_sheet.enrol_tables(hall.db, "spring", [1], BASE, hours=1)
    assert kiosks.redeem_pairing(hall.db, fresh[0].pairing_code) is not None


@pytest.mark.parametrize("given", [None, "", " 72 "])
def test_hours_default_to_72(given):
    assert pairing_sheet.valid_hours(given) == 72


@pytest.mark.parametrize("given", [1, "1", "720", 720])
def test_hours_from_one_to_a_month(given):
    assert pairing_sheet.valid_hours(given) == int(given)


@pytest.mark.parametrize("given", [0, "0", "-1", -72, "721", "99999999999999999999", "1.5", "x"])
def test_other_hours_are_refused_saying_what_to_type(hall, given):
    with pytest.raises(SheetError, match=r"from 1 to 720 whole hours \(30 days\), such as 72"):
        pairing_sheet.valid_hours(given)
    with pytest.raises(SheetError):
        pairing_sheet.enrol_tables(hall.db, "spring", [1], BASE, hours=given)
    assert kiosks.list_all(hall.db) == []  # refused before any change


def test_a_moved_kiosks_card_no_longer_pairs_nor_does_its_paired_screen(hall):
    tournaments.create(hall.db, hall.store, "autumn", "TINY", "double", "Autumn")
    first, second = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2], BASE)
    _kiosk, nonce = kiosks.redeem_pairing(hall.db, second.pairing_code)
    assert kiosks.by_session(hall.db, second.kiosk, nonce) is not None
    for table in (first, second):
        moved = kiosks.move(hall.db, table.kiosk, "autumn")
        assert moved.tournament == "autumn" and moved.session_nonce is None
    assert kiosks.redeem_pairing(hall.db, first.pairing_code) is None  # the old card
    assert kiosks.by_session(hall.db, second.kiosk, nonce) is None  # the old screen
    with pytest.raises(kiosks.KioskError, match="already judges for autumn"):
        kiosks.move(hall.db, first.kiosk, "autumn")


def test_a_revoked_kiosks_card_no_longer_pairs(hall):
    (table,) = pairing_sheet.enrol_tables(hall.db, "spring", [1], BASE)
    kiosks.revoke(hall.db, table.kiosk)
    assert kiosks.redeem_pairing(hall.db, table.pairing_code) is None


def test_codes_are_kept_as_a_keyed_hash_never_as_their_sha256(hall):
    import hashlib

    sheet = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2, 3], BASE)
    with hall.db.transaction() as cur:
        kept = {row["pairing_hash"] for row in cur.execute("SELECT pairing_hash FROM kiosks").all()}
    for table in sheet:
        assert hashlib.sha256(table.pairing_code.encode()).hexdigest() not in kept
    assert len(kept) == 3 and all(len(value) == 64 for value in kept)


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
    printed = datetime(2031, 5, 2, 16, 30, tzinfo=UTC)
    sheet = pairing_sheet.enrol_tables(hall.db, "spring", list(range(1, 10)), BASE, now=printed)
    page = sheet_page.render("Spring <Open>", "spring", sheet, BASE, fingerprint=FINGERPRINT)
    assert page.count('<article class="table-card"') == 9
    assert page.count('<section class="sheet-page">') == 3  # 4 + 4 + 1
    assert page.count("<svg") == 9
    assert "Spring &lt;Open&gt;" in page and "Spring <Open>" not in page
    assert page.count("This code works once") == 9
    assert f"{BASE}/hall/trust" in page
    assert not re.search(r"<(script|link|img)\b", page)  # one file: nothing else to load
    assert not re.search(r"\sstyle=", page)  # its one stylesheet is in its <style>
    for table in sheet:
        assert f'<p class="code">{table.pairing_code}</p>' in page
    # each card says when it expires, in the hall's local time, as YYYY-MM-DD HH:MM
    local = (printed + timedelta(hours=72)).astimezone().strftime("%Y-%m-%d %H:%M")
    assert page.count(f'<p class="expires">Valid until {local} (the hall') == 9
    # every page shows the CA's fingerprint
    assert page.count('<p class="fingerprint">') == 3
    # as the terminal prints it: two lines of four groups of four pairs, ...
    lines = hall_tls.fingerprint_lines(FINGERPRINT)
    assert lines == (
        "00:07:0E:15 1C:23:2A:31 38:3F:46:4D 54:5B:62:69",
        "70:77:7E:85 8C:93:9A:A1 A8:AF:B6:BD C4:CB:D2:D9",
    )
    group = r'<span class="fingerprint-group">[^<]*</span>'
    shown = re.findall(rf'<span class="fingerprint-line">((?:{group} ?)+)</span>', page)
    assert [re.sub(r"<[^>]+>", "", line) for line in shown] == list(lines) * 3
    # ... each group one unbreakable piece (a line breaks only between groups)
    groups = re.findall(r'<span class="fingerprint-group">([^<]*)</span>', page)
    assert groups == " ".join(lines).split(" ") * 3
    assert ".fingerprint-group { white-space: nowrap; }" in page


def test_the_sheet_names_the_plain_http_trust_page_or_warns_of_the_first_visit(hall):
    """Issue 36, papercut 3: the sheet prints where tablets trust the hall; over HTTPS it says
    the browser warns on that first visit, over the hall's plain-HTTP port that it does not."""
    sheet = pairing_sheet.enrol_tables(hall.db, "spring", [1], BASE)
    plain = "http://club.local:8080/hall/trust"
    page = sheet_page.render("Spring", "spring", sheet, BASE, fingerprint=None, trust_url=plain)
    said = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
    assert f"Tablets first trust the hall at {plain}: plain HTTP, so the browser shows no " in said
    assert f"{BASE}/hall/trust" not in page
    page = sheet_page.render("Spring", "spring", sheet, BASE, fingerprint=None)
    said = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
    assert (
        f"Tablets first trust the hall at {BASE}/hall/trust. On that first visit the browser "
        "warns about the hall's certificate" in said
    )


def test_a_sheet_with_no_hall_certificate_says_so_on_every_page(hall):
    sheet = pairing_sheet.enrol_tables(hall.db, "spring", list(range(1, 6)), BASE)
    page = sheet_page.render("Spring", "spring", sheet, BASE, fingerprint=None)
    assert page.count("No hall certificate yet, so no fingerprint to compare") == 2


def test_the_directors_sheet_links_its_stylesheet_and_has_no_inline_style(hall):
    sheet = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2], BASE)
    page = sheet_page.render(
        "Spring", "spring", sheet, BASE, fingerprint=FINGERPRINT, stylesheet="/s.css?v=1&x"
    )
    assert '<link rel="stylesheet" href="/s.css?v=1&amp;x">' in page
    assert not re.search(r"<style\b|\sstyle=", page)


def test_the_links_speak_the_tournaments_language(hall):
    tournaments.update(hall.db, hall.store, "spring", language="pl")
    sheet = pairing_sheet.enrol_tables(hall.db, "spring", [1, 2], BASE)
    assert [table.link for table in sheet] == [
        f"{BASE}/pair?lang=pl#{table.pairing_code}" for table in sheet
    ]


def test_codes_kept_the_old_way_end_at_the_upgrade(hall):
    """Migration 13: a code kept as its plain SHA-256 (before keyed hashes), such as an old
    sheet's that lasted until used, no longer pairs, and its digest is gone from the row."""
    import hashlib

    from adjudicator.record.database import migrations

    (table,) = pairing_sheet.enrol_tables(hall.db, "spring", [1], BASE)
    old = hashlib.sha256(table.pairing_code.encode()).hexdigest()
    with hall.db.transaction(chain_lock=True) as cur:
        cur.execute(
            "UPDATE kiosks SET pairing_hash = ?, pairing_expires_at = ? WHERE name = ?",
            (old, "9999-12-31T23:59:59.999999+00:00", table.kiosk),
        )
        cur.execute("DELETE FROM schema_migrations WHERE version = 13")
    assert migrations.upgrade(hall.db) == [13]
    row = hall.db.query_one(
        "SELECT pairing_hash, pairing_expires_at FROM kiosks WHERE name = ?", (table.kiosk,)
    )
    assert row == {"pairing_hash": None, "pairing_expires_at": None}
    assert kiosks.redeem_pairing(hall.db, table.pairing_code) is None
    (again,) = pairing_sheet.enrol_tables(hall.db, "spring", [1], BASE)  # printed anew: pairs
    assert kiosks.redeem_pairing(hall.db, again.pairing_code) is not None
