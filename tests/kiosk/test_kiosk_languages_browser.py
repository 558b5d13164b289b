"""The kiosk in each of its languages, in real Chromium (issue 23): pair from the pairing link,
type, judge, and read the verdict and its consequence in the tournament's language, with the
element ids scripts rely on unchanged; a French kiosk shows accented words as their tiles
before JUDGE and judges them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

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


class Said(NamedTuple):
    """What a player reads in one language."""

    pair: str  # the pairing heading
    judge: str  # the JUDGE button
    count: str  # the word count of QI ZA under 8 words
    ok: tuple[str, str]  # the verdict's words, acceptable
    ok_then: str  # its consequence for an acceptable two-word play under 5-per-word
    bad: tuple[str, str]  # the verdict's words, unacceptable
    bad_then: str  # its consequence
    typo: str  # the hint for a digit typed in a word


SAID = {
    "en": Said(
        "Pair this screen as a kiosk",
        "JUDGE",
        "2 of 8 words",
        ("ACCEPTABLE", "the play stands"),
        "2 words challenged, 5 each: the player adds 10; the challenger keeps the turn.",
        ("UNACCEPTABLE", "the play comes off the board"),
        "It scores zero, and the turn passes to the challenger.",
        "Word 1 (“q1”) has the digit “1” at position 2",
    ),
    "fr": Said(
        "Appairer cet écran comme borne",
        "JUGER",
        "2 mots sur 8",
        ("VALABLE", "le coup est maintenu"),
        "2 mots contestés, 5 chacun : le joueur ajoute 10 ; le joueur qui a contesté "
        "garde son tour.",
        ("NON VALABLE", "le coup est retiré du plateau"),
        "Il marque zéro, et la main passe au joueur qui a contesté.",
        "Le mot 1 (« q1 ») contient le chiffre « 1 » en position 2",
    ),
    "pl": Said(
        "Sparuj ten ekran jako stanowisko",
        "ROZSTRZYGNIJ",
        "2 z 8 słów",
        ("DOPUSZCZALNE", "ruch zostaje na planszy"),
        "2 sprawdzane słowa, po 5: gracz dolicza 10; sprawdzający zachowuje kolejkę.",
        ("NIEDOPUSZCZALNE", "ruch zostaje cofnięty z planszy"),
        "Ruch jest za zero punktów, a kolejka przechodzi na sprawdzającego.",
        "Słowo 1 („q1”) zawiera niedozwolony znak na pozycji 2 — cyfra „1”",
    ),
    "es": Said(
        "Vincular esta pantalla como terminal",
        "JUZGAR",
        "2 de 8 palabras",
        ("VÁLIDA", "la jugada se mantiene"),
        "2 palabras impugnadas, 5 cada una: el jugador suma 10; quien impugnó conserva el turno.",
        ("NO VÁLIDA", "la jugada se retira del tablero"),
        "Puntúa cero, y el turno pasa a quien impugnó.",
        "La palabra 1 («q1») tiene la cifra «1» en la posición 2",
    ),
    "ca": Said(
        "Vincular aquesta pantalla com a terminal",
        "JUTJAR",
        "2 de 8 paraules",
        ("VÀLIDA", "la jugada es manté"),
        "2 paraules impugnades, 5 cadascuna: el jugador suma 10; qui ha impugnat conserva el torn.",
        ("NO VÀLIDA", "la jugada es retira del tauler"),
        "Puntua zero, i el torn passa a qui ha impugnat.",
        "La paraula 1 («q1») té la xifra «1» a la posició 2",
    ),
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
    assert page.inner_text("#pair h1") == said.pair
    page.click("#pair-button")
    page.wait_for_selector("#lexicon-words:not(:empty)")
    assert page.get_attribute("html", "lang") == code
    assert page.inner_text("#judge-button") == said.judge

    page.locator("#word-input").fill("q1 ")  # a typing error, said before anything is judged
    assert said.typo in page.inner_text("#word-hint")
    page.locator("#word-input").fill("")
    page.locator("#word-input").fill("qi za ")
    assert page.inner_text("#word-count") == said.count
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert (page.inner_text("#verdict-word"), page.inner_text("#verdict-gloss")) == said.ok
    assert page.inner_text("#verdict-consequence") == said.ok_then
    assert off_screen(page) == []

    page.locator("#verdict-done:enabled").click()
    page.wait_for_selector("#idle-screen:not([hidden])")
    assert page.inner_text("#judge-button") == said.judge  # after a verdict too
    page.locator("#word-input").fill("qi zz ")
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert (page.inner_text("#verdict-word"), page.inner_text("#verdict-gloss")) == said.bad
    assert page.inner_text("#verdict-consequence") == said.bad_then
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
