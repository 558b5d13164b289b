"""Issue 35: the new row kinds (`free-challenge`, `placement`, `exchange`) in a hash-chained
journal, on SQLite and on PostgreSQL: the rows written before them keep their hashes,
`journal verify` and `journal audit` (their receipts) pass, the export carries them, and an
edit of one of them, even with the chain recomputed, is caught by its receipt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adjudicator.hall.hall import Hall
from adjudicator.record.backends import connect
from adjudicator.record.journal import journal

from support.hall import ok, spring_kiosks
from support.journal import challenge_fields


@pytest.fixture
def on_db(db_url, run, store, home, monkeypatch):
    """The CLI on the `db_url` journal (SQLite or PostgreSQL), with the spring tournament."""
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", db_url)
    spring_kiosks(run, store, monkeypatch, "table-1")
    return run


def test_new_kinds_keep_older_hashes_and_verify_audit_and_export(on_db, db_url, home: Path):
    run = on_db
    for words in (["QI", "ZA"], ["QX"], ["QI"]):  # exit 0 ACCEPTABLE, 1 UNACCEPTABLE
        judged = run("judge", "--tournament", "spring", "--table", "3", "--round", "1",
                     "--challenger", "Ann", *words)  # fmt: skip
        assert judged.exit_code in (0, 1), judged.stderr
    ok(
        run(
            "ruling",
            "2",
            "--verdict",
            "acceptable",
            "--reason",
            "QX was QI",
            "--words",
            "QI",
            "--confirm-correction",
        )
    )  # no rulebook named: offered, as before
    db = connect(db_url)
    before = {e.id: e.row_hash for e in journal.entries(db)}
    receipts = []
    for args in (
        ("free-challenge", "--tournament", "spring", "--to", "Ann", "--round", "1", "--table",
         "3", "--reason", "score written early"),
        ("director-challenge", "--tournament", "spring", "--kind", "placement", "--outcome",
         "upheld", "--table", "3", "--round", "1", "--challenger", "Bob", "--reason",
         "centre square missed"),
        ("director-challenge", "--tournament", "spring", "--kind", "exchange", "--outcome",
         "dismissed", "--reason", "seven tiles were in the bag"),
    ):  # fmt: skip
        answer = json.loads(ok(run(*args, "--json")))
        receipts.append(answer["receipt"])
    used = ok(run("judge", "--tournament", "spring", "--table", "3", "--round", "1",
                  "--challenger", "ann", "ZA"))  # fmt: skip
    assert "free challenge #" in used
    after = list(journal.entries(db))
    assert {e.id: e.row_hash for e in after if e.id in before} == before  # older rows unchanged
    assert [e.kind for e in after[len(before):]] == [
        "free-challenge", "placement", "exchange", "challenge",
    ]  # fmt: skip
    assert journal.verify(db).ok
    assert run("journal", "verify").exit_code == 0
    receipts_path = home / "receipts.jsonl"
    receipts_path.write_text("".join(json.dumps(r) + "\n" for r in receipts))
    audited = run("journal", "audit", str(receipts_path))
    assert audited.exit_code == 0, audited.stdout + audited.stderr
    exported = json.loads(ok(run("journal", "export", "--format", "json")))
    assert [r["kind"] for r in exported[-4:]] == [
        "free-challenge", "placement", "exchange", "challenge",
    ]  # fmt: skip
    assert exported[-1]["details"]["free_challenge"] == exported[-4]["id"]
    db.close()


def test_a_director_row_rewritten_with_its_chain_recomputed_fails_its_receipt(
    on_db, db_url, home: Path
):
    """A hostile hall edits the director's decision (UPHELD to DISMISSED) and recomputes every
    hash after it with the project's own code: `verify` alone cannot see it; the receipt can."""
    run = on_db
    answer = json.loads(ok(run("director-challenge", "--tournament", "spring", "--kind",
                               "exchange", "--outcome", "upheld", "--reason", "bag had 3",
                               "--json")))  # fmt: skip
    db = connect(db_url)
    rows = list(journal.entries(db))
    target = next(e for e in rows if e.id == answer["id"])
    forged = journal.new_entry(
        {
            **{name: getattr(target, name) for name in journal.FIELDS if name != "row_hash"},
            "verdict": "DISMISSED",
        }
    )
    with db.transaction(chain_lock=True) as cur:
        cur.execute(
            "UPDATE adjudications SET verdict = ?, row_hash = ? WHERE id = ?",
            ("DISMISSED", forged.row_hash, target.id),
        )
    assert journal.verify(db).ok  # the chain alone: recomputed, so it verifies
    path = home / "receipts.jsonl"
    path.write_text(json.dumps(answer["receipt"]) + "\n")
    audited = run("journal", "audit", str(path))
    assert audited.exit_code == 1
    assert f"row {target.id} is not the row the receipt was issued for" in audited.stdout
    db.close()


def test_the_grant_is_found_by_its_partial_index_on_both_backends(on_db, db_url):
    """The hot path's one seek: the grants of a tournament, by an index only grants write to."""
    run = on_db
    ok(run("free-challenge", "--tournament", "spring", "--to", "Ann", "--reason", "early"))
    hall = Hall(db=connect(db_url), rate_limit=None)
    with hall.db.transaction() as cur:
        rows = cur.execute(
            "SELECT id FROM adjudications WHERE tournament = ? AND kind = 'free-challenge'",
            ("spring",),
        ).tuples()
    assert len(rows) == 1
    hall.db.close()


def test_two_servers_racing_for_one_grant_use_it_once(on_db, db_url, store):
    """Two servers on one journal record Ann's unsuccessful challenges at the same moment:
    the grant is claimed under the chain lock, so exactly one of them is free."""
    import threading

    from adjudicator.hall import kiosks

    run = on_db
    ok(run("free-challenge", "--tournament", "spring", "--to", "Ann", "--reason", "early"))
    halls = [Hall(store, connect(db_url), rate_limit=None) for _ in range(2)]
    kiosk = kiosks.get(halls[0].db, "table-1")
    start = threading.Barrier(4)
    found: list = []

    def challenge(hall: Hall) -> None:
        start.wait()
        for _ in range(3):
            found.append(hall.adjudicate(kiosk, ["QI"], challenger="Ann", round="1", table="2"))

    threads = [threading.Thread(target=challenge, args=(h,)) for h in (*halls, *halls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    free = [e for e in found if e.detail("free_challenge") is not None]
    assert len(found) == 12 and len(free) == 1
    assert journal.verify(halls[0].db).ok
    for hall in halls:
        hall.db.close()


def test_a_reason_that_names_the_grant_key_is_no_use_of_a_grant(on_db, db_url):
    """The director's exception reason is free text in a row's details: a reason mentioning
    "free_challenge" puts that row in the uses' index, and is still no use of a grant."""
    from adjudicator.judging import grant_uses

    run = on_db
    ok(run("free-challenge", "--tournament", "spring", "--to", "Ann", "--reason", "early"))
    db = connect(db_url)
    exception = json.dumps({"exception": '{"free_challenge": 1}'})
    journal.append(
        db,
        **challenge_fields(
            kind="second-opinion", refers_to=1, tournament="spring", kiosk="judge:x"
        ),
        details=exception,
    )
    assert [g.to for g in grant_uses.open_grants(db, "spring")] == ["Ann"]
    db.close()
