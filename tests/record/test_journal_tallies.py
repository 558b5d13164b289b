"""What keeps the director's figures flat as the journal grows: tallies and cases written in the
append's own transaction, rebuilt by migration 3 from an older journal, and read by the
overview; group commit that commits inline when the journal is idle."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest

from adjudicator.hall.director import hall_status, overview
from adjudicator.judging.corrections import final_ruling, second_opinion, voids
from adjudicator.record.database import migrations
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import group_commit, journal
from adjudicator.record.journal.group_commit import GroupCommitter

from support.hall import (
    CSW,
    NWL,
    block_inserts,
    row_fields,
)

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


def tallies(db) -> dict:
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT tournament, kind, SUM(row_count) FROM journal_tallies GROUP BY tournament, kind"
        ).tuples()
    return {(tournament, kind): count for tournament, kind, count in rows}


def cases(db) -> list[tuple]:
    with db.transaction() as cur:
        return cur.execute(
            "SELECT original_id, flagged, ruling_id, open FROM journal_cases ORDER BY original_id"
        ).tuples()


def test_every_append_is_tallied_in_its_own_transaction(db):
    for tournament in (NWL, NWL, CSW):
        journal.append(db, **row_fields(tournament=tournament))
    journal.append(db, **row_fields(kind="second-opinion", refers_to=1, kiosk="judge:alice"))
    assert tallies(db) == {(NWL, "challenge"): 2, (CSW, "challenge"): 1, (NWL, "second-opinion"): 1}


def test_a_refused_row_and_a_failed_commit_tally_nothing(db, tmp_path):
    def refuse(cur):
        raise ValueError("no")

    with pytest.raises(ValueError):
        journal.append(db, guard=refuse, **row_fields())
    assert tallies(db) == {}
    block_inserts(tmp_path / "journal.sqlite3")
    with pytest.raises(DatabaseUnavailable):
        journal.append(db, **row_fields())
    assert tallies(db) == {}


def test_the_overview_counts_todays_challenges_per_tournament_and_open_flags(staffed):
    for _ in range(3):
        staffed.challenge(["QI"])
    original = staffed.challenge(["ZA"], enrolment=staffed.setup.csw)

    def figures():
        status = hall_status.build(staffed.setup.hall)
        today = {t.tournament.slug: t.challenges_today for t in status.tournaments}
        return today, status.open_flags

    assert figures() == ({NWL: 3, CSW: 1}, 0)
    second_opinion.give(
        staffed.db, staffed.store, original.id, ["ZO"], actor="alice", station="judge:alice"
    )
    assert figures() == ({NWL: 3, CSW: 1}, 1)
    director = staffed.director()
    page = director.get("/director/").get_data(as_text=True)
    assert "1 second opinion waiting" in page and '<dd class="today">3 challenges</dd>' in page
    final_ruling.record_ruling(
        staffed.db,
        original.id,
        "acceptable",
        "Checked the slip",
        actor="director",
        station="d",
        words="ZA",  # the second opinion's words differ: the ruling names them
    )
    assert figures() == ({NWL: 3, CSW: 1}, 0)
    assert "0 second opinions waiting" in director.get("/director/").get_data(as_text=True)


def test_today_starts_at_local_midnight(db, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        journal.append(db, **row_fields())
        now = datetime.now(UTC)
        assert overview.challenges_today(db, now) == {NWL: 1}
        tomorrow = now.replace(hour=0, minute=0) + (datetime(2024, 1, 2) - datetime(2024, 1, 1))
        assert overview.challenges_today(db, tomorrow) == {}
        # Rows stamped on a later day (a server whose clock ran ahead) are not today's.
        with db.transaction() as cur:
            cur.execute(
                "INSERT INTO journal_tallies VALUES (?, ?, 'challenge', 5, 2, 6)",
                (tomorrow.isoformat()[:13], NWL),
            )
        assert overview.challenges_today(db, now) == {NWL: 1}
        assert overview.challenges_today(db, tomorrow) == {NWL: 5}
    finally:
        monkeypatch.undo()
        time.tzset()


def test_the_flags_page_lists_open_cases_and_recent_closed_ones(staffed):
    first = staffed.challenge(["QI"])
    second = staffed.challenge(["ZA"])
    for original in (first, second):
        second_opinion.give(
            staffed.db,
            staffed.store,
            original.id,
            ["QI", "ZA"],
            actor="alice",
            station="judge:alice",
        )
    final_ruling.record_ruling(
        staffed.db,
        first.id,
        "acceptable",
        "As the slip says",
        actor="director",
        station="d",
        words="QI",
    )
    assert [c.original.id for c in second_opinion.cases(staffed.db, open_only=True)] == [second.id]
    assert [c.original.id for c in second_opinion.cases(staffed.db, closed_only=True)] == [first.id]
    assert [c.original.id for c in second_opinion.cases(staffed.db)] == [second.id, first.id]
    page = staffed.director().get("/director/flags").get_data(as_text=True)
    assert f'id="case-{second.id}"' in page and f'id="case-{first.id}"' not in page


def test_a_void_challenge_waits_for_no_ruling(staffed):
    """A flagged case whose challenge is then void (or reissued) leaves the open flags at once
    (the cases table, in the void's own transaction) and shows as void among the recent ones."""
    original = staffed.challenge(["QI"])
    second_opinion.give(
        staffed.db, staffed.store, original.id, ["ZA"], actor="alice", station="judge:alice"
    )
    assert second_opinion.open_count(staffed.db) == 1
    void = voids.void(staffed.db, original.id, "Entered by mistake", actor="director", station="d")
    assert second_opinion.open_count(staffed.db) == 0
    assert second_opinion.cases(staffed.db, open_only=True) == []
    (closed,) = second_opinion.cases(staffed.db, closed_only=True)
    assert closed.void == void and not closed.open
    assert hall_status.build(staffed.setup.hall).open_flags == 0
    page = staffed.director().get("/director/flags").get_data(as_text=True)
    assert f'id="case-{original.id}"' not in page
    assert f"VOID: Entered by mistake (#{void.id})" in page
    assert cases(staffed.db) == [(original.id, 1, None, 0)]


def test_migration_3_builds_the_tallies_and_cases_of_an_older_journal(tmp_path, monkeypatch):
    database = SqliteDatabase(str(tmp_path / "old.sqlite3"))
    every = migrations.MIGRATIONS
    # A journal made before it: versions 1, 2, 4 and 6 (issue 9's identity, issue 11's voids),
    # appended to without tallies by the program of then.
    monkeypatch.setattr(migrations, "MIGRATIONS", tuple(m for m in every if m[0] != 3))
    migrations.upgrade(database)
    rows = [
        row_fields(),
        row_fields(tournament=CSW),
        row_fields(kind="second-opinion", refers_to=1, note="flagged for the director: x"),
        row_fields(kind="second-opinion", refers_to=2, note=None),
        row_fields(),
        row_fields(kind="second-opinion", refers_to=5, note="flagged for the director: y"),
        row_fields(kind="ruling", refers_to=5, note="decided"),
        row_fields(),
        row_fields(kind="second-opinion", refers_to=8, note="flagged for the director: z"),
        row_fields(kind="void", refers_to=8, note="withdrawn"),
    ]
    for fields in rows:
        _append_without_tallies(database, fields)
    monkeypatch.setattr(migrations, "MIGRATIONS", every)
    assert migrations.upgrade(database) == [3]
    assert tallies(database) == {
        (NWL, "challenge"): 3,
        (CSW, "challenge"): 1,
        (NWL, "second-opinion"): 4,
        (NWL, "ruling"): 1,
        (NWL, "void"): 1,
    }
    assert cases(database) == [(1, 1, None, 1), (2, 0, None, 0), (5, 1, 7, 0), (8, 1, None, 0)]
    assert second_opinion.open_count(database) == 1  # 8 is void: it waits for no ruling
    journal.append(database, **row_fields(kind="ruling", refers_to=1, note="decided"))
    assert cases(database)[0] == (1, 1, 11, 0)
    assert journal.verify(database).ok


def _append_without_tallies(database, fields) -> None:
    """An append as a version-2 program made it (no tallies table to write)."""
    original = journal.tallies.record
    journal.tallies.record = lambda cur, entries: None
    try:
        journal.append(database, **fields)
    finally:
        journal.tallies.record = original


# --- group commit ---------------------------------------------------------------------------


def test_an_idle_journal_commits_in_the_requests_own_thread(db):
    committer = GroupCommitter(db)
    threads_before = set(threading.enumerate())
    seen = []
    for _ in range(3):
        committer.append(guard=lambda cur: seen.append(threading.current_thread()), **row_fields())
    assert seen == [threading.current_thread()] * 3
    assert set(threading.enumerate()) == threads_before  # no committer thread, no hand-off
    assert journal.verify(db).rows == 3


def test_rows_arriving_during_a_commit_share_the_next_one(db, monkeypatch):
    committer = GroupCommitter(db)
    batches = []
    real = journal.append_batch

    def counting(database, batch):
        batches.append(len(batch))
        real(database, batch)

    monkeypatch.setattr(group_commit.journal, "append_batch", counting)
    release = threading.Event()
    results, errors = [], []

    def hold(cur):
        release.wait(10)

    def request(**extra):
        try:
            results.append(committer.append(**row_fields(**extra)))
        except Exception as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    leader = threading.Thread(
        target=lambda: results.append(committer.append(guard=hold, **row_fields()))
    )
    leader.start()
    time.sleep(0.2)
    followers = [threading.Thread(target=request, kwargs={"table": str(n)}) for n in range(5)]
    for thread in followers:
        thread.start()
    time.sleep(0.3)
    release.set()
    for thread in (leader, *followers):
        thread.join(10)
    assert errors == [] and sorted(e.id for e in results) == [1, 2, 3, 4, 5, 6]
    assert batches == [1, 5]  # the first alone, the five that waited together
    assert journal.verify(db).rows == 6


def test_a_request_that_gives_up_waiting_is_never_written_and_the_queue_moves_on(db, monkeypatch):
    committer = GroupCommitter(db)
    monkeypatch.setattr(group_commit, "WAIT_SECONDS", 0.3)
    release = threading.Event()
    outcome = {}

    def hold(cur):
        release.wait(10)

    leader = threading.Thread(
        target=lambda: outcome.setdefault("leader", committer.append(guard=hold, **row_fields()))
    )
    leader.start()
    time.sleep(0.1)
    with pytest.raises(DatabaseUnavailable, match="did not answer in time"):
        committer.append(**row_fields(table="late"))
    release.set()
    leader.join(10)
    after = committer.append(**row_fields(table="after"))
    assert outcome["leader"].id == 1 and after.id == 2
    assert [e.table for e in journal.entries(db)] == [None, "after"]
