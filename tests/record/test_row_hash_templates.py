"""A row's hash is SHA-256 of its canonical JSON: json.dumps of its fields with sorted keys and
no spaces, a field added after the first schema left out when not set. journal_entry writes
that text from a template kept for each pattern of value types (a third of a walk's hashing
off); these tests hold it to the definition, for any value of any type, and to the hashes every
row of a real journal was written with."""

from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.record.journal import journal, journal_entry
from adjudicator.record.journal.journal_entry import _HASHED_FIELDS, _LATER_FIELDS, hash_values

from support.journal import challenge_fields

TEXT = st.text(alphabet=st.characters(codec=None), max_size=30)  # quotes, %, {, controls...
SCALAR = st.one_of(
    st.none(),
    TEXT,
    st.integers(min_value=-(2**70), max_value=2**70),
    st.booleans(),
    st.floats(allow_nan=False),
)


def defined(values) -> str:
    """The row hash as the journal defines it, by json.dumps itself."""
    fields = dict(zip(_HASHED_FIELDS, values, strict=True))
    fields["words"] = list(fields["words"])
    for name in _LATER_FIELDS:
        if fields[name] is None:
            del fields[name]
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@st.composite
def rows(draw):
    """A row's hashed values: any scalar in each field, some words."""
    values = [draw(SCALAR) for _ in _HASHED_FIELDS]
    words = draw(st.lists(TEXT, max_size=4))
    values[_HASHED_FIELDS.index("words")] = draw(st.sampled_from([list, tuple]))(words)
    return values


@settings(max_examples=600, deadline=None)
@given(rows())
def test_any_row_hashes_as_defined(values):
    assert hash_values(values) == defined(values)
    assert hash_values(values) == defined(values)  # the pattern's template, kept: still so


def test_the_same_pattern_with_other_values_hashes_each_as_defined():
    entry = journal_entry.new_entry({**challenge_fields(), "id": 7, "recorded_at": "2026-11-29"})
    row = [getattr(entry, name) for name in _HASHED_FIELDS]
    for text in ['quote " and \\ backslash', "100% {0} {{}}", "é ü ł ñ 𝄞", "\x00\x1f\x7f", ""]:
        changed = list(row)
        changed[_HASHED_FIELDS.index("consequence")] = text
        changed[_HASHED_FIELDS.index("note")] = text
        assert hash_values(changed) == defined(changed), text


def test_every_row_of_a_journal_verifies_with_the_hash_it_was_written_with(migrated_db):
    """Rows of every kind the hall writes, each hashed when written and walked again."""
    for n in range(30):
        fields = challenge_fields(verdict=("ACCEPTABLE", "UNACCEPTABLE")[n % 2])
        if n % 3 == 0:
            fields.update(table=str(n), round="2", challenger="Zoë Ó'Brien", division="A")
        if n % 5 == 0:
            fields.update(details=json.dumps({"attempt": f"k{n:020d}", "note": "100% {x}"}))
        entry = journal.append(migrated_db, **fields)
        values = [getattr(entry, name) for name in _HASHED_FIELDS]
        assert entry.row_hash == defined(values)
    assert journal.verify(migrated_db).ok
