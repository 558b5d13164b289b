"""Benchmarks for the kiosk in the hall's language (issue 23): translation must add no
measurable cost to a verdict.

Side by side in one run, alternating languages round by round (a load swing hits them all):
- the adjudication API, in-process through the Flask app with a kiosk token: POST
  /api/v1/adjudications of two words (one journal row each, as a kiosk sends them), with the
  kiosk page's language as Accept-Language, for en, pl, es, ca and fr;
- the kiosk page, GET / on a paired browser, its tournament set to each language in turn.
Each is also a pytest-benchmark per language (`--benchmark-only`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from adjudicator.hall import tournaments
from adjudicator.hall.languages import LANGUAGES

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.sizing import smallest  # noqa: E402

from tests.support.hall import NWL, build_setup, make_app, pair_browser  # noqa: E402

CODES = list(LANGUAGES)
ROUNDS = smallest(7, 1)
CALLS = smallest(60, 1)


@pytest.fixture(scope="module")
def hall_app(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("languages")
    setup = build_setup(tmp)
    app = make_app(setup.hall)
    return setup, app, app.test_client(), pair_browser(app, setup.nwl)


def _judge(client, setup, code):
    headers = {**setup.headers(), "Accept-Language": code}
    response = client.post("/api/v1/adjudications", json={"words": ["QI", "ZA"]}, headers=headers)
    assert response.status_code == 201


def _page(browser):
    response = browser.get("/")
    assert response.status_code == 200


def _best(call, number: int) -> float:
    best = float("inf")
    for _ in range(smallest(3, 1)):
        start = time.perf_counter()
        for _ in range(number):
            call()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def _side_by_side(calls: dict, benchmark, what: str) -> None:
    seen: dict[str, list[float]] = {code: [] for code in calls}
    codes = list(calls)
    for turn in range(ROUNDS):
        for code in codes[turn % len(codes) :] + codes[: turn % len(codes)]:  # each goes first
            seen[code].append(_best(calls[code], CALLS))
    english = min(seen["en"])
    for code in calls:
        fastest = min(seen[code])
        benchmark.extra_info[f"{code}_us"] = round(fastest * 1e6, 1)
        benchmark.extra_info[f"{code}_vs_en"] = round(fastest / english, 3)
    print(
        f"\n{what}: "
        + ", ".join(f"{code} {min(seen[code]) * 1e6:.0f} us" for code in calls)
        + " | vs en: "
        + ", ".join(f"{code} {min(seen[code]) / english:.3f}" for code in calls)
    )
    benchmark.pedantic(calls["en"], rounds=5, iterations=10)


def test_adjudication_api_per_language_side_by_side(benchmark, hall_app):
    setup, _app, client, _browser = hall_app
    calls = {code: (lambda code=code: _judge(client, setup, code)) for code in CODES}
    _side_by_side(calls, benchmark, "POST /api/v1/adjudications")


def test_kiosk_page_per_language_side_by_side(benchmark, hall_app):
    setup, _app, _client, browser = hall_app

    def page_in(code):
        def call():
            _page(browser)

        def switch_then_call():
            tournaments.update(setup.hall.db, setup.store, NWL, language=code)
            return call

        return switch_then_call

    # The language is the tournament's: set it once per language and round, then time pages.
    seen: dict[str, list[float]] = {code: [] for code in CODES}
    for turn in range(ROUNDS):
        for code in CODES[turn % len(CODES) :] + CODES[: turn % len(CODES)]:
            seen[code].append(_best(page_in(code)(), CALLS))
    english = min(seen["en"])
    for code in CODES:
        benchmark.extra_info[f"{code}_us"] = round(min(seen[code]) * 1e6, 1)
        benchmark.extra_info[f"{code}_vs_en"] = round(min(seen[code]) / english, 3)
    print(
        "\nGET / (kiosk page): "
        + ", ".join(f"{code} {min(seen[code]) * 1e6:.0f} us" for code in CODES)
        + " | vs en: "
        + ", ".join(f"{code} {min(seen[code]) / english:.3f}" for code in CODES)
    )
    tournaments.update(setup.hall.db, setup.store, NWL, language="en")
    benchmark.pedantic(lambda: _page(browser), rounds=5, iterations=10)


@pytest.mark.parametrize("code", CODES)
def test_adjudication_api(benchmark, hall_app, code):
    setup, _app, client, _browser = hall_app
    benchmark.pedantic(lambda: _judge(client, setup, code), rounds=20, iterations=10)


@pytest.mark.parametrize("code", CODES)
def test_kiosk_page(benchmark, hall_app, code):
    setup, _app, _client, browser = hall_app
    tournaments.update(setup.hall.db, setup.store, NWL, language=code)
    benchmark.pedantic(lambda: _page(browser), rounds=20, iterations=10)
