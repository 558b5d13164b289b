"""The words a player and a director read, in their language (issue 28, item 5): an alphabet's
name on the kiosk is the language's own word for it ("català", not "catalan"), and numbers are
written as the language writes them, by Babel ("1 234" in Polish with a no-break space,
"1.234" in Spanish), on the kiosk and on the director's pages."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.words.alphabet_files import (
    AlphabetError,
    builtin,
    load_alphabet_file,
    parse_alphabet,
)
from adjudicator.words.wordlist import WordSet

from support.director import build_staffed
from support.hall import NWL, build_setup, make_app, pair_browser

pytestmark = pytest.mark.usefixtures("fast_hashes")

CATALAN_WORDS = ["COL·LEGI", "PLAÇA", "QUATRE", "NYAP", "PAELLA"]
SWEDISH = """name = "swedish-club"
tiles = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "R",
         "S", "T", "U", "V", "X", "Y", "Z", "Å", "Ä", "Ö"]
"""
# 1,234 words: every two-letter pair of A-Z (676) and the first 558 three-letter ones.
MANY_WORDS = [
    "".join(letters)
    for size in (2, 3)
    for letters in itertools.product("ABCDEFGHIJKLMNOPQRSTUVWXYZ", repeat=size)
][:1234]
# 1,234 as each language writes it (Babel: a no-break space in Polish, a narrow one in French).
WRITTEN = {"en": "1,234", "pl": "1\xa0234", "es": "1.234", "ca": "1.234", "fr": "1\u202f234"}
CATALAN_SAID = {
    "en": "Catalan",
    "pl": "kataloński",
    "es": "catalán",
    "ca": "català",
    "fr": "catalan",
}


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    setup = build_setup(tmp_path)
    setup.store.save("CA-T", WordSet.take(CATALAN_WORDS, builtin("catalan")))
    tournaments.create(setup.hall.db, setup.store, "obert", "CA-T", "single", "Obert")
    setup.ca = kiosks.add(setup.hall.db, "taula-1", "obert")
    return setup


def status(setup, enrolment) -> dict:
    client = make_app(setup.hall).test_client()
    return client.get("/api/v1/kiosk", headers=setup.headers(enrolment)).get_json()


# ---------- the alphabet's name ----------


@pytest.mark.parametrize("code", list(CATALAN_SAID))
def test_the_kiosk_names_the_alphabet_in_the_tournaments_language(setup, code):
    tournaments.update(setup.hall.db, setup.store, "obert", language=code)
    alphabet = status(setup, setup.ca)["lexicon"]["alphabet"]
    assert alphabet["name"] == "catalan"  # what scripts and the CLI use, unchanged
    assert alphabet["title"] == "Catalan"
    assert alphabet["shown_title"] == CATALAN_SAID[code]


def test_every_built_in_alphabet_has_a_title_said_in_every_language(app):
    from adjudicator.hall.languages import LANGUAGES
    from kiosk.i18n import say_alphabet, speak

    for name in ("english", "catalan", "french", "polish", "spanish", "spanish-fise"):
        alphabet = builtin(name)
        assert alphabet.title and alphabet.title != name
        with app.test_request_context():
            for code in LANGUAGES:
                speak(code)
                said = say_alphabet(alphabet)  # English: the title; else its translation
                assert (said == alphabet.title) == (code == "en"), (name, code, said)


def test_a_federations_file_keeps_its_name_or_gives_a_title(tmp_path):
    plain = tmp_path / "swedish.toml"
    plain.write_text(SWEDISH, encoding="utf-8")
    assert load_alphabet_file(plain).shown_name == "swedish-club"
    titled = tmp_path / "swedish-titled.toml"
    titled.write_text(SWEDISH + 'title = "Svenska"\n', encoding="utf-8")
    alphabet = load_alphabet_file(titled)
    assert alphabet.shown_name == "Svenska" and alphabet.to_dict()["title"] == "Svenska"
    assert alphabet == load_alphabet_file(plain)  # a title changes nothing the tiles read


@pytest.mark.parametrize(
    "title", ["x" * 61, "Sven\u0000ska", 7], ids=["too long", "a control character", "a number"]
)
def test_a_title_that_cannot_be_shown_is_refused(title):
    data = {"name": "swedish-club", "tiles": ["A", "B"], "title": title}
    with pytest.raises(AlphabetError, match="title"):
        parse_alphabet(data, "swedish.toml")


def test_a_federations_title_is_shown_as_the_file_gives_it_in_every_language(setup, tmp_path):
    path = tmp_path / "swedish.toml"
    path.write_text(SWEDISH + 'title = "Svenska"\n', encoding="utf-8")
    setup.store.save("SV-T", WordSet.take(["ÖGA", "ÄPPLE"], load_alphabet_file(path)))
    tournaments.create(setup.hall.db, setup.store, "klubb", "SV-T", "single", language="fr")
    said = status(setup, kiosks.add(setup.hall.db, "bord-1", "klubb"))["lexicon"]["alphabet"]
    assert (said["name"], said["shown_title"]) == ("swedish-club", "Svenska")


def test_a_lexicon_recorded_before_titles_gets_its_built_in_alphabets_title(setup):
    manifest = setup.store.root / "CA-T.json"
    recorded = json.loads(manifest.read_text())
    del recorded["alphabet"]["title"]  # as a manifest written before this change
    manifest.write_text(json.dumps(recorded))
    tournaments.update(setup.hall.db, setup.store, "obert", language="ca")
    alphabet = status(setup, setup.ca)["lexicon"]["alphabet"]
    assert (alphabet["title"], alphabet["shown_title"]) == ("Catalan", "català")


def test_a_refusal_on_the_kiosk_names_the_alphabet_in_its_language(setup):
    tournaments.update(setup.hall.db, setup.store, "obert", language="fr")
    client = make_app(setup.hall).test_client()
    headers = {**setup.headers(setup.ca), "Accept-Language": "fr"}
    body = client.post("/api/v1/spell", json={"words": ["kny"]}, headers=headers).get_json()
    shown = body["words"][0]["shown_problem"]
    assert "l'alphabet catalan" in shown and "[NY]" in shown
    assert "catalan" in body["words"][0]["problem"]  # the English error keeps the name


# ---------- numbers ----------


@pytest.mark.parametrize("code", list(WRITTEN))
def test_a_kiosks_refusal_writes_numbers_as_its_language_does(setup, code):
    client = make_app(setup.hall).test_client()
    headers = {**setup.headers(), "Accept-Language": code}
    long_word = "Q" * 1234
    body = client.post("/api/v1/adjudications", json={"words": [long_word]}, headers=headers)
    assert body.status_code == 400
    assert WRITTEN[code] in body.get_json()["shown_error"]
    assert "has 1234 letters" in body.get_json()["error"]  # the English error, as recorded


@pytest.mark.parametrize("code", list(WRITTEN))
def test_the_kiosk_page_sends_how_its_language_writes_numbers(setup, code):
    tournaments.update(setup.hall.db, setup.store, NWL, language=code)
    page = pair_browser(make_app(setup.hall), setup.nwl).get("/").get_data(as_text=True)
    data = json.loads(re.search(r'id="kiosk-text">(.*?)</script>', page, re.S).group(1))
    group = WRITTEN[code][1:-3]  # what stands between 1 and 234
    assert data["number"] == {"group": group, "grouping": [3, 3], "minus": "-"}


@pytest.fixture
def many(tmp_path):
    """The director's pages over a lexicon of 1,234 words, used by a tournament."""
    staffed = build_staffed(tmp_path)
    staffed.store.save("MANY", WordSet.of(MANY_WORDS))
    tournaments.create(staffed.db, staffed.store, "many", "MANY", "double", "Many words")
    return staffed


@pytest.mark.parametrize("code", list(WRITTEN))
@pytest.mark.parametrize("path", ["/director/", "/director/tournaments", "/director/lexicons"])
def test_the_directors_pages_write_numbers_as_the_language_does(many, code, path):
    director = many.director()
    page = director.get(path, headers={"Accept-Language": code}).get_data(as_text=True)
    assert WRITTEN[code] in page, f"{path} in {code} does not write 1,234 as {WRITTEN[code]!r}"
    others = set(WRITTEN.values()) - {WRITTEN[code]}
    assert not [other for other in others if other in page]
