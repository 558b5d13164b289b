"""POST /api/v1/spell attacked against a real `adjudicator serve` (gunicorn) with a Spanish lexicon.

A player with the hall's Wi-Fi and a kiosk's token sends nonsense: huge words, 10,000 brackets,
unpaired brackets, control characters, the wrong content type, JSON nested thousands deep. A
request that is not a list of words is a 400-class answer that says what to send; a list of words
gets each word's problem (as the kiosk shows it), never a 500, never a verdict, nothing recorded;
and no answer tells a listed word from an unlisted one.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator

import pytest

from adjudicator.words.alphabet_files import builtin
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.http import send_early_answered
from support.servers import PreparedHome, Server, cli, prepare_home

pytestmark = pytest.mark.slow  # real servers (gunicorn) attacked under load

SHAPE = '{"words": ["chico", "[c][h]at"]}'
TRACEBACK_SIGNS = ("Traceback", 'File "/', "site-packages")


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    home: PreparedHome = prepare_home(tmp_path_factory.mktemp("spell-attacks") / "home")
    spanish = builtin("spanish")
    LexiconStore(root=home.path / "lexicons").save(
        "ES-T", WordSet.take(["[CH]ICO", "PE[RR]O"], spanish), description="tiny Spanish"
    )
    cli(home.path, "tournament", "create", "es", "--lexicon", "ES-T", "--rule", "double")
    token = cli(home.path, "kiosk", "add", "mesa-1", "--tournament", "es").strip().split()[-1]
    server = Server(home).start()
    yield server, token
    server.stop()


def send(hall, body: bytes | str, content_type: str | None = "application/json"):
    """POST `body` to /api/v1/spell with the kiosk's token: (status, parsed JSON or raw text)."""
    server, token = hall
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    headers = {"Authorization": f"Bearer {token}"}
    if content_type:
        headers["Content-Type"] = content_type
    send_early_answered(connection, "POST", "/api/v1/spell", body, headers)
    response = connection.getresponse()
    raw = response.read().decode("utf-8", "replace")
    connection.close()
    assert not any(sign in raw for sign in TRACEBACK_SIGNS)
    assert "verdict" not in raw.lower() and "ACCEPTABLE" not in raw
    try:
        return response.status, json.loads(raw)
    except ValueError:
        return response.status, raw


def words(*typed) -> str:
    return json.dumps({"words": list(typed)})


@pytest.mark.parametrize(
    "body, content_type, status, says",
    [
        (words("chico"), "text/plain", 400, "Content-Type: application/json"),
        ("words=chico", "application/x-www-form-urlencoded", 400, "Content-Type: application/json"),
        (words("chico"), None, 400, "Content-Type: application/json"),
        ("", "application/json", 400, "not valid JSON"),
        (b'{"words": ["\xff\xfe"]}', "application/json", 400, "not valid JSON"),
        ('{"words": ["chico"', "application/json", 400, "not valid JSON"),
        ('{"words": ' + "[" * 2_000 + "]" * 2_000 + "}", "application/json", 400, "too deeply"),
        ('{"words": ' + "[" * 20_000 + "]" * 20_000 + "}", "application/json", 413, "at most 8 KB"),
        ("[" * 1_000 + "]" * 1_000, "application/json", 400, "too deeply"),
        ('{"words": [' + "9" * 5_000 + "]}", "application/json", 400, "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "application/json", 413, "at most 8 KB"),
        (words("a" * 1_000_000), "application/json", 413, "at most 8 KB"),
        ("null", "application/json", 400, "as a list"),
        ('{"words": NaN}', "application/json", 400, "as a list"),
        ('{"words": {"chico": 1}}', "application/json", 400, "as a list"),
        ('{"words": "chico perro"}', "application/json", 400, "as a list"),
        ('{"words": ["chico"], "table": 4}', "application/json", 400, "Unknown field(s) 'table'"),
        (words(*["qi"] * 1_000), "application/json", 400, "Too many words: 1000 given"),
        ('{"words": [["chico"]]}', "application/json", 400, "Each word must be text"),
    ],
)
def test_a_request_that_is_not_a_list_of_words_says_what_to_send(
    hall, body, content_type, status, says
):
    answered, answer = send(hall, body, content_type)
    assert answered == status
    assert answer["ok"] is False and says in answer["error"], answer
    if status == 400 and not any(s in says for s in ("Too many", "must be text", "Unknown")):
        assert SHAPE in answer["error"]  # the message shows what to send


def problems(hall, *typed) -> list[str]:
    status, answer = send(hall, words(*typed))
    assert status == 200 and answer["ok"] is True
    assert all("readings" not in word for word in answer["words"])  # nothing read as tiles
    return [word["problem"] for word in answer["words"]]


def test_huge_and_bracketed_nonsense_is_each_words_problem_never_spelled_out(hall):
    huge, opens, pairs, closes = problems(  # within the API's 8 KB (kiosk/body_limits.py)
        hall, "a" * 2_000, "[" * 1_000, "[]" * 500, "]" * 1_000
    )
    assert huge.startswith("Word 1 ('" + "a" * 60 + "…') has 2000 characters: no word")
    assert "1000 characters" in opens and "1000 characters" in pairs
    assert closes.startswith("Word 4 ('" + "]" * 60 + "…') has 1000 characters")
    assert max(len(text) for text in (huge, opens, pairs, closes)) < 300  # not echoed in full


def test_unpaired_brackets_and_control_characters_are_named_with_their_position(hall):
    found = problems(
        hall, "[ch", "ch]", "[[ch]]", "[]", "[ñx]", "\x00ch", "ch\u202eo", "\u200bchico"
    )
    assert "an opening bracket '[' at position 1 with no closing bracket ']'" in found[0]
    assert "a closing bracket ']' at position 3 with no opening bracket '['" in found[1]
    assert "brackets hold exactly one tile" in found[2] and "brackets hold" in found[3]
    assert "[ÑX] at position 1, but brackets hold exactly one tile" in found[4]
    assert "control character (U+0000) at position 1" in found[5]
    assert "right-to-left override, U+202E) at position 3" in found[6]
    assert "zero width space, U+200B) at position 1" in found[7]
    assert all("the spanish alphabet's tiles are A B C CH" in text for text in found)


def shape(answer: dict) -> list:
    """What an answer says about each word, but for its letters."""
    return [
        (word["current"], [[len(tile) for tile in r["tiles"]] for r in word["readings"]])
        for word in answer["words"]
    ]


def test_answers_never_tell_a_listed_word_from_an_unlisted_one_and_record_nothing(hall):
    server, _ = hall
    status, listed = send(hall, words("chico", "perro", "[c][h]ico"))  # all three listed shapes
    assert status == 200
    _, unlisted = send(hall, words("chica", "parro", "[c][h]ica"))
    assert shape(listed) == shape(unlisted)
    assert json.loads(cli(server.home.path, "journal", "export", "--format", "json")) == []
    log = server.read_log()
    assert "Traceback" not in log and '" 500 ' not in log
