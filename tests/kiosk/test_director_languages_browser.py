"""The director's pages in the browser's language, in real Chromium: a director whose browser
asks for French (or Polish) signs in and reads every director page in it, each page answering
without an error, with its element ids unchanged (issue 23)."""

from __future__ import annotations

import pytest

from support.browser import LAPTOP, fill_sign_in, open_page, staffed_home
from support.servers import PreparedHome, Server, cli

pytestmark = pytest.mark.browser

DIRECTOR_PASSWORD = "director-langs-1"
JUDGE_PASSWORD = "judge-langs-1234"

# Each page's path, the id of an element it always has, and its heading in each language.
PAGES = [
    ("/director/", "glance", {"fr": "Vue d'ensemble", "pl": "Przegląd"}),
    ("/director/tournaments", "create-tournament", {"fr": "Tournois", "pl": "Turnieje"}),
    ("/director/kiosks", "enrol-form", {"fr": "Bornes", "pl": "Stanowiska"}),
    ("/director/journal", "journal-filters", {"fr": "Le journal", "pl": "Dziennik"}),
    ("/director/lexicons", "import-form", {"fr": "Lexiques", "pl": "Słowniki"}),
    (
        "/director/flags",
        "rule-any",
        {
            "fr": "Seconds avis en attente de votre décision",
            "pl": "Drugie opinie czekające na twoją decyzję",
        },
    ),
    (
        "/director/decisions",
        "grant-form",
        {"fr": "Les décisions du directeur", "pl": "Decyzje sędziego głównego"},
    ),
]
# What a part of each page says beyond its heading.
SAID = {
    "fr": {
        "/director/": ("#glance-kiosks", "en ligne sur"),
        "/director/tournaments": ("#rule-help", "comptent les contestations infructueuses"),
        "/director/kiosks": ("#enrol", "Inscrire"),
        "/director/journal": ("#export-csv", "Exporter en CSV"),
        "/director/lexicons": ("#verify", "Vérifier tous les lexiques"),
        "/director/flags": ("#rule-any", "Enregistrer la décision finale"),
        "/director/decisions": ("#grant-submit", "Accorder la contestation gratuite"),
    },
    "pl": {
        "/director/": ("#glance-kiosks", "w sieci"),
        "/director/tournaments": ("#rule-help", "liczą nieudane sprawdzenia"),
        "/director/kiosks": ("#enrol", "Zarejestruj"),
        "/director/journal": ("#export-csv", "Eksportuj CSV"),
        "/director/lexicons": ("#verify", "Sprawdź każdy słownik"),
        "/director/flags": ("#rule-any", "Zapisz ostateczną decyzję"),
        "/director/decisions": ("#grant-submit", "Przyznaj sprawdzenie bez kary"),
    },
}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> PreparedHome:
    home = staffed_home(
        tmp_path_factory.mktemp("director-languages"), DIRECTOR_PASSWORD, JUDGE_PASSWORD
    )
    cli(home.path, "tournament", "create", "ladder-event", "--lexicon", "OTHER", "--rule",
        "ladder-5-10-20", "--language", "fr")  # fmt: skip
    return home


@pytest.mark.parametrize("language", ["fr", "pl"])
def test_every_director_page_speaks_the_browsers_language(browser, server: Server, language):
    assert server.adjudicate(["QI", "ZA"])[0] == 201
    page = open_page(
        browser, LAPTOP, timeout=10_000, extra_http_headers={"Accept-Language": language}
    )
    page.goto(server.url + "/director/login")
    assert page.locator("html").get_attribute("lang") == language
    fill_sign_in(page, "director", DIRECTOR_PASSWORD)
    page.wait_for_url(server.url + "/director/")
    failures = []
    for path, element, headings in PAGES:
        response = page.goto(server.url + path)
        if response is None or response.status != 200:
            failures.append(f"{path}: HTTP {response.status if response else 'none'}")
            continue
        heading = page.locator("h1").first.inner_text().strip()
        if heading != headings[language]:
            failures.append(f"{path}: heading {heading!r}, wanted {headings[language]!r}")
        if not page.locator(f"#{element}").count():
            failures.append(f"{path}: no #{element}")
        selector, text = SAID[language][path]
        said = page.locator(selector).first.inner_text()
        if text not in said:
            failures.append(f"{path}: {selector} says {said!r}, wanted {text!r} in it")
        if page.locator("html").get_attribute("lang") != language:
            failures.append(f"{path}: <html lang> is not {language}")
    page.context.close()
    assert not failures, "\n".join(failures)
