"""A challenge names the alphabet its words were read in (the kiosk page sends its status's):
the server judges nothing read in another than the tournament's lexicon has now (409, said in
the kiosk's language, nothing recorded), where it once read them in its own tiles and recorded
other words than the kiosk showed."""

from __future__ import annotations

import pytest

from adjudicator.record.journal import journal

from support.hall import make_app

ADJUDICATIONS = "/api/v1/adjudications"


def test_words_read_in_the_tournaments_alphabet_are_judged(client, setup):
    response = client.post(
        ADJUDICATIONS, json={"words": ["QI"], "alphabet": "english"}, headers=setup.headers()
    )
    assert response.status_code == 201 and response.get_json()["verdict"] == "ACCEPTABLE"


def test_words_read_in_another_alphabet_are_refused_and_nothing_is_recorded(setup):
    client = make_app(setup.hall).test_client()
    headers = {**setup.headers(), "Accept-Language": "es"}
    response = client.post(
        ADJUDICATIONS, json={"words": ["CHICO"], "alphabet": "spanish"}, headers=headers
    )
    body = response.get_json()
    assert response.status_code == 409 and body["ok"] is False
    assert body["error"] == (
        "Spring Open (NWL division) now uses the English alphabet: the words were read in "
        "another. Nothing was judged: read them again and press JUDGE."
    )
    assert body["shown_error"] == (
        "Spring Open (NWL division) usa ahora el alfabeto inglés: las palabras se leyeron en "
        "otro. No se ha juzgado nada: vuelva a leerlas y pulse JUZGAR."
    )
    assert "verdict" not in body and "ACCEPTABLE" not in response.get_data(as_text=True)
    assert list(journal.entries(setup.hall.db)) == []


def test_the_alphabet_name_sent_is_never_echoed(client, setup):
    sent = "<b>nonsense</b>"
    response = client.post(
        ADJUDICATIONS, json={"words": ["QI"], "alphabet": sent}, headers=setup.headers()
    )
    assert response.status_code == 409 and sent not in response.get_data(as_text=True)
    assert list(journal.entries(setup.hall.db)) == []


@pytest.mark.parametrize("alphabet", [5, ["english"], "x" * 41])
def test_an_alphabet_that_is_no_name_is_refused_saying_what_to_send(client, setup, alphabet):
    response = client.post(
        ADJUDICATIONS, json={"words": ["QI"], "alphabet": alphabet}, headers=setup.headers()
    )
    assert response.status_code == 400
    assert response.get_json()["error"] == (
        "alphabet must be the name of the alphabet the words were read in."
    )
    assert list(journal.entries(setup.hall.db)) == []
