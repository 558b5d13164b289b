"""Journal rows for the record's tests: the fields of one plain challenge, and a chain check."""

from __future__ import annotations

import threading

from adjudicator.record import journal


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
