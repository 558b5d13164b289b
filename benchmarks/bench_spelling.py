"""Benchmarks for the kiosk's reading of typed words as tiles (issue 14, the kiosk).

A Spanish kiosk asks the server how the words typed so far read as tiles (POST /api/v1/spell),
about once a word. Measured side by side in one run, alternating:
- the library: `spell_challenge` of an 8-word Spanish challenge (its tiles, the other ways to
  split them, the typing for each) against its floor, `normalize_challenge` of the same words
  (what judging them does anyway);
- the endpoint, in-process through the Flask app with a kiosk token: POST /api/v1/spell of the
  same 8 words against its floor, the kiosk's status poll GET /api/v1/kiosk (the same kiosk
  lookup, one small JSON answer; every kiosk makes it every 5 s);
- the worst a kiosk can ask: 8 words of 15 tiles that each split the most ways (CH seven times
  over, 16 readings each), and 8 words of 60 letters in a federation's alphabet of nested tiles
  (A, AA, AAA, AAAA: the longest search), against `normalize_challenge` of the same words.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.words.alphabet_files import builtin, parse_alphabet
from adjudicator.words.normalize import normalize_challenge
from adjudicator.words.spelling import spell_challenge
from adjudicator.words.wordlist import WordSet

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.alternating import alternate, report, timed  # noqa: E402

from tests.support.hall import build_setup, make_app  # noqa: E402

pytestmark = pytest.mark.usefixtures("quiet_logs")

SPANISH = builtin("spanish")
CHALLENGE = ["churro", "chorizo", "llamar", "perro", "camión", "niño", "[c][h]at", "ferrocarril"]
NESTED = parse_alphabet({"name": "nested", "tiles": ["A", "AA", "AAA", "AAAA", "B"]}, "bench")
# Each case: the alphabet, the words, calls a timing, and pytest-benchmark's rounds and iterations.
SPELLINGS = {
    "8 Spanish words": (SPANISH, CHALLENGE, 2000, 50, 20),
    "worst (nested)": (
        NESTED,
        ["a" * 60, "a" * 59, "a" * 45, "a" * 31, "a" * 30, "a" * 29, "a" * 16, "ab"],
        200,
        20,
        5,
    ),
    "worst (spanish)": (SPANISH, ["ch" * 7 + "a"] * 8, 200, 20, 5),
}


@pytest.mark.parametrize("case", list(SPELLINGS))
def test_spell_against_normalize(benchmark, case):
    alphabet, words, number, rounds, iterations = SPELLINGS[case]
    floor, spell = alternate(
        timed(lambda: normalize_challenge(words, alphabet), number),
        timed(lambda: spell_challenge(words, alphabet), number),
    )
    benchmark.pedantic(
        lambda: spell_challenge(words, alphabet), rounds=rounds, iterations=iterations
    )
    report(
        benchmark,
        "us",
        ("spell", f"{case}: spell_challenge", spell),
        ("normalize", "normalize_challenge", floor),
    )


def test_spell_endpoint_against_the_status_poll(benchmark, tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    setup = build_setup(tmp_path)
    setup.store.save("ES", WordSet.take(["[CH]ICO", "PE[RR]O"], SPANISH))
    tournaments.create(setup.hall.db, setup.store, "es", "ES", "double", "Open")
    token = {"Authorization": f"Bearer {kiosks.add(setup.hall.db, 'mesa', 'es').token}"}
    client = make_app(setup.hall, SPELL_RATE_LIMIT="off").test_client()

    def spell():
        response = client.post("/api/v1/spell", json={"words": CHALLENGE}, headers=token)
        assert response.status_code == 200

    def poll():
        assert client.get("/api/v1/kiosk", headers=token).status_code == 200

    polled, spelled = alternate(timed(poll, 100), timed(spell, 100))
    benchmark.pedantic(spell, rounds=20, iterations=5)
    report(
        benchmark,
        "ms",
        ("spell", "POST /api/v1/spell", spelled),
        ("poll", "GET /api/v1/kiosk", polled),
    )
