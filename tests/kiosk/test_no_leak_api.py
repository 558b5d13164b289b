"""Nothing the web app returns, renders, records or logs tells which challenged word failed.

For a challenge of eight words with one bad word at each position in turn, the JSON response,
the kiosk's page and the journal row (as `journal export --format json` gives it) are the same
once the words themselves and the id, time and hash fields are masked.
"""

from __future__ import annotations

import json
import logging
import re

import pytest

from adjudicator.hall.director.export import export_json
from adjudicator.judging import outcomes
from adjudicator.record.journal import journal

from support.hall import (
    NWL_WORDS,
    build_setup,
    compiled_file,
    make_app,
    mask_volatile,
    mask_words,
    pair_browser,
)

GOOD = ["QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA"]
BAD = "QX"  # as long as QI, ZA, JO and XI: only the word itself differs
EVERY_WORD = {*GOOD, BAD}
assert set(GOOD) <= set(NWL_WORDS) and BAD not in NWL_WORDS


def with_bad_word_at(position: int) -> list[str]:
    words = list(GOOD)
    words[position] = BAD
    return words


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    # Eight challenges in a row from one kiosk are flagged as possible separate look-ups
    # (NASPA 6.2) from the second on, by order and time, never by word: not what is tested here.
    monkeypatch.setenv("ADJUDICATOR_SEPARATE_LOOKUP_SECONDS", "0")
    return build_setup(tmp_path)


@pytest.fixture
def browser(setup):
    return pair_browser(make_app(setup.hall), setup.nwl)


def masked(text: str) -> str:
    text = mask_volatile(mask_words(text, EVERY_WORD))
    return re.sub(r'"(?:id|refers_to|decided_by)": ?\d+|/adjudications/\d+', "<ID>", text)


def challenge(browser, words):
    """Judge `words` from the paired browser: (masked JSON, masked page, masked journal row)."""
    response = browser.post("/api/v1/adjudications", json={"words": words})
    assert response.status_code == 201, response.get_data(as_text=True)
    body = response.get_json()
    headers = {k: v for k, v in response.headers.items() if k != "Content-Length"}
    api = masked(json.dumps([body, headers], sort_keys=True))
    page = browser.get("/")
    assert page.status_code == 200
    return api, masked(page.get_data(as_text=True)), body["id"]


def exported(setup, entry_id: int) -> str:
    (row,) = outcomes.with_outcomes(setup.hall.db, [journal.get(setup.hall.db, entry_id)])
    return masked(json.dumps(export_json(*row), sort_keys=True))


def test_nothing_differs_by_which_word_was_bad(setup, browser):
    seen = set()
    for position in range(8):
        api, page, entry_id = challenge(browser, with_bad_word_at(position))
        seen.add((api, page, exported(setup, entry_id)))
    assert len(seen) == 1, "the response, page or journal row depends on which word was bad"
    ((api, page, row),) = seen
    assert '"verdict": "UNACCEPTABLE"' in api and '"word_count": 8' in api
    assert '"verdict": "UNACCEPTABLE"' in row


def test_nothing_differs_by_how_many_words_were_bad(setup, browser):
    one_bad = challenge(browser, with_bad_word_at(2))
    two_bad = with_bad_word_at(2)
    two_bad[6] = BAD
    all_bad = challenge(browser, [BAD] * 8)
    assert one_bad[:2] == challenge(browser, two_bad)[:2] == all_bad[:2]


def test_the_masking_still_lets_a_verdict_through(setup, browser):
    # Guard against a mask so greedy that every outcome looks alike.
    good = challenge(browser, GOOD)
    bad = challenge(browser, with_bad_word_at(4))
    assert good[0] != bad[0]
    assert exported(setup, good[2]) != exported(setup, bad[2])


def test_the_journal_row_holds_only_the_words_and_one_verdict(setup, browser):
    _, _, entry_id = challenge(browser, with_bad_word_at(5))
    row = export_json(journal.get(setup.hall.db, entry_id))
    assert row["words"] == with_bad_word_at(5)
    # no field but "words" names a word, and no field is per word
    for name, value in row.items():
        if name != "words":
            assert mask_words(json.dumps(value), EVERY_WORD) == json.dumps(value), name
            assert not isinstance(value, list), name


def test_log_output_names_no_word(setup, browser, caplog):
    caplog.set_level(logging.DEBUG)
    for position in range(8):
        challenge(browser, with_bad_word_at(position))
    challenge(browser, GOOD)
    # the unhappy paths log too: input errors, and a lexicon that stops working
    assert browser.post("/api/v1/adjudications", json={"words": ["QX", "Q1"]}).status_code == 400
    path = compiled_file(setup.store, "TINY-NWL")
    path.write_bytes(path.read_bytes()[:-1])  # truncated under the running server
    response = browser.post("/api/v1/adjudications", json={"words": with_bad_word_at(1)})
    assert response.status_code == 503
    assert any(record.levelno >= logging.ERROR for record in caplog.records), (
        "the 503 should have been logged, or this test checks nothing"
    )
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert mask_words(logged, EVERY_WORD | {"Q1"}) == logged
