"""The director's journal view at any size: keyset pages newest first, filters on indexes, and
bursts found in one pass over the challenges around the rows shown."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from adjudicator.hall.director import bursts, journal_review
from adjudicator.hall.director.bursts import Stamp
from adjudicator.hall.director.journal_review import Filters
from adjudicator.record.journal import journal

from support.hall import (
    CSW,
    NWL,
    row_fields,
)

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


def fill(db, count: int) -> list[journal.Entry]:
    """`count` rows over two tournaments, three kiosks and three kinds."""
    rows = []
    for n in range(count):
        kind = ("challenge", "challenge", "second-opinion", "ruling")[n % 4]
        rows.append(
            journal.append(
                db,
                **row_fields(
                    kiosk=f"table-{n % 3}",
                    tournament=(NWL, CSW)[n % 2],
                    kind=kind,
                    refers_to=None if kind == "challenge" else max(1, n - 1),
                ),
            )
        )
    return rows


def walk(db, filters: Filters, size: int) -> list[int]:
    """Every id the pages show, following the older links from the newest page."""
    seen, before = [], None
    while True:
        page = journal_review.page(db, filters, before=before, size=size)
        seen += [entry.id for entry in page.rows]
        if page.older_before is None:
            return seen
        before = page.older_before


@pytest.mark.parametrize(
    "filters",
    [Filters(), Filters(tournament=NWL), Filters(kiosk="table-1"), Filters(kind="ruling")],
    ids=["all", "tournament", "kiosk", "kind"],
)
def test_pages_show_every_matching_row_once_newest_first(db, filters):
    rows = fill(db, 47)
    expected = [
        e.id
        for e in reversed(rows)
        if all(
            getattr(filters, name) in (None, getattr(e, name))
            for name in ("tournament", "kiosk", "kind")
        )
    ]
    assert walk(db, filters, size=5) == expected


def test_newer_and_older_links_lead_back_and_forth(db):
    fill(db, 23)
    first = journal_review.page(db, Filters(), size=10)
    assert [e.id for e in first.rows] == list(range(23, 13, -1))
    assert first.newer_after is None and first.older_before == 14
    second = journal_review.page(db, Filters(), before=first.older_before, size=10)
    assert [e.id for e in second.rows] == list(range(13, 3, -1))
    assert second.newer_after == 13 and second.older_before == 4
    last = journal_review.page(db, Filters(), before=second.older_before, size=10)
    assert [e.id for e in last.rows] == [3, 2, 1] and last.older_before is None
    back = journal_review.page(db, Filters(), after=last.newer_after, size=10)
    assert [e.id for e in back.rows] == [e.id for e in second.rows]
    assert back.newer_after == 13 and back.older_before == 4
    top = journal_review.page(db, Filters(), after=back.newer_after, size=10)
    assert [e.id for e in top.rows] == [e.id for e in first.rows] and top.newer_after is None


def test_a_time_range_is_an_id_range(db, monkeypatch):
    start = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
    clock = iter(start + timedelta(minutes=10 * n) for n in range(30))
    monkeypatch.setattr(journal, "datetime", _FakeClock(clock))
    rows = fill(db, 30)
    since = journal_review.parse_time("2024-05-01T10:00")
    until = journal_review.parse_time("2024-05-01T11:00")
    page = journal_review.page(db, Filters(since=since, until=until), size=100)
    assert [e.id for e in page.rows] == [13, 12, 11, 10, 9, 8, 7]
    assert all(since <= e.recorded_at <= until for e in page.rows)
    late = journal_review.parse_time("2024-05-02T00:00")
    assert journal_review.page(db, Filters(since=late)).rows == []
    early = journal_review.parse_time("2024-04-30T00:00")
    assert journal_review.page(db, Filters(until=early)).rows == []
    assert [e.id for e in journal_review.select(db, since=since, until=until)] == list(range(7, 14))
    assert rows[-1].recorded_at == "2024-05-01T13:50:00.000000+00:00"


def test_the_journals_clock_never_runs_backwards(db, monkeypatch):
    times = [datetime(2024, 5, 1, 12, 0, tzinfo=UTC), datetime(2024, 5, 1, 11, 0, tzinfo=UTC)]
    monkeypatch.setattr(journal, "datetime", _FakeClock(iter(times)))
    first, second = fill(db, 2)
    assert second.recorded_at == first.recorded_at  # a clock stepped back: not earlier
    assert journal.verify(db).ok


class _FakeClock:
    """Stands in for journal.datetime: now() gives the next of `times`."""

    def __init__(self, times):
        self.times = times

    def now(self, tz=None):
        return next(self.times)


def stamps(times: list[float], kiosk: str = "k1", first_id: int = 1) -> list[Stamp]:
    base = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
    return [
        Stamp(first_id + n, kiosk, (base + timedelta(seconds=t)).isoformat(timespec="microseconds"))
        for n, t in enumerate(times)
    ]


def brute_force_bursts(rows: list[Stamp], more_than: int, minutes: int) -> set[int]:
    """The ids in some window of `minutes` holding more than `more_than` of one kiosk's rows."""
    marked = set()
    window = timedelta(minutes=minutes)
    for kiosk in {r.kiosk for r in rows}:
        mine = sorted((r for r in rows if r.kiosk == kiosk), key=lambda r: r.recorded_at)
        times = [datetime.fromisoformat(r.recorded_at) for r in mine]
        for i in range(len(mine)):
            inside = [j for j in range(i, len(mine)) if times[j] - times[i] <= window]
            if len(inside) > more_than:
                marked.update(mine[j].id for j in inside)
    return marked


