"""The kiosk API in the tournament's language: the status says the language and the rule in it;
an adjudication's answer says the verdict in the language the kiosk page asks for, while the
journal keeps the English consequence (issue 23)."""

from __future__ import annotations

import pytest

from adjudicator.hall import tournaments
from adjudicator.record.journal import journal

from support.hall import NWL, build_setup, make_app

ADJUDICATIONS = "/api/v1/adjudications"
SAID = {  # the verdict word and gloss of an UNACCEPTABLE and an ACCEPTABLE play, by language
    "en": ("UNACCEPTABLE", "the play comes off the board", "ACCEPTABLE", "the play stands"),
    "fr": ("NON VALABLE", "le coup est retiré du plateau", "VALABLE", "le coup est maintenu"),
    "pl": ("NIEDOPUSZCZALNE", "ruch zostaje cofnięty z planszy", "DOPUSZCZALNE", None),
    "es": ("NO VÁLIDA", "la jugada se retira del tablero", "VÁLIDA", None),
    "ca": ("NO VÀLIDA", "la jugada es retira del tauler", "VÀLIDA", None),
}


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    return build_setup(tmp_path)


@pytest.mark.parametrize("code", list(SAID))
def test_the_verdict_is_said_in_the_language_asked(setup, code):
    client = make_app(setup.hall).test_client()
    headers = {**setup.headers(), "Accept-Language": code}
    refused = client.post(ADJUDICATIONS, json={"words": ["QI", "QX"]}, headers=headers)
    assert refused.status_code == 201
    body = refused.get_json()
    word, gloss, ok_word, ok_gloss = SAID[code]
    assert (body["shown"]["word"], body["shown"]["gloss"]) == (word, gloss)
    assert body["consequence"] == "The play comes off the board and scores zero."  # as journaled
    assert journal.get(setup.hall.db, body["id"]).consequence == body["consequence"]
    stands = client.post(ADJUDICATIONS, json={"words": ["QI", "ZA"]}, headers=headers).get_json()
    assert stands["shown"]["word"] == ok_word
    if ok_gloss:
        assert stands["shown"]["gloss"] == ok_gloss
    assert "10" in stands["shown"]["consequence"]  # 5-per-word, 2 words: the player adds 10


def test_polish_plurals_take_the_right_form(setup):
    client = make_app(setup.hall).test_client()
    headers = {**setup.headers(), "Accept-Language": "pl"}
    shown = [
        client.post(ADJUDICATIONS, json={"words": words}, headers=headers).get_json()["shown"]
        for words in (["QI"], ["QI", "ZA"], ["QI", "ZA", "AA", "JO", "XI"])
    ]
    assert shown[0]["consequence"].startswith("1 sprawdzane słowo, po 5: gracz dolicza 5;")
    assert shown[1]["consequence"].startswith("2 sprawdzane słowa, po 5: gracz dolicza 10;")
    assert shown[2]["consequence"].startswith("5 sprawdzanych słów, po 5: gracz dolicza 25;")


def test_without_a_language_the_api_speaks_english(setup):
    client = make_app(setup.hall).test_client()
    body = client.post(ADJUDICATIONS, json={"words": ["QI"]}, headers=setup.headers()).get_json()
    assert body["shown"] == {
        "word": "ACCEPTABLE",
        "gloss": "the play stands",
        "consequence": (
            "1 word challenged, 5 each: the player adds 5; the challenger keeps the turn."
        ),
    }


def test_the_status_speaks_the_tournaments_language(setup):
    client = make_app(setup.hall).test_client()
    tournaments.update(setup.hall.db, setup.store, NWL, language="fr")
    status = client.get("/api/v1/kiosk", headers=setup.headers()).get_json()
    assert status["tournament"]["language"] == "fr"
    assert status["rule"]["shown_title"] == "5 points par mot contesté"
    assert status["rule"]["title"] == "5 points per word challenged"


def test_an_input_error_is_said_in_the_language_asked_and_gives_no_verdict(setup):
    client = make_app(setup.hall).test_client()
    headers = {**setup.headers(), "Accept-Language": "fr"}
    response = client.post(ADJUDICATIONS, json={"words": ["QI", "Q"]}, headers=headers)
    assert response.status_code == 400
    body = response.get_json()
    assert "verdict" not in body and "shown" not in body
    assert body["error"] == "Word 2 ('Q') has 1 letter: a word has at least 2 letters."
    assert body["shown_error"] == "Le mot 2 ('Q') a 1 jeton : un mot a au moins 2 jetons."
    many = client.post(ADJUDICATIONS, json={"words": ["QI"] * 9}, headers=headers).get_json()
    assert many["shown_error"].startswith("Trop de mots : 9 donnés")
    polish = {**setup.headers(), "Accept-Language": "pl"}
    five = client.post(ADJUDICATIONS, json={"words": ["Q1"]}, headers=polish).get_json()
    assert five["shown_error"].startswith("Słowo 1 ('Q1') zawiera znak inny niż litery A–Z")


