"""POST /api/v1/spell: how a kiosk's typed words read as tiles, before JUDGE.

Only a paired kiosk may ask; the answer is read in the tournament lexicon's alphabet and never
from its lexicon (a valid and an invalid word of the same shape get the same answer, and the
answer comes even when the lexicon cannot be opened); nothing is recorded; and a kiosk asking too
often is refused with 429 without affecting its adjudications.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.people.ratelimit import RateLimit, RecentRequests
from adjudicator.record.journal import journal
from adjudicator.words.alphabet_files import builtin
from adjudicator.words.wordlist import WordSet

from support.hall import build_setup, make_app, pair_browser

SPANISH_WORDS = ["[CH]ICO", "PE[RR]O", "CAMION", "CHAT"]


@pytest.fixture
def setup(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    setup = build_setup(tmp_path)
    spanish = builtin("spanish")
    setup.store.save("ES-TINY", WordSet.take(SPANISH_WORDS, spanish), description="tiny Spanish")
    tournaments.create(setup.hall.db, setup.store, "es", "ES-TINY", "double", "Open de Madrid")
    setup.es = kiosks.add(setup.hall.db, "mesa-1", "es")
    return setup


def spell(client, setup, words, enrolment=None):
    return client.post(
        "/api/v1/spell", json={"words": words}, headers=setup.headers(enrolment or setup.es)
    )


def test_typed_words_read_as_tiles_with_the_other_ways_to_split_them(client, setup):
    response = spell(client, setup, ["chico", "[c][h]at", "camión", "año"])
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] is True and body["alphabet"] == "spanish"
    chico, chat, camion, ano = body["words"]
    assert chico == {
        "typed": "chico",
        "current": 0,
        "readings": [
            {"tiles": ["CH", "I", "C", "O"], "word": "[CH]ICO", "written": "[CH]ICO"},
            {"tiles": ["C", "H", "I", "C", "O"], "word": "CHICO", "written": "[C][H]ICO"},
        ],
    }
    assert chat["current"] == 1 and chat["readings"][1]["tiles"] == ["C", "H", "A", "T"]
    assert camion["readings"] == [{"tiles": list("CAMION"), "word": "CAMION", "written": "CAMION"}]
    assert ano["readings"][0]["tiles"] == ["A", "Ñ", "O"]


def test_what_a_reading_says_is_what_the_adjudication_reads(client, setup):
    body = spell(client, setup, ["chico", "chat", "camión"]).get_json()
    chosen = [body["words"][0]["readings"][1], body["words"][1]["readings"][1]]  # both split
    written = [r["written"] for r in chosen] + [body["words"][2]["readings"][0]["written"]]
    judged = client.post(
        "/api/v1/adjudications", json={"words": written}, headers=setup.headers(setup.es)
    )
    assert judged.status_code == 201
    entry = judged.get_json()
    assert entry["words"] == ["CHICO", "CHAT", "CAMION"]
    assert entry["verdict"] == "UNACCEPTABLE"  # C,H,I,C,O is not the listed [CH]ICO


def test_problems_name_the_word_and_the_character_without_a_400(client, setup):
    body = spell(client, setup, ["chico", "whisky", "a"]).get_json()
    assert "problem" not in body["words"][0]
    assert body["words"][1] == {
        "typed": "whisky",
        "problem": body["words"][1]["problem"],
        "shown_problem": (  # as the kiosk says it, in the language it asks in
            "Word 2 ('whisky') has “w” at position 1, which the Spanish alphabet's tiles do not "
            "spell: type a blank as the letter it stands for, and a tile of several letters in "
            "brackets, such as [CH]."
        ),
    }
    assert body["words"][1]["problem"].startswith(
        "Word 2 ('whisky') has the character 'w' (latin small letter w, U+0077) at position 1: "
        "the spanish alphabet's tiles are A B C CH D"
    )
    assert body["words"][2]["problem"] == "Word 3 ('a') has 1 tile: a word has at least 2 tiles."


@pytest.mark.parametrize(
    "body, message",
    [
        ({"words": "chico"}, "Send the typed words as"),
        ({"palabras": ["chico"]}, "Send the typed words as"),
        ({"words": ["chico"], "table": 4}, "Unknown field(s) 'table': send only words."),
        ({"words": ["qi"] * 9}, "Too many words: 9 given"),
        ({"words": ["qi", None]}, "Each word must be text"),
        ([], "Send the typed words as"),
    ],
)
def test_a_request_that_is_not_a_list_of_words_is_a_400(client, setup, body, message):
    response = client.post("/api/v1/spell", json=body, headers=setup.headers(setup.es))
    assert response.status_code == 400
    assert response.get_json()["ok"] is False and message in response.get_json()["error"]


def test_huge_or_strange_words_are_problems_not_errors(client, setup):
    words = ["a" * 5000, "\u0000\u202e", "[" * 40, "ch" * 40]
    response = spell(client, setup, words)
    assert response.status_code == 200
    problems = [word["problem"] for word in response.get_json()["words"]]
    assert "has 5000 characters" in problems[0]
    assert "U+0000" in problems[1]
    assert "bracket" in problems[2]
    assert "characters" in problems[3] or "tiles" in problems[3]


def test_only_a_paired_kiosk_may_ask(client, setup):
    anonymous = client.post("/api/v1/spell", json={"words": ["chico"]})
    assert anonymous.status_code == 401 and "paired kiosk" in anonymous.get_json()["error"]
    wrong = client.post(
        "/api/v1/spell", json={"words": ["chico"]}, headers={"Authorization": "Bearer nope"}
    )
    assert wrong.status_code == 401
    browser = pair_browser(make_app(setup.hall), setup.es)  # the kiosk page's cookie works too
    assert browser.post("/api/v1/spell", json={"words": ["chico"]}).status_code == 200
    kiosks.revoke(setup.hall.db, "mesa-1")
    assert spell(client, setup, ["chico"]).status_code == 401


def test_each_kiosk_reads_in_its_own_tournaments_alphabet(client, setup):
    english = spell(client, setup, ["chico", "año"], setup.csw).get_json()
    assert english["alphabet"] == "english"
    assert english["words"][0]["readings"] == [
        {"tiles": list("CHICO"), "word": "CHICO", "written": "CHICO"}
    ]
    assert "use the letters A to Z only" in english["words"][1]["problem"]


def shape(body: dict) -> list:
    """What an answer says, but for the letters: which reading is current, and tile lengths."""
    return [
        (sorted(word), word["current"], [[len(t) for t in r["tiles"]] for r in word["readings"]])
        for word in body["words"]
    ]


def test_the_answer_never_depends_on_the_lexicon(client, setup):
    """A listed and an unlisted word of the same shape get the same answer but for the letters."""
    listed = spell(client, setup, ["chico", "perro", "camion"]).get_json()
    unlisted = spell(client, setup, ["chica", "parro", "camian"]).get_json()
    assert shape(listed) == shape(unlisted) and sorted(listed) == sorted(unlisted)
    # and it is answered when the lexicon cannot be opened at all: nothing is looked up
    compiled = setup.store.root / setup.store.manifest("ES-TINY").compiled_file
    compiled.write_bytes(b"not a trie")
    assert spell(client, setup, ["chico"]).get_json() == spell(client, setup, ["chico"]).get_json()
    assert spell(client, setup, ["chico"]).status_code == 200
    judged = client.post(
        "/api/v1/adjudications", json={"words": ["chico"]}, headers=setup.headers(setup.es)
    )
    assert judged.status_code == 503


def test_nothing_is_recorded_and_adjudications_are_not_counted(setup, tmp_path):
    app = make_app(setup.hall)
    client = app.test_client()
    for _ in range(20):
        assert spell(client, setup, ["chico"]).status_code == 200
    with setup.hall.db.transaction() as cur:
        assert journal.count_since(cur, "mesa-1", "2000-01-01T00:00:00", at_most=50) == 0


def test_a_kiosk_asking_too_often_is_told_to_wait(setup):
    app = make_app(setup.hall, SPELL_RATE_LIMIT="3/minute")
    client = app.test_client()
    kiosks.set_table(setup.hall.db, "mesa-1", "4")  # a table's kiosk: a table's reading
    assert [spell(client, setup, ["chico"]).status_code for _ in range(3)] == [200] * 3
    refused = spell(client, setup, ["chico"])
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "60"
    assert "wait a moment" in refused.get_json()["error"]
    assert spell(client, setup, ["qi"], setup.csw).status_code == 200  # another kiosk: its own
    judged = client.post(
        "/api/v1/adjudications", json={"words": ["chico"]}, headers=setup.headers(setup.es)
    )
    assert judged.status_code == 201  # judging is not held up by reading


def test_the_halls_computer_reads_for_as_many_tables_as_it_judges(setup):
    """A kiosk at no table serves the whole hall: it may ask HALL_TABLES times as often."""
    app = make_app(setup.hall, SPELL_RATE_LIMIT="3/minute")
    client = app.test_client()
    assert [spell(client, setup, ["chico"]).status_code for _ in range(30)] == [200] * 30
    assert spell(client, setup, ["chico"]).status_code == 429


def test_recent_requests_slide_over_the_window():
    now = [0.0]
    limiter = RecentRequests(RateLimit(2, 60), clock=lambda: now[0])
    assert limiter.allow("a") and limiter.allow("a") and not limiter.allow("a")
    assert limiter.allow("b")
    now[0] = 59.0
    assert not limiter.allow("a")
    now[0] = 60.5
    assert limiter.allow("a") and limiter.allow("a") and not limiter.allow("a")
