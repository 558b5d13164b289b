"""Issue 46: the players' tallies kept in each append, and the signed close of an event, on
SQLite and on PostgreSQL.

The tallies only ever add what a challenge (or a grant) gave as judged: a correction writes
nothing to them, and the figures follow it through the judging's outcome (player_figures).
A journal from before the tallies is counted once at its upgrade, whatever was appended in
between. A close is a statement signed with the hall's key: one made with another key, copied
from another journal, or edited by hand, counts for nothing; and a close that comes while
challenges are being judged lets none through after it.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from adjudicator.hall import event_close, kiosks, tournaments
from adjudicator.hall.director import director_decisions
from adjudicator.hall.hall import Hall
from adjudicator.judging import player_figures
from adjudicator.judging.corrections import voids, waivers
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.record.backends import connect
from adjudicator.record.database import migrations
from adjudicator.record.journal import closings, player_tallies, receipt_key
from adjudicator.record.journal.closings import TournamentClosed

from support.hall import NWL, build_store
from support.record_event import figures


@pytest.fixture
def hall(db_url: str, tmp_path: Path):
    """A hall on each backend: the NWL tournament (5 points a word) and its kiosk."""
    db = connect(db_url)
    made = Hall(build_store(tmp_path / "lexicons"), db, rate_limit=None,
                key_path=tmp_path / "receipt_key.pem")  # fmt: skip
    made.upgrade()
    tournaments.create(db, made.store, NWL, "TINY-NWL", "5-per-word", "Spring Open")
    kiosks.add(db, "table-1", NWL)
    yield made
    db.close()


def judge(hall, words, **details):
    return hall.adjudicate(kiosks.get(hall.db, "table-1"), words, **details)


def stored(hall) -> dict:
    with hall.db.transaction() as cur:
        return {key[2]: found for key, (_, found) in player_tallies.read(cur, [NWL]).items()}


def shown(hall) -> dict:
    return {p.key: p.figures for p in player_figures.of_tournaments(hall.db, [NWL])}


def test_a_correction_writes_no_tally_and_the_figures_follow_it(hall):
    lost = judge(hall, ["QI", "ZA"], challenger="Ann", player="Bob")  # stands: Ann pays 10
    won = judge(hall, ["DOGX"], challenger="Bob", player="Ann")  # comes off
    as_judged = stored(hall)
    assert as_judged["ann"] == figures(challenges_made=1, challenges_lost=1, penalty_points=10,
                                       plays_challenged=1, plays_came_off=1)  # fmt: skip
    record_ruling(hall.db, won.id, "acceptable", "the board read DOG", actor="td", station="td",
                  words=["DOG"])  # fmt: skip
    waivers.waive(hall.db, won.id, "a free challenge", actor="td", station="td")
    voids.void(hall.db, lost.id, "typed at the wrong table", actor="td", station="td")
    assert stored(hall) == as_judged  # append-only: what each challenge gave, as judged
    assert shown(hall) == {
        "ann": figures(plays_challenged=1, plays_stood=1, rulings_changed=1, voided=1),
        "bob": figures(challenges_made=1, challenges_lost=1, free_challenges_granted=1,
                       free_challenges_used=1, rulings_changed=1, plays_voided=1),
    }  # fmt: skip
    voids.revoke(hall.db, lost.id, "the void was for another row", actor="td", station="td")
    assert shown(hall)["ann"]["challenges_lost"] == 1 and shown(hall)["ann"]["voided"] == 0


def test_a_journal_from_before_the_tallies_is_counted_once(hall):
    judge(hall, ["QI"], challenger="Ann", player="Bob")
    judge(hall, ["DOGX"], challenger="Ann", player="Bob")
    with hall.db.transaction(chain_lock=True) as cur:  # as a journal written before issue 46
        cur.execute("DROP TABLE player_tallies")
        cur.execute("DROP TABLE player_tallies_counted")
        cur.execute("DELETE FROM schema_migrations WHERE version IN (32, 36)")
    assert migrations.upgrade(hall.db) == [32, 36]
    judge(hall, ["ZA"], challenger="Ann", player="Bob")  # appended before the count
    assert player_tallies.ensure_counted(hall.db) is True
    assert player_tallies.ensure_counted(hall.db) is False  # once
    assert stored(hall)["ann"] == figures(challenges_made=3, challenges_won=1, challenges_lost=2,
                                          penalty_points=10)  # fmt: skip


def test_a_close_lets_no_challenge_through_after_it(hall):
    """Challenges judged from four threads while the director closes the event: every row
    recorded is from before the close's head; those after are refused, none half-recorded."""
    refused, recorded, errors = [], [], []
    start = threading.Barrier(5)

    def play(n):
        start.wait()
        for i in range(15):
            try:
                recorded.append(judge(hall, ["QI"], challenger=f"P{n}", player="Bob").id)
            except TournamentClosed:
                refused.append(i)
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)

    threads = [threading.Thread(target=play, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    start.wait()
    made = event_close.close(hall, NWL, "td", "the last round is in")
    for thread in threads:
        thread.join()
    assert not errors
    assert all(row <= made.row for row in recorded)
    assert len(recorded) + len(refused) == 60
    assert sum(f["challenges_made"] for f in shown(hall).values()) == len(recorded)


def test_a_close_not_signed_by_the_hall_counts_for_nothing(hall, tmp_path):
    other = receipt_key.load_or_create(tmp_path / "other" / "key.pem")
    with pytest.raises(tournaments.TournamentError):
        event_close.close(hall, "no-such", "td")
    closings.record(hall.db, other, NWL, closings.CLOSE, "someone", "forged")  # another key
    assert event_close.closing(hall, NWL) is None
    assert judge(hall, ["QI"]).verdict == "ACCEPTABLE"  # judging goes on
    made = event_close.close(hall, NWL, "td", "")
    assert judge_refused(hall)
    with hall.db.transaction() as cur:  # a reopen written by hand: its action edited
        cur.execute(
            "INSERT INTO tournament_closings (tournament, seq, action, statement) "
            "VALUES (?, ?, ?, ?)",
            (NWL, made.seq + 1, "reopen", json.dumps({**made.signed, "seq": made.seq + 1})),
        )
    assert event_close.closing(hall, NWL) is not None and judge_refused(hall)
    history = closings.history(hall.db, NWL, hall.signing_key().public, made.signed["journal"])
    assert [(action, valid is not None) for _, action, valid in history] == [
        ("close", False), ("close", True), ("reopen", False)
    ]  # fmt: skip


def test_a_close_copied_from_another_journal_counts_for_nothing(hall, db_url, tmp_path):
    made = event_close.close(hall, NWL, "td", "")
    event_close.reopen(hall, NWL, "td", "closed too early")
    with hall.db.transaction() as cur:  # the same key's close, but of another journal
        forged = {**made.signed, "journal": "0" * 32, "seq": 3}
        cur.execute(
            "INSERT INTO tournament_closings (tournament, seq, action, statement) "
            "VALUES (?, ?, ?, ?)",
            (NWL, 3, "close", json.dumps(forged)),
        )
    assert event_close.closing(hall, NWL) is None
    assert judge(hall, ["QI"]).verdict == "ACCEPTABLE"


def test_what_stays_open_after_the_close(hall):
    pending = judge(hall, ["QI"], challenger="Ann", player="Bob")
    event_close.close(hall, NWL, "td", "")
    assert judge_refused(hall)
    with pytest.raises(TournamentClosed):  # a reissue is a challenge judged
        judge(hall, ["ZA"], challenger="Ann", replaces=pending.id)
    with pytest.raises(TournamentClosed):  # a free challenge for a game to come
        director_decisions.grant_free_challenge(hall.db, NWL, "Ann", "score written early",
                                                actor="td", station="td")  # fmt: skip
    ruled = record_ruling(hall.db, pending.id, "unacceptable", "misread", actor="td",
                          station="td")  # fmt: skip
    voided = voids.void(hall.db, pending.id, "wrong table", actor="td", station="td",
                        over_ruling=True)  # fmt: skip
    assert ruled.kind == "ruling" and voided.kind == "void"
    with pytest.raises(closings.ClosingRefused, match="closed already"):
        event_close.close(hall, NWL, "td", "")
    event_close.reopen(hall, NWL, "td", "one more game")
    with pytest.raises(closings.ClosingRefused, match="not closed"):
        event_close.reopen(hall, NWL, "td", "again")


def judge_refused(hall) -> bool:
    try:
        judge(hall, ["QI"])
    except TournamentClosed as exc:
        return "closed" in str(exc)
    return False
