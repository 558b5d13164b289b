"""What a kiosk serves decides its rate limit (issue 44, item 2): a kiosk at a table is limited
as that table (6 a minute), the hall's one challenge computer (a kiosk at no table) as the whole
hall (60 a minute, 6 from any one table its challenges name), and a limit the director sets
(ADJUDICATOR_KIOSK_RATE_LIMIT) binds every kiosk. Each refusal says what the director can do,
records nothing, and is said in the kiosk's language."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from adjudicator.errors import SettingError
from adjudicator.hall import kiosks
from adjudicator.hall.hall import Hall
from adjudicator.hall.people.ratelimit import (
    HALL_TABLE,
    OF_HALL,
    KioskLimits,
    RateLimit,
    RateLimited,
)
from adjudicator.record.journal import journal

from support.hall import CSW, build_setup, make_app, pair_browser

ADJUDICATIONS = "/api/v1/adjudications"


@pytest.fixture
def hall(tmp_path, monkeypatch) -> Hall:
    """A hall whose kiosks are limited as the program leaves them (the setting unset), with a
    kiosk of the whole hall (`hall-pc`) and one at table 5 (`at-5`), both of the CSW division."""
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ADJUDICATOR_KIOSK_RATE_LIMIT", raising=False)
    setup = build_setup(tmp_path)
    kiosks.add(setup.hall.db, "hall-pc", CSW)
    kiosks.add(setup.hall.db, "at-5", CSW, table="5")
    return Hall(setup.store, setup.hall.db, key_path=tmp_path / "receipt_key.pem")


def kiosk(hall: Hall, name: str) -> kiosks.Kiosk:
    return kiosks.get(hall.db, name)


def judged(hall: Hall, name: str) -> list[tuple[str | None]]:
    return [(e.table,) for e in journal.entries(hall.db) if e.kiosk == name]


def test_a_kiosk_at_a_table_is_refused_at_its_seventh_challenge_in_a_minute(hall):
    for _ in range(6):
        hall.adjudicate(kiosk(hall, "at-5"), ["QI"])
    with pytest.raises(RateLimited) as refused:
        hall.adjudicate(kiosk(hall, "at-5"), ["QI"])
    assert str(refused.value).startswith(
        "This table's kiosk has judged 6 challenges in the last minute: please wait a moment, "
        "or call the director."
    )
    assert "adjudicator kiosk table NAME none" in str(refused.value)  # what the director can do
    assert refused.value.retry_after == 60
    assert len(judged(hall, "at-5")) == 6  # the refused one is not recorded


def test_the_halls_computer_takes_thirty_challenges_a_minute_from_different_tables(hall):
    for table in range(1, 31):
        hall.adjudicate(kiosk(hall, "hall-pc"), ["QI"], table=str(table))
    for _ in range(30):  # and as many naming no table: sixty in the minute
        hall.adjudicate(kiosk(hall, "hall-pc"), ["ZA"])
    with pytest.raises(RateLimited) as refused:
        hall.adjudicate(kiosk(hall, "hall-pc"), ["QI"], table="31")
    assert refused.value.kind == OF_HALL
    assert "60 challenges in the last minute, as many as a whole hall makes" in str(refused.value)
    assert "ADJUDICATOR_KIOSK_RATE_LIMIT (such as 120/minute)" in str(refused.value)
    assert len(judged(hall, "hall-pc")) == 60


def test_the_halls_computer_counts_one_tables_challenges_as_that_tables(hall):
    for _ in range(6):
        hall.adjudicate(kiosk(hall, "hall-pc"), ["QI"], table=" 7")
    with pytest.raises(RateLimited) as refused:
        hall.adjudicate(kiosk(hall, "hall-pc"), ["QI"], table="7")
    assert refused.value.kind == HALL_TABLE
    assert "6 challenges from table 7 in the last minute" in str(refused.value)
    hall.adjudicate(kiosk(hall, "hall-pc"), ["QI"], table="8")  # another table still judges
    hall.adjudicate(kiosk(hall, "hall-pc"), ["QI"])  # and a challenge naming none
    assert judged(hall, "hall-pc") == [("7",)] * 6 + [("8",), (None,)]


def test_a_limit_the_director_sets_binds_every_kiosk(hall, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_KIOSK_RATE_LIMIT", "6/minute")
    limited = Hall(hall.store, hall.db, key_path=hall.key_path)
    for table in range(1, 7):
        limited.adjudicate(kiosk(limited, "hall-pc"), ["QI"], table=str(table))
    with pytest.raises(RateLimited) as refused:
        limited.adjudicate(kiosk(limited, "hall-pc"), ["QI"], table="7")
    assert "the limit the director set" in str(refused.value)
    assert "ADJUDICATOR_KIOSK_RATE_LIMIT sets it" in str(refused.value)
    monkeypatch.setenv("ADJUDICATOR_KIOSK_RATE_LIMIT", "off")
    unlimited = Hall(hall.store, hall.db, key_path=hall.key_path)
    for _ in range(8):
        unlimited.adjudicate(kiosk(unlimited, "at-5"), ["QI"])
    assert len(judged(hall, "at-5")) == 8


def test_an_empty_setting_is_the_programs_own_limits_and_a_bad_one_is_refused(monkeypatch):
    assert KioskLimits.of("") == KioskLimits.of("  ") == KioskLimits()
    assert KioskLimits.of("off").for_kiosk(seated=False) is None
    limit = KioskLimits.of("100/hour").for_kiosk(seated=True)
    assert (limit.limit, limit.per_table) == (RateLimit(100, 3600), None)
    with pytest.raises(SettingError, match="must look like 6/minute"):
        KioskLimits.of("6 a minute")
    with pytest.raises(SettingError):
        KioskLimits.of("0/minute")


def test_challenges_older_than_the_window_do_not_count(hall):
    for _ in range(6):
        hall.adjudicate(kiosk(hall, "hall-pc"), ["QI"], table="3")
        hall.adjudicate(kiosk(hall, "at-5"), ["QI"])
    with pytest.raises(RateLimited):
        hall.adjudicate(kiosk(hall, "hall-pc"), ["QI"], table="3")
    minute_ago = (datetime.now(UTC) - timedelta(seconds=61)).isoformat(timespec="microseconds")
    with hall.db.transaction() as cur:  # as if they were made a minute ago
        cur.execute("UPDATE adjudications SET recorded_at = ?", (minute_ago,))
    hall.adjudicate(kiosk(hall, "hall-pc"), ["QI"], table="3")
    hall.adjudicate(kiosk(hall, "at-5"), ["QI"])
    assert len(judged(hall, "hall-pc")) == 7 and len(judged(hall, "at-5")) == 7


def test_the_refusal_is_said_in_the_kiosks_language_over_the_api(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    setup = build_setup(tmp_path, rate_limit=KioskLimits())
    kiosks.set_table(setup.hall.db, "table-2", "4")
    app = make_app(setup.hall)
    browser = pair_browser(app, kiosks.new_pairing(setup.hall.db, "table-2"))
    asked = {"Accept-Language": "es"}
    for _ in range(6):
        assert browser.post(ADJUDICATIONS, json={"words": ["QI"]}, headers=asked).status_code == 201
    refused = browser.post(ADJUDICATIONS, json={"words": ["QI"]}, headers=asked)
    body = refused.get_json()
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "60"
    assert "verdict" not in body
    assert body["error"].startswith("This table's kiosk has judged 6 challenges")
    assert body["shown_error"].startswith("El terminal de esta mesa ha juzgado 6 impugnaciones")
    assert "adjudicator kiosk table NAME none" in body["shown_error"]


def test_the_count_reads_the_same_on_each_backend(migrated_db):
    """journal.recent_counts, as the guard runs it, on SQLite and PostgreSQL."""
    from support.journal import challenge_fields

    for table in ("3", "3", "4", None):
        journal.append(migrated_db, **challenge_fields(kiosk="hall-pc", table=table))
    journal.append(migrated_db, **challenge_fields(kiosk="other", table="3"))
    since = (datetime.now(UTC) - timedelta(seconds=60)).isoformat(timespec="microseconds")
    later = (datetime.now(UTC) + timedelta(seconds=5)).isoformat(timespec="microseconds")
    with migrated_db.transaction() as cur:
        assert journal.recent_counts(cur, "hall-pc", 60, since, "3") == (4, 2)
        assert journal.recent_counts(cur, "hall-pc", 60, since, None) == (4, 0)
        assert journal.recent_counts(cur, "hall-pc", 2, since, "4") == (2, 1)  # the newest 2
        assert journal.recent_counts(cur, "hall-pc", 60, later, "3") == (0, 0)
        assert journal.recent_counts(cur, "nobody", 60, since, "3") == (0, 0)
        assert journal.count_since(cur, "hall-pc", since, 6) == 4
