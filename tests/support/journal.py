"""Journal rows for the record's tests: the fields of one plain challenge, and a chain check."""

from __future__ import annotations

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
