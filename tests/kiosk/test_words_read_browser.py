"""The words a player and a director read (issue 28, item 5), in real Chromium against a real
`adjudicator serve`: the kiosk names its alphabet in its own language and writes numbers as
the language does (279 496 słów), its refusal shows the very tile typed ([NY] for Catalan XYZ);
the director's Kiosks page lists kiosks by number and, on a phone, puts its forms before a long
list; the Tournaments page sets the language a tournament's kiosks speak."""

from __future__ import annotations

import pytest

from support.browser import Home, sign_in
from support.paths import SHARED_LEXICONS, present

pytestmark = pytest.mark.browser

PASSWORD = "words-read-director-1"
SERVER_SETTINGS = {"verdict_seconds": "300"}
CATALAN = ["col·legi", "plaça", "quatre", "nyap", "paella"]
PHONE = {"width": 390, "height": 844}
TABLES = 40


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("words-read"))
    home.cli("director", "set-password", "--password-stdin", stdin=PASSWORD + "\n")
    home.import_words("CA-T", CATALAN, "catalan")
    for slug, language in (("obert", "ca"), ("otwarty", "pl"), ("open-ca", "en")):
        home.cli("tournament", "create", slug, "--lexicon", "CA-T", "--rule", "single",
                 "--language", language)  # fmt: skip
    home.cli("tournament", "create", "switch", "--lexicon", "TINY", "--rule", "double")
    csw19 = SHARED_LEXICONS / "CSW19.txt"  # 279,496 words (the tests that need it say if not)
    if csw19.is_file():
        home.cli("lexicon", "import", str(csw19), "--name", "CSW19")
        home.cli("tournament", "create", "polska", "--lexicon", "CSW19", "--rule", "5-per-word",
                 "--language", "pl")  # fmt: skip
    # 40 tables' kiosks, "hall table 1" to "hall table 40", enrolled by the sheet
    home.cli("tournament", "create", "hall", "--lexicon", "TINY", "--rule", "double")
    sheet = home.path / "sheet.html"
    home.cli("kiosk", "sheet", "--tournament", "hall", "--tables", f"1-{TABLES}",
             "--output", str(sheet))  # fmt: skip
    return home


def director_page(browser, server, path: str, viewport: dict | None = None, **options):
    page = sign_in(browser, server.url, "/director/login", "director", PASSWORD,
                   **({"viewport": viewport} if viewport else {}), **options)  # fmt: skip
    page.wait_for_url(server.url + "/director/")
    page.goto(server.url + path)
    return page


# ---------- the kiosk ----------


def test_a_polish_kiosk_counts_the_words_as_polish_writes_numbers(paired):
    present(SHARED_LEXICONS / "CSW19.txt")
    page = paired("polska")
    assert page.locator("#lexicon-words").text_content() == "279\xa0496"  # not 279,496
    assert page.locator("#lexicon-words-unit").text_content() == "słów"


@pytest.mark.parametrize(
    ("tournament", "said"),
    [
        ("obert", "fitxes de l'alfabet català"),
        ("otwarty", "płytki: alfabet kataloński"),
        ("open-ca", "Catalan tiles"),
    ],
)
def test_the_kiosk_names_its_alphabet_in_its_language(paired, tournament, said):
    page = paired(tournament)
    assert page.locator("#lexicon-alphabet").is_visible()
    assert " ".join(page.locator("#lexicon-alphabet").inner_text().split()) == "· " + said


def test_the_refusal_shows_an_example_of_the_very_tile_typed(paired):
    page = paired("obert")
    page.fill("#word-input", "xyz ")
    page.wait_for_selector("#chips .chip-problem")
    hint = page.locator("#word-hint").inner_text()
    assert "NY" in hint and "[NY]" in hint and "[L·L]" not in hint
    assert hint.startswith("La paraula 1 ('xyz') té «Y» a la posició 2")


# ---------- the director's Kiosks page ----------


def kiosk_rows(page) -> list[tuple[str, float]]:
    """Each kiosk's name on the page with where its row begins (y), in page order."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#kiosks tbody tr[id^="kiosk-"]')].map(row =>
            [row.id.slice('kiosk-'.length), row.getBoundingClientRect().top + window.scrollY])"""
    )


def top(page, selector: str) -> float:
    return page.evaluate(
        f"() => document.querySelector('{selector}').getBoundingClientRect().top + window.scrollY"
    )


def test_on_a_phone_the_kiosks_forms_come_before_a_long_list(browser, server):
    page = director_page(browser, server, "/director/kiosks", PHONE)
    rows = kiosk_rows(page)
    assert len(rows) > TABLES  # the sheet's, and those the tests paired
    assert top(page, "#sheet-form") < top(page, "#enrol-form") < top(page, "#kiosks") <= rows[0][1]
    assert top(page, "#enrol-form") < PHONE["height"] * 2  # within a thumb's scroll, not 40 cards
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    page.fill("#kiosk-name", "hall table 41")  # the form works where it now is
    page.click("#enrol")
    page.wait_for_selector("#pairing-code")
    page.context.close()


def test_kiosks_are_listed_by_their_numbers(browser, server):
    page = director_page(browser, server, "/director/kiosks")
    names = [name for name, _ in kiosk_rows(page)]
    tables = [name for name in names if name.startswith("hall table ")]
    assert tables[:12] == [f"hall table {n}" for n in range(1, 13)]  # 2 before 10
    numbers = [int(name.rsplit(" ", 1)[1]) for name in tables]
    assert numbers == sorted(numbers)
    ys = [y for _, y in kiosk_rows(page)]
    assert ys == sorted(ys)  # and shown in that order
    page.context.close()


# ---------- the director's Tournaments page ----------


def test_the_tournaments_page_sets_the_language_its_kiosks_speak(browser, server, paired):
    kiosk = paired("switch")
    assert kiosk.locator("html").get_attribute("lang") == "en"
    page = director_page(browser, server, "/director/tournaments")
    row = page.locator("#tournament-switch")
    row.locator(".language-form select[name=language]").select_option("pl")
    row.locator(".language-form button").click()
    page.wait_for_selector(".flash-ok")
    assert "switch: its kiosks now speak Polski (pl)" in page.locator(".flash-ok").inner_text()
    selected = page.locator("#tournament-switch .language-form select[name=language]")
    assert selected.input_value() == "pl"
    # the idle kiosk takes the language at its next status poll (every 5 s)
    kiosk.locator("html[lang=pl] #judge-button").wait_for(timeout=30_000)
    assert kiosk.locator("#judge-button").inner_text().strip() == "ROZSTRZYGNIJ"
    # and a new tournament is made in its language from the same page
    page.fill("#slug", "otono")
    page.select_option("#new-lexicon", "TINY")
    page.fill("#new-rule", "double")
    page.select_option("#new-language", "es")
    page.click("#create-tournament button[type=submit]")
    page.wait_for_selector("#tournament-otono")
    assert page.locator("#tournament-otono select[name=language]").input_value() == "es"
    page.context.close()


@pytest.mark.parametrize("path", ["/director/", "/director/tournaments", "/director/lexicons"])
def test_a_director_reading_polish_sees_polish_numbers(browser, server, path):
    present(SHARED_LEXICONS / "CSW19.txt")
    page = director_page(browser, server, path, None,
                         extra_http_headers={"Accept-Language": "pl"})  # fmt: skip
    assert page.locator("html").get_attribute("lang") == "pl"
    assert "279\xa0496" in page.locator("main").text_content()
    assert "279,496" not in page.content()
    page.context.close()
