"""CSV exports neutralise spreadsheet formulas (OWASP's CSV injection guidance); the journal
and the JSON export keep the text as recorded."""

from __future__ import annotations

import csv
import io
import json

import pytest

from adjudicator.hall.director import export
from adjudicator.judging import outcomes
from adjudicator.record.journal import journal

from support.hall import build_setup


@pytest.mark.parametrize(
    "value",
    ["=1+1", "+1+1", "-1+1", "@SUM(1+1)", "\t=1", "\r=1", "\n=1", "\uff1d1+1", "\uff20SUM(1)"],
)
def test_a_formula_is_written_as_text(value):
    assert export.neutralise_formula(value) == "'" + value


@pytest.mark.parametrize("value", ["Bob", "12", "1-2", "a=b", "'quoted", "", None, 7])
def test_anything_else_is_written_as_is(value):
    assert export.neutralise_formula(value) == value


def test_every_csv_cell_is_neutralised_and_the_journal_is_not(tmp_path):
    setup = build_setup(tmp_path)
    kiosk = setup.nwl.kiosk
    details = {"table": "+1+1", "round": "-2", "challenger": '=HYPERLINK("x")', "player": "@me"}
    entry = setup.hall.adjudicate(kiosk, ["QI"], **details)
    records = export.csv_records(setup.hall.db, journal.batches(setup.hall.db))
    rows = list(csv.DictReader(io.StringIO("".join(export.csv_chunks(records)))))
    assert {name: rows[0][name] for name in details} == {k: "'" + v for k, v in details.items()}
    stored = journal.get(setup.hall.db, entry.id)
    assert {name: getattr(stored, name) for name in details} == details
    with_outcomes = outcomes.with_outcomes(setup.hall.db, journal.entries(setup.hall.db))
    as_json = json.loads("".join(export.json_chunks(with_outcomes)))
    assert {name: as_json[0][name] for name in details} == details
    assert journal.verify(setup.hall.db).ok