@pytest.mark.parametrize(
    ("rule", "code", "title"),
    [
        ("ladder-5-10-20", "fr", "Échelle : 5, 10, 20 points pour les contestations"),
        ("ladder-5-10-20", "pl", "Drabinka: 5, 10, 20 pkt"),
        ("30-seconds", "fr", "Pénalité de temps : la pendule du joueur qui conteste perd 30 s"),
        ("2-seconds", "pl", "Kara czasowa: zegar sprawdzającego traci 2 sekundy"),
        ("25-seconds", "pl", "Kara czasowa: zegar sprawdzającego traci 25 sekund"),
        ("1-seconds", "es", "Penalización de tiempo: el reloj de quien impugna pierde 1 segundo "),
    ],
)
def test_ladder_and_time_rules_are_titled_in_the_tournaments_language(setup, rule, code, title):
    client = make_app(setup.hall).test_client()
    tournaments.update(setup.hall.db, setup.store, NWL, language=code, rule=rule)
    status = client.get("/api/v1/kiosk", headers=setup.headers()).get_json()
    assert status["rule"]["shown_title"].startswith(title.replace(" 30 s", " 30 secondes"))
    assert status["rule"]["title"].startswith(("Ladder: ", "Time penalty: "))  # English kept


def test_the_journals_alarm_is_said_in_the_tournaments_language(setup):
    from adjudicator.record.database import journal_health

    client = make_app(setup.hall).test_client()
    tournaments.update(setup.hall.db, setup.store, NWL, language="fr")
    journal_health.of(setup.hall.db).commit_failed("database or disk is full.")
    status = client.get("/api/v1/kiosk", headers=setup.headers()).get_json()
    assert status["journal"]["ok"] is False
    assert status["journal"]["message"] == journal_health.CANNOT_WRITE_MESSAGE  # English kept
    assert status["journal"]["shown_message"] == (
        "Le journal ne peut pas être écrit pour l'instant : aucun verdict ne peut être "
        "enregistré. Appelez le directeur."
    )


def test_an_unusable_lexicon_is_said_in_the_language_asked(setup):
    client = make_app(setup.hall).test_client()
    tournaments.update(setup.hall.db, setup.store, NWL, language="pl")
    with setup.hall.db.transaction() as cur:  # the director's edition is not the one installed
        cur.execute("UPDATE tournaments SET lexicon_fingerprint = ?", ("0" * 64,))
    headers = {**setup.headers(), "Accept-Language": "pl"}
    answer = client.post(ADJUDICATIONS, json={"words": ["QI"]}, headers=headers)
    assert answer.status_code == 503
    body = answer.get_json()
    assert "call the director" in body["error"]  # the English error is kept
    assert body["shown_error"].startswith("Słownik ")
    assert body["shown_error"].endswith(": wezwij dyrektora.")


def test_the_rate_limit_is_said_in_the_language_asked(tmp_path, monkeypatch):
    from adjudicator.hall.people.ratelimit import RateLimit

    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    limited = build_setup(tmp_path, rate_limit=RateLimit(2, 60))
    client = make_app(limited.hall).test_client()
    headers = {**limited.headers(), "Accept-Language": "pl"}
    for _ in range(2):
        assert client.post(ADJUDICATIONS, json={"words": ["QI"]}, headers=headers).status_code
    refused = client.post(ADJUDICATIONS, json={"words": ["QI"]}, headers=headers)
    assert refused.status_code == 429
    body = refused.get_json()
    assert "please wait a moment" in body["error"]  # the English error is kept
    assert body["shown_error"] == (  # a limit given for every kiosk, as the director sets one
        "To stanowisko rozstrzygnęło 2 sprawdzenia w krótkim czasie, tyle, na ile pozwala limit "
        "ustalony przez dyrektora: zaczekaj chwilę albo wezwij dyrektora. Dyrektor: ustala go "
        "ADJUDICATOR_KIOSK_RATE_LIMIT."
    )


def test_each_accept_language_is_read_for_itself_however_often_it_comes(setup):
    """The header's reading is kept per process (a kiosk page sends the same one with every
    challenge): kiosks asking in turn, each in its own words (weights included), are
    each answered in theirs, and a language of no catalogue falls back to English."""
    client = make_app(setup.hall).test_client()
    asked = {
        "pl": "NIEDOPUSZCZALNE",
        "de;q=0.9, fr;q=0.8, en;q=0.1": "NON VALABLE",
        "fr;q=0.2, pl": "NIEDOPUSZCZALNE",
        "de, nl": "UNACCEPTABLE",
        "": "UNACCEPTABLE",
    }
    for _ in range(2):
        for header, word in asked.items():
            headers = {**setup.headers(), "Accept-Language": header}
            body = client.post(ADJUDICATIONS, json={"words": ["QX"]}, headers=headers).get_json()
            assert body["shown"]["word"] == word, header


def test_a_nul_in_the_query_string_of_a_json_challenge_is_refused_unjudged(setup):
    client = make_app(setup.hall).test_client()
    refused = client.post(
        ADJUDICATIONS + "?table=%00", json={"words": ["QI", "ZA"]}, headers=setup.headers()
    )
    assert refused.status_code == 400 and "NUL character" in refused.get_json()["error"]
    assert journal.select(setup.hall.db, "1 = 1") == []  # nothing judged, nothing recorded
