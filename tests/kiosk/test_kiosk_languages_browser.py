"""The kiosk in each of its languages, in real Chromium (issue 23): pair from the pairing link,
type, judge, and read the verdict and its consequence in the tournament's language, with the
element ids scripts rely on unchanged; a French kiosk shows accented words as their tiles
before JUDGE and judges them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adjudicator.words.alphabet_files import builtin
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.browser import (
    PAIRING_LINK,
    SETTLE_JS,
    Home,
    Server,
    browser_missing_reason,
    launched_chromium,
    off_screen,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(browser_missing_reason() is not None, reason=str(browser_missing_reason())),
]

# What a player reads, by language: the pairing heading, the JUDGE button, the verdict words,
# the consequence of an acceptable two-word play under 5-per-word, and of an unacceptable one.
SAID = {
    "en": {
        "pair": "Pair this screen as a kiosk",
        "judge": "JUDGE",
        "count": "2 of 8 words",
        "ok": ("ACCEPTABLE", "the play stands"),
        "ok_then": "2 words challenged, 5 each: the player adds 10; the challenger keeps the turn.",
        "bad": ("UNACCEPTABLE", "the play comes off the board"),
        "bad_then": "It scores zero, and the turn passes to the challenger.",
        "typo": "Word 1 (“q1”) has the digit “1” at position 2",
    },
    "fr": {
        "pair": "Appairer cet écran comme borne",
        "judge": "JUGER",
        "count": "2 mots sur 8",
        "ok": ("VALABLE", "le coup est maintenu"),
        "ok_then": "2 mots contestés, 5 chacun : le joueur ajoute 10 ; le joueur qui a contesté "
        "garde son tour.",
        "bad": ("NON VALABLE", "le coup est retiré du plateau"),
        "bad_then": "Il marque zéro, et la main passe au joueur qui a contesté.",
        "typo": "Le mot 1 (« q1 ») contient le chiffre « 1 » en position 2",
    },
    "pl": {
        "pair": "Sparuj ten ekran jako stanowisko",
        "judge": "ROZSTRZYGNIJ",
        "count": "2 z 8 słów",
        "ok": ("DOPUSZCZALNE", "ruch zostaje na planszy"),
        "ok_then": "2 sprawdzane słowa, po 5: gracz dolicza 10; sprawdzający zachowuje kolejkę.",
        "bad": ("NIEDOPUSZCZALNE", "ruch zostaje cofnięty z planszy"),
        "bad_then": "Ruch jest za zero punktów, a kolejka przechodzi na sprawdzającego.",
        "typo": "Słowo 1 („q1”) zawiera niedozwolony znak na pozycji 2 — cyfra „1”",
    },
    "es": {
        "pair": "Vincular esta pantalla como terminal",
        "judge": "JUZGAR",
        "count": "2 de 8 palabras",
        "ok": ("VÁLIDA", "la jugada se mantiene"),
        "ok_then": "2 palabras impugnadas, 5 cada una: el jugador suma 10; quien impugnó "
        "conserva el turno.",
        "bad": ("NO VÁLIDA", "la jugada se retira del tablero"),
        "bad_then": "Puntúa cero, y el turno pasa a quien impugnó.",
        "typo": "La palabra 1 («q1») tiene la cifra «1» en la posición 2",
    },
    "ca": {
        "pair": "Vincular aquesta pantalla com a terminal",
        "judge": "JUTJAR",
        "count": "2 de 8 paraules",
        "ok": ("VÀLIDA", "la jugada es manté"),
        "ok_then": "2 paraules impugnades, 5 cadascuna: el jugador suma 10; qui ha impugnat "
        "conserva el torn.",
        "bad": ("NO VÀLIDA", "la jugada es retira del tauler"),
        "bad_then": "Puntua zero, i el torn passa a qui ha impugnat.",
        "typo": "La paraula 1 («q1») té la xifra «1» a la posició 2",
    },
}


@pytest.fixture(scope="module")
def hall(tmp_path_factory) -> Iterator[tuple[Home, Server]]:
    home = Home.prepare(tmp_path_factory.mktemp("languages"))
    for code in SAID:
        home.cli("tournament", "create", f"open-{code}", "--lexicon", "TINY", "--rule",
                 "5-per-word", "--title", f"Open {code}", "--language", code)  # fmt: skip
    running = Server(home, verdict_seconds="300")
    yield home, running
    running.stop()


@pytest.fixture(scope="module")
def browser():
    with launched_chromium() as launched:
        yield launched


def _paired(browser, home: Home, server: Server, code: str, width=1366, height=768):
    out = home.cli("kiosk", "add", f"table-{code}", "--tournament", f"open-{code}")
    link = PAIRING_LINK.search(out)
    query = "" if code == "en" else f"?lang={code}"
    assert f"/pair{query}#" in out
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.goto(f"{server.url}/pair{query}#{link.group(1)}")
    return page


@pytest.mark.parametrize("code", list(SAID))
def test_pair_type_judge_and_read_the_verdict_in_the_tournaments_language(hall, browser, code):
    home, server = hall
    said = SAID[code]
    page = _paired(browser, home, server, code)
    assert page.get_attribute("html", "lang") == code
    assert page.inner_text("#pair h1") == said["pair"]
    page.click("#pair-button")
    page.wait_for_selector("#lexicon-words:not(:empty)")
    assert page.get_attribute("html", "lang") == code
    assert page.inner_text("#judge-button") == said["judge"]

    page.locator("#word-input").fill("q1 ")  # a typing error, said before anything is judged
    assert said["typo"] in page.inner_text("#word-hint")
    page.locator("#word-input").fill("")
    page.locator("#word-input").fill("qi za ")
    assert page.inner_text("#word-count") == said["count"]
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert (page.inner_text("#verdict-word"), page.inner_text("#verdict-gloss")) == said["ok"]
    assert page.inner_text("#verdict-consequence") == said["ok_then"]
    assert off_screen(page) == []

    page.locator("#verdict-done:enabled").click()
    page.wait_for_selector("#idle-screen:not([hidden])")
    assert page.inner_text("#judge-button") == said["judge"]  # after a verdict too
    page.locator("#word-input").fill("qi zz ")
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert (page.inner_text("#verdict-word"), page.inner_text("#verdict-gloss")) == said["bad"]
    assert page.inner_text("#verdict-consequence") == said["bad_then"]
    page.evaluate(SETTLE_JS)
    assert off_screen(page) == []


def test_a_french_kiosk_shows_accented_words_as_tiles_and_judges_them(hall, browser, tmp_path):
    home, server = hall
    words = ["ÉLÈVE", "GARÇON", "ŒUVRE", "OÙ", "NOËL", "ÂME"]
    LexiconStore(root=home.path / "lexicons").save(
        "FR-TEST", WordSet.take([builtin("french").canonical(builtin("french").spell(w))
                                 for w in words], builtin("french")),
        description="petite liste de test",
    )  # fmt: skip
    home.cli("tournament", "create", "open-fr-list", "--lexicon", "FR-TEST", "--rule", "double",
             "--title", "Tournoi de test", "--language", "fr")  # fmt: skip
    out = home.cli("kiosk", "add", "table-fr-list", "--tournament", "open-fr-list")
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    page.goto(f"{server.url}/pair?lang=fr#{PAIRING_LINK.search(out).group(1)}")
    page.click("#pair-button")
    page.wait_for_selector("#lexicon-words:not(:empty)")
    page.locator("#word-input").fill("élève œuvre ")
    page.wait_for_selector("#chips .chip-word .tile")
    tiles = page.locator("#chips .chip-word").all_inner_texts()
    assert [text.replace("\n", "") for text in tiles] == ["ELEVE", "OEUVRE"]
    assert not page.locator("#fold-help").is_hidden()
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert page.inner_text("#verdict-word") == "VALABLE"
    assert page.inner_text("#verdict-consequence") == "Le joueur qui a contesté perd son tour."
