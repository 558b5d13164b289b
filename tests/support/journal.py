"""Journal rows for the record's tests: the fields of one plain challenge, and a chain check."""

from __future__ import annotations

import threading

from adjudicator.record.journal import journal


def challenge_fields(**changes) -> dict:
    """The fields journal.append takes for one challenge of QI ZA at table-1 of spring-nwl,
    with `changes` on top."""
    row = dict(
        kind="challenge",
        tournament="spring-nwl",
        kiosk="table-1",
        lexicon_name="TINY",
        lexicon_fingerprint="a" * 64,
        lexicon_words=12,
        rule="double",
        words=("QI", "ZA"),
        word_count=2,
        verdict="ACCEPTABLE",
        consequence="The play stands.",
    )
    row.update(changes)
    return row


def assert_one_chain(db, rows: int) -> list[journal.Entry]:
    """The journal verifies, and holds rows 1..`rows` and no other; its entries."""
    result = journal.verify(db)
    assert result.ok, result.problem
    assert result.rows == rows
    entries = list(journal.entries(db))
    assert [e.id for e in entries] == list(range(1, rows + 1))
    return entries


def appended_in_threads(count: int, each: int, database_for, fields=challenge_fields) -> list:
    """`count` threads at once, thread n appending `each` rows for kiosk thread-n through
    database_for(n); what they raised (an empty list when all went well)."""
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        own = database_for(n)
        try:
            for _ in range(each):
                journal.append(own, **fields(kiosk=f"thread-{n}"))
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return errors


def rewrite_with_a_recomputed_chain(path, row_id: int, **changes) -> None:
    """What anyone holding an SQLite copy and the program's source can do: change row `row_id`
    and re-hash it and every later row with the project's own code, in place. (Its keyed hashes
    cannot be made without the hall's key: they are left as they were.)"""
    import sqlite3
    from dataclasses import replace

    from adjudicator.record.database.sqlite import SqliteDatabase

    db = SqliteDatabase(str(path), create_folder=False)
    rows = list(journal.entries(db))
    db.close()
    prev = rows[row_id - 2].row_hash if row_id > 1 else journal.GENESIS
    connection = sqlite3.connect(path, timeout=30)
    with connection:
        for entry in rows[row_id - 1 :]:
            changed = replace(entry, prev_hash=prev, **(changes if entry.id == row_id else {}))
            changed = replace(changed, row_hash=changed.compute_hash())
            connection.execute(
                "UPDATE adjudications SET verdict = ?, prev_hash = ?, row_hash = ? WHERE id = ?",
                (changed.verdict, changed.prev_hash, changed.row_hash, changed.id),
            )
            prev = changed.row_hash
    connection.close()