@pytest.mark.parametrize("seed", range(20))
def test_bursts_mark_exactly_the_rows_a_brute_force_search_marks(seed):
    rng = random.Random(seed)
    rows = []
    for kiosk in ("k1", "k2", "k3"):
        t, times = 0.0, []
        for _ in range(rng.randint(0, 40)):
            t += rng.choice((1, 5, 30, 200, 900))
            times.append(t)
        rows += stamps(times, kiosk, first_id=len(rows) + 1)
    more_than, minutes = rng.randint(1, 5), rng.randint(1, 10)
    found = bursts.find_bursts(rows, more_than, minutes)
    assert {i for burst in found for i in burst.ids} == brute_force_bursts(rows, more_than, minutes)
    for burst in found:
        assert burst.count > more_than and burst.first_at <= burst.last_at


def test_a_dense_burst_is_one_burst():
    rows = stamps([n * 0.001 for n in range(16_000)])
    (burst,) = bursts.find_bursts(rows, more_than=4, minutes=5)
    assert burst.count == 16_000 and burst.ids == tuple(range(1, 16_001))


def test_bursts_are_looked_for_around_the_page_only_and_the_page_says_when_it_stopped(
    db, monkeypatch
):
    monkeypatch.setattr(bursts, "MAX_BURST_ROWS", 50)
    for _ in range(120):
        journal.append(db, **row_fields())
    page = journal_review.page(db, Filters(), size=10, more_than=4, minutes=5)
    assert page.bursts_capped
    (burst,) = page.bursts
    assert burst.ids[-1] == 120 and burst.count == 50  # the newest 50 around the rows shown


def test_the_journal_page_pages_and_never_says_how_many_rows_match(staffed, monkeypatch):
    monkeypatch.setattr(journal_review, "PAGE_ROWS", 3)
    for _ in range(5):
        staffed.challenge(["QI"])
    staffed.challenge(["ZA"], enrolment=staffed.setup.csw)
    director = staffed.director()
    page = director.get("/director/journal").get_data(as_text=True)
    assert "Rows #4 to #6, newest first" in page and "6 rows in all" in page
    assert 'rel="next"' in page and 'rel="prev"' not in page
    older = director.get("/director/journal?before=4").get_data(as_text=True)
    assert "Rows #1 to #3" in older and 'rel="prev"' in older and 'rel="next"' not in older
    filtered = director.get(f"/director/journal?tournament={CSW}").get_data(as_text=True)
    assert "Rows #6 to #6 matching the filters" in filtered and 'rel="next"' not in filtered
    nothing = director.get("/director/journal?kiosk=nobody").get_data(as_text=True)
    assert "No row matches the filters" in nothing
    assert director.get("/director/journal?before=abc").status_code == 200  # ignored, not a 500
