"""Every kind of alphabet judges through the kiosk page, not only through the API (issue 44,
item 1): English, each built-in alphabet (Polish, Spanish, Catalan, French), a federation's
alphabet file, and word graphs read through a `[word_graph]` table (the built-in spanish-fise
for a FISE graph with CH, LL, RR and Ñ written 1-4, and a club's own file for a Catalan graph),
imported with the CLI as a director does, in tournaments of several languages.

For each, in real Chromium against a real `adjudicator serve`: the words are typed on the
keyboard (digraphs as plain letters), the page reads them as tiles, JUDGE sends the adjudication
from the page, and the verdict shown is the one the journal holds; then a challenge the list
does not hold comes off. The FISE kiosk also judges in WebKit (an iPad's engine).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from support.browser import Home, open_page, pair_page
from support.webkit import pair_in_webkit, text, wait_for
from support.words import encode_dwg

pytestmark = [
    pytest.mark.browser,
    # Selenium's own WebKitGTK driver class still sets this deprecated option
    pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning"),
]

# Zyzzyva's Spanish graphs write CH, LL, RR and Ñ as 1, 2, 3 and 4.
FISE_GRAPH = ["1ICO", "PE3O", "2AMA", "A4O", "CA1O", "ZORRO", "CA2E"]
# A Catalan club's graph writing L·L and NY as 1 and 2, QU as Q.
CATALAN_CLUB = """name = "catalan-club"
title = "Català (club)"
language = "ca"
tiles = ["A", "B", "C", "Ç", "D", "E", "F", "G", "H", "I", "J", "L", "L·L", "M", "N", "NY",
         "O", "P", "QU", "R", "S", "T", "U", "V", "X", "Z"]
fold = { "L.L" = "L·L", "À" = "A", "É" = "E", "È" = "E", "Ò" = "O", "Ó" = "O" }
[word_graph]
"1" = "L·L"
"2" = "NY"
Q = "QU"
"Ç" = "Ç"
"""
CATALAN_GRAPH = ["CA2", "CO1EGI", "QATRE", "PLAÇA", "PAELLA"]
SWEDISH_CLUB = """name = "swedish-club"
tiles = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "R",
         "S", "T", "U", "V", "X", "Y", "Z", "Å", "Ä", "Ö"]
