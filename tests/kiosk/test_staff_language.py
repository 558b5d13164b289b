"""The staff pages follow the browser's Accept-Language where a catalogue exists, with a switch
on the page that wins over it; the pairing pages speak the pairing link's language; a kiosk's
API answers never follow the switch's cookie (issue 23)."""

from __future__ import annotations

import re

import pytest

from adjudicator.hall import kiosks, tournaments

from support.director import post_form
from support.hall import CSW, NWL


def _lang(page: str) -> str:
    return re.search(r'<html lang="([^"]+)">', page).group(1)


@pytest.mark.parametrize(
    ("accept", "lang", "password"),
    [
        ("fr-FR,fr;q=0.9,en;q=0.5", "fr", "Mot de passe"),
        ("pl", "pl", "Hasło"),
        ("es-ES", "es", "Contraseña"),
        ("ca,es;q=0.8", "ca", "Contrasenya"),
        ("de-DE,de;q=0.9", "en", "Password"),  # no German catalogue: English
        ("", "en", "Password"),
    ],
)
def test_the_sign_in_page_follows_accept_language(staffed, accept, lang, password):
    headers = {"Accept-Language": accept} if accept else {}
    page = staffed.client().get("/judge/login", headers=headers).get_data(as_text=True)
    assert _lang(page) == lang
    assert f'<label for="password">{password}</label>' in page
    assert 'id="language-switch"' in page


def test_the_switch_wins_over_accept_language_and_returns_to_the_page(staffed):
    client = staffed.judge()
    french = {"Accept-Language": "fr"}
    assert "Second avis" in client.get("/judge/", headers=french).get_data(as_text=True)
    switched = client.get("/language/pl?next=/judge/", headers=french)
    assert switched.status_code == 302 and switched.headers["Location"] == "/judge/"
    page = client.get("/judge/", headers=french).get_data(as_text=True)
    assert _lang(page) == "pl" and "Numer rozstrzygnięcia" in page
    assert 'href="/language/en?next=/judge/"' in page  # the switch offers the others


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/\\evil", "x"])
def test_the_switch_never_sends_a_browser_to_another_site(staffed, target):
    response = staffed.client().get("/language/fr", query_string={"next": target})
    assert response.status_code == 302 and response.headers["Location"] == "/"


def test_an_unknown_language_sets_nothing(staffed):
    client = staffed.client()
    response = client.get("/language/de?next=/judge/login")
    assert response.status_code == 302 and "Set-Cookie" not in response.headers
    assert _lang(client.get("/judge/login").get_data(as_text=True)) == "en"


def test_a_second_opinion_is_given_in_the_judges_language(staffed):
    from adjudicator.hall import tournaments

    tournaments.update(
        staffed.db, staffed.store, NWL, rulebook="wespa", off_rulebook="a tiny test list"
    )
    first = staffed.challenge(["QI", "ZA"])
    judge = staffed.judge()
    judge.get("/language/fr?next=/judge/")
    case = judge.get(f"/judge/case?id={first.id}").get_data(as_text=True)
    assert "Les mots du bulletin de contestation" in case
    answer = post_form(
        judge, "/judge/second-opinion", {"id": first.id, "words": "QI ZA"}, page="/judge/"
    )
    page = answer.get_data(as_text=True)
    assert answer.status_code == 201
    assert '<h1 class="verdict-word" id="verdict">VALABLE</h1>' in page
    assert "Le coup est maintenu." in page and "WESPA 3.10.11(c)" in page  # rules as written


