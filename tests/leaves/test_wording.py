"""Plurals and the one time form: what the staff pages show and accept."""

from __future__ import annotations

import pytest

from adjudicator import wording
from adjudicator.hall.director.journal_review import FilterError, parse_time
from adjudicator.wording import plural, utc_time


@pytest.mark.parametrize(
    ("count", "noun", "shown"),
    [
        (0, "kiosk", "0 kiosks"),
        (1, "kiosk", "1 kiosk"),
        (2, "kiosk", "2 kiosks"),
        (1, "second opinion", "1 second opinion"),
        (3, "second opinion", "3 second opinions"),
        (1204, "row", "1,204 rows"),
    ],
)
def test_plurals_are_right(count, noun, shown):
    assert plural(count, noun) == shown


def test_an_irregular_plural_is_given():
    assert plural(2, "match", "matches") == "2 matches"
    assert plural(1, "match", "matches") == "1 match"


def test_journal_times_are_shown_year_first_24_hour_utc():
    assert utc_time("2024-05-01T14:03:22.123456+00:00") == "2024-05-01 14:03:22"
    assert utc_time("2024-05-01T14:03:22+00:00", seconds=False) == "2024-05-01 14:03"
    assert utc_time(None) == "" and utc_time("") == ""


@pytest.mark.parametrize(
    ("typed", "start", "end"),
    [
        ("2024-05-01", "2024-05-01T00:00:00.000000", "2024-05-01T23:59:59.999999"),
        ("2024-05-01 14:00", "2024-05-01T14:00:00.000000", "2024-05-01T14:00:59.999999"),
        ("2024-05-01T14:00", "2024-05-01T14:00:00.000000", "2024-05-01T14:00:59.999999"),
        ("2024-05-01 14:00:05", "2024-05-01T14:00:05.000000", "2024-05-01T14:00:05.999999"),
        (" 2024-05-01 14:00 ", "2024-05-01T14:00:00.000000", "2024-05-01T14:00:59.999999"),
    ],
)
def test_times_are_typed_in_one_form_and_an_end_takes_in_what_was_typed(typed, start, end):
    assert parse_time(typed) == start + "+00:00"
    assert parse_time(typed, end=True) == end + "+00:00"


def test_a_time_with_an_offset_is_taken_as_given():
    assert parse_time("2024-05-01T14:00+02:00") == "2024-05-01T12:00:00.000000+00:00"


@pytest.mark.parametrize(
    "typed", ["yesterday", "01/05/2024", "5/1/2024 2:00 PM", "2024-13-01", "2024-05-01 25:00"]
)
def test_a_time_in_another_form_is_refused_with_the_form_to_use(typed):
    with pytest.raises(FilterError) as refused:
        parse_time(typed)
    assert "type it as YYYY-MM-DD HH:MM (UTC, 24-hour), such as 2024-05-01 14:00" in str(
        refused.value
    )


def test_no_time_is_no_filter():
    assert parse_time("") is None and parse_time(None) is None and parse_time("  ") is None


def test_names_sort_by_their_numbers_as_people_count():
    names = ["table 10", "table 2", "Table 1", "table 02x", "table 2a", "hall", "10", "9", "a9b10"]
    assert sorted(names, key=wording.natural_key) == [
        "9", "10", "a9b10", "hall", "Table 1", "table 2", "table 2a", "table 02x", "table 10",
    ]  # fmt: skip


def test_a_phrase_writes_its_numbers_and_says_its_phrases_in_one_language():
    english = "{count} tiles of the {name} alphabet, {flag}"
    phrase = wording.Phrase.of(english, count=279496, name=wording.Phrase("Polish"), flag=True)
    polish = {"Polish": "polski", english: "{count} płytek (alfabet {name}), {flag}"}
    grouped = lambda n: f"{n:,}".replace(",", "\xa0")  # noqa: E731 - as Babel writes Polish
    said = phrase.render(lambda text: polish.get(text, text), None, grouped)
    assert said == "279\xa0496 płytek (alfabet polski), True"  # a bool is no number
    assert phrase.render(lambda text: text, None) == "279496 tiles of the Polish alphabet, True"