fold = { "É" = "E" }
"""


@dataclass(frozen=True)
class Kind:
    """An alphabet kind: its tournament, what is typed and how the journal records it."""

    slug: str
    good: str  # typed, all in the list
    good_words: list[str]  # as the adjudication and the journal write them
    bad: str  # typed, one word not in the list
    verdict: str  # the tournament's language's word for ACCEPTABLE


KINDS = {
    "english": Kind("en", "qi za", ["QI", "ZA"], "qi zzz", "ACCEPTABLE"),
    "polish": Kind("pl", "żółw gęś", ["ŻÓŁW", "GĘŚ"], "zolw gęś", "DOPUSZCZALNE"),
    "spanish": Kind("es", "chico perro año", ["[CH]ICO", "PE[RR]O", "AÑO"], "chico ano", "VÁLIDA"),
    "catalan": Kind("ca", "col·legi nyap", ["CO[L·L]EGI", "[NY]AP"], "colegi", "ACCEPTABLE"),
    "french": Kind("fr", "élève œuvre", ["ELEVE", "OEUVRE"], "eleve zzz", "VALABLE"),
    "alphabet file": Kind("sv", "öga äpple idé", ["ÖGA", "ÄPPLE", "IDE"], "oga", "ACCEPTABLE"),
    "word graph (spanish-fise)": Kind(
        "fise",
        "chico perro llama año",
        ["[CH]ICO", "PE[RR]O", "[LL]AMA", "AÑO"],
        "chico llamas",
        "VÁLIDA",
    ),
    "word graph (a club's file)": Kind(
        "ca-club",
        "cany col.legi quatre",
        ["CA[NY]", "CO[L·L]EGI", "[QU]ATRE"],
        "cany canya",
        "ACCEPTABLE",
    ),
}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("every-alphabet-home"))
    home.import_words("PL-T", ["żółw", "gęś", "kot"], "polish")
    home.import_words("ES-T", ["chico", "perro", "año"], "spanish")
    home.import_words("CA-T", ["col·legi", "nyap", "plaça"], "catalan")
    home.import_words("FR-T", ["élève", "œuvre", "chat"], "french")
    swedish = home.path / "swedish-club.toml"
    swedish.write_text(SWEDISH_CLUB, encoding="utf-8")
    home.import_words("SV-T", ["öga", "äpple", "idé"], str(swedish))
    fise = home.path / "FISE2009.dwg"
    fise.write_bytes(encode_dwg(FISE_GRAPH))
    home.cli("lexicon", "import", str(fise), "--name", "FISE2009", "--alphabet", "spanish-fise")
    club = home.path / "catalan-club.toml"
    club.write_text(CATALAN_CLUB, encoding="utf-8")
    graph = home.path / "club.dwg"
    graph.write_bytes(encode_dwg(CATALAN_GRAPH))
    home.cli("lexicon", "import", str(graph), "--name", "CA-CLUB", "--alphabet", str(club))
    for file in (swedish, club, fise, graph):
        file.unlink()  # the manifests keep the definitions
    for slug, lexicon, language in (
        ("en", "TINY", "en"),
        ("pl", "PL-T", "pl"),
        ("es", "ES-T", "es"),
        ("ca", "CA-T", "en"),
        ("fr", "FR-T", "fr"),
        ("sv", "SV-T", "en"),
        ("fise", "FISE2009", "es"),
        ("ca-club", "CA-CLUB", "en"),
    ):
        home.tournament(slug, lexicon, "double", f"Open {slug}")
        home.cli("tournament", "set", slug, "--language", language)
    return home


def journal_of(home: Home, kiosk: str) -> list[tuple[list[str], str]]:
    rows = json.loads(home.cli("journal", "export", "--format", "json"))
    return [(row["words"], row["verdict"]) for row in rows if row["kiosk"] == kiosk]


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_alphabet_kind_judges_through_the_page(browser, home: Home, server, kind: str):
    case = KINDS[kind]
    name = f"every-{case.slug}"
    page = open_page(browser, {"width": 1366, "height": 768}, timeout=10_000)
    sent: list[list[str]] = []
    page.on(
        "request",
        lambda request: (
            request.url.endswith("/api/v1/adjudications")
            and sent.append(json.loads(request.post_data)["words"])
        ),
    )
    pair_page(page, server.url, home.pairing_code(name, case.slug))
    try:
        page.locator("#word-input").focus()
        page.keyboard.type(case.good)  # the last word still in the box: JUDGE takes it
        page.click("#judge-button")
        page.wait_for_selector("#verdict-screen:not([hidden]), #error-screen:not([hidden])")
        assert page.locator("#error-screen").is_hidden(), page.inner_text("#error-screen")
        assert page.inner_text("#verdict-word") == case.verdict
        assert page.locator("#verdict-words li").count() == len(case.good_words)
        page.locator("#verdict-done:enabled").click()
        page.wait_for_selector("#idle-screen:not([hidden])")

        page.keyboard.type(case.bad + " ")
        page.wait_for_function("() => !document.querySelector('#chips .chip-unread')")
        page.click("#judge-button")
        page.wait_for_selector("#verdict-screen:not([hidden]), #error-screen:not([hidden])")
        assert page.locator("#error-screen").is_hidden(), page.inner_text("#error-screen")
        assert (
            page.locator("#verdict-screen").get_attribute("class").endswith("verdict-unacceptable")
        )
    finally:
        page.context.close()
    assert sent[0] == case.good_words  # the page sent it: not the API alone
    assert len(sent) == 2
    assert [verdict for _, verdict in journal_of(home, name)] == ["ACCEPTABLE", "UNACCEPTABLE"]
    assert journal_of(home, name)[0][0] == case.good_words


def test_the_fise_kiosk_judges_in_webkit(webkit, home: Home, server):
    from selenium.webdriver.common.by import By

    pair_in_webkit(webkit, server.url, home.pairing_code("ipad-fise", "fise"))
    wait_for(webkit, "!document.getElementById('tile-row').hidden")
    box = webkit.find_element(By.ID, "word-input")
    box.click()
    box.send_keys("chico perro calle a")
    # Each step seen done before the next, as a player sees it: three words read as tiles...
    wait_for(webkit, "document.querySelectorAll('#chips .chip').length === 3 && "
             "!document.querySelector('#chips .chip-unread') && "
             "document.querySelectorAll('#chips .tile-multi').length === 3")  # CH, RR, LL
    webkit.find_element(By.CSS_SELECTOR, "#tile-row .tile-key[data-tile='\u00d1']").click()
    wait_for(webkit, "document.getElementById('word-input').value.toUpperCase() === 'A\u00d1'")
    box.send_keys("o")  # ...and the tile typed where the caret was, the caret after it
    wait_for(webkit, "document.getElementById('word-input').value.toUpperCase() === 'A\u00d1O'")
    webkit.find_element(By.ID, "judge-button").click()
    wait_for(
        webkit,
        "!document.getElementById('verdict-screen').hidden || "
        "!document.getElementById('error-screen').hidden",
    )
    shown = text(webkit, "verdict-word") or text(webkit, "error-message")
    assert journal_of(home, "ipad-fise") == [
        (["[CH]ICO", "PE[RR]O", "CA[LL]E", "AÑO"], "ACCEPTABLE")
    ], shown
    assert shown == "VÁLIDA"