def test_the_pairing_page_speaks_the_links_language(staffed):
    link = kiosks.pairing_link("http://hall", "ABC", "pl")
    assert link == "http://hall/pair?lang=pl#ABC"
    assert kiosks.pairing_link("http://hall", "ABC") == "http://hall/pair#ABC"
    client = staffed.client()
    page = client.get("/pair?lang=pl").get_data(as_text=True)
    assert _lang(page) == "pl" and "Sparuj ten ekran jako stanowisko" in page
    assert '<input type="hidden" name="lang" value="pl">' in page
    refused = post_form(client, "/pair", {"code": "WRONG", "lang": "pl"}, page="/pair?lang=pl")
    assert refused.status_code == 400
    assert "Ten kod parowania jest nieprawidłowy" in refused.get_data(as_text=True)
    unpaired = client.get("/", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert "Esta pantalla aún no es un terminal" in unpaired


def test_a_kiosk_answer_ignores_the_switch(staffed):
    tournaments.update(staffed.db, staffed.store, NWL, language="ca")
    browser = staffed.kiosk_browser()
    browser.set_cookie("language", "pl")
    answer = browser.post("/api/v1/adjudications", json={"words": ["QI"]})
    assert answer.status_code == 201 and answer.get_json()["shown"]["word"] == "ACCEPTABLE"
    status = browser.get("/api/v1/kiosk").get_json()
    assert status["tournament"]["language"] == "ca"
    assert status["rule"]["shown_title"] == "5 punts per paraula impugnada"
    page = browser.get("/", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert _lang(page) == "ca"  # the kiosk page speaks its tournament's language


def test_the_director_creates_a_tournament_in_a_language_and_pairs_its_kiosks_in_it(staffed):
    director = staffed.director()
    created = post_form(
        director,
        "/director/tournaments",
        {"slug": "open-fr", "lexicon": "TINY-NWL", "rule": "double", "title": "Open",
         "language": "fr"},
        page="/director/tournaments",
    )  # fmt: skip
    assert created.status_code == 302
    assert tournaments.get(staffed.db, "open-fr").language == "fr"
    page = director.get("/director/tournaments").get_data(as_text=True)
    row = page.split('id="tournament-open-fr"')[1].split("</tr>")[0]
    assert '<option value="fr" selected>Français (fr)</option>' in row  # the language it speaks
    enrolled = post_form(
        director,
        "/director/kiosks",
        {"name": "table-fr", "tournament": "open-fr"},
        page="/director/kiosks",
    )
    assert "/pair?lang=fr#" in enrolled.get_data(as_text=True)
    refused = post_form(
        director,
        "/director/tournaments",
        {"slug": "open-de", "lexicon": "TINY-NWL", "rule": "double", "language": "de"},
        page="/director/tournaments",
        follow_redirects=True,
    )
    assert "No kiosk translation for language &#39;de&#39;" in refused.get_data(as_text=True)


def test_the_pairing_sheet_speaks_the_tournaments_language(staffed):
    tournaments.update(staffed.db, staffed.store, NWL, language="pl")
    director = staffed.director()
    french = {"Accept-Language": "fr"}  # the director reads French; the tables read Polish
    sheet = post_form(
        director,
        "/director/kiosks/sheet",
        {"tournament": NWL, "tables": "1-2"},
        page="/director/kiosks",
        headers=french,
    ).get_data(as_text=True)
    assert _lang(sheet) == "pl"
    assert "<h2>Stolik 2</h2>" in sheet and ", 2 stoliki</h1>" in sheet
    assert "naciśnij <em>Sparuj ten ekran</em>" in sheet and "Ten kod działa raz" in sheet
    assert "This code works once" not in sheet
    page = director.get("/director/kiosks", headers=french).get_data(as_text=True)
    assert _lang(page) == "fr" and "<h1>Bornes</h1>" in page


@pytest.mark.parametrize(
    ("accept", "said"),
    [
        ("fr", "La borne %s juge désormais pour %s. Son code d&#39;appairage"),
        ("pl", "Stanowisko %s rozstrzyga teraz dla turnieju %s. Jego kod parowania"),
        ("es", "El terminal %s juzga ahora para %s. Su código de vinculación"),
        ("ca", "El terminal %s jutja ara per a %s. El seu codi de vinculació"),
    ],
)
def test_a_directors_flash_message_is_said_in_the_pages_language(staffed, accept, said):
    director = staffed.director()
    name = staffed.setup.nwl.kiosk.name
    moved = post_form(
        director,
        f"/director/kiosks/{name}/move",
        {"tournament": CSW},
        page="/director/kiosks",
        headers={"Accept-Language": accept},
        follow_redirects=True,
    )
    assert moved.status_code == 200
    assert said % (name, CSW) in moved.get_data(as_text=True)


def test_the_overview_and_journal_say_counts_with_the_languages_plurals(staffed):
    for _ in range(2):
        staffed.challenge(["QI"])
    polish = {"Accept-Language": "pl"}
    director = staffed.director()
    overview = director.get("/director/", headers=polish).get_data(as_text=True)
    assert "<h1>Przegląd</h1>" in overview and "Odświeża się sama co" in overview
    assert re.search(r"Dziennik: \d+ wiersz(e|y|y)?", overview)
    journal = director.get("/director/journal", headers=polish).get_data(as_text=True)
    assert "<th>Rozstrzygnięcie</th>" in journal and "dziennik ma łącznie" in journal
    french = director.get("/director/journal", headers={"Accept-Language": "fr"})
    assert "<h1>Le journal</h1>" in french.get_data(as_text=True)


def test_an_error_page_speaks_the_browsers_language(staffed):
    missing = staffed.director().get("/director/no-such-page", headers={"Accept-Language": "fr"})
    page = missing.get_data(as_text=True)
    assert missing.status_code == 404
    assert "<h1>Introuvable.</h1>" in page and "Retour au début" in page


def test_an_expired_pairing_form_is_refused_in_the_links_language(staffed):
    client = staffed.client()
    refused = client.post("/pair", data={"code": "ABC", "lang": "pl", "csrf_token": "stale"})
    page = refused.get_data(as_text=True)
    assert refused.status_code == 400
    assert "Nie sparowano: ten formularz parowania wygasł." in page
    assert "Otwórz formularz parowania" in page and _lang(page) == "pl"
