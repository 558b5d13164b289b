"""A verdict a player cannot see (issue 44, item 3: NASPA's special needs practice), in real
Chromium against a real server: a kiosk the director sets to speak says each verdict aloud with
the browser's speech synthesis, in the tournament's language (English and Spanish here), and
what it says is the text the screen shows, word for word, never a word of the challenge; a
refusal says NOT JUDGED alone. The director turns it on and off (CLI, the Kiosks page) and the
open screen follows. A large, high-contrast kiosk shows larger text and passes axe in every
state, on a hall screen and on a tablet, without scrolling.

The page's speech is read by replacing `speechSynthesis.speak` in the page before its scripts
run (the headless browser has no voice): what the kiosk's own code hands it is recorded."""

from __future__ import annotations

import pytest

from support.axe import AxeRecord, axe_missing_reason
from support.browser import (
    HD,
    LAPTOP,
    SETTLE_JS,
    TABLET,
    Home,
    fill_sign_in,
    off_screen,
    open_page,
    pair_page,
    wait_until,
)

pytestmark = [pytest.mark.browser]

SERVER_SETTINGS = {"verdict_seconds": "300"}
DIRECTOR_PASSWORD = "access-director-pass-1"
SPANISH = ["chico", "perro", "año"]

# Before the page's scripts: every utterance handed to speechSynthesis.speak is kept, with its
# language, in window.spoken (a browser without speech gets a stand-in to record it the same).
RECORD_SPEECH = """
window.spoken = [];
(() => {
  const record = utterance => window.spoken.push({ text: utterance.text, lang: utterance.lang });
  if (typeof window.SpeechSynthesisUtterance !== "function") {
    window.SpeechSynthesisUtterance = function (text) { this.text = text; this.lang = ""; };
  }
  if (window.speechSynthesis) {
    window.speechSynthesis.speak = record;
    window.speechSynthesis.cancel = () => {};
  } else {
    Object.defineProperty(window, "speechSynthesis",
      { value: { speak: record, cancel() {} }, configurable: true });
  }
})();
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("access-home"))
    home.tournament("open", "TINY", "double", "Spring Open")
    home.import_words("ES-T", SPANISH, "spanish")
    home.tournament("es", "ES-T", "double", "Open de Madrid")
    home.cli("tournament", "set", "es", "--language", "es")
    home.tournament("refer", "REFER", "single", "Referral division")
    home.cli("director", "set-password", "--password-stdin", stdin=DIRECTOR_PASSWORD + "\n")
    return home


def kiosk(browser, home: Home, server, name: str, tournament: str, *access: str, viewport=None):
    """A page paired as kiosk `name`, set by the director with `access` (`--speak`,
    `--large`), its speech recorded."""
    code = home.pairing_code(name, tournament)
    if access:
        home.cli("kiosk", "access", name, *access)
    page = open_page(browser, viewport or HD, timeout=10_000)
    page.add_init_script(RECORD_SPEECH)
    return pair_page(page, server.url, code)


def judge(page, words: str, screen: str = "verdict-screen") -> None:
    page.locator("#word-input").fill(words)
    page.click("#judge-button")
    page.wait_for_selector(f"#{screen}:not([hidden])")
    page.evaluate(SETTLE_JS)


def shown(page) -> str:
    """The verdict as the screen shows it: its word, what it means, its consequence."""
    parts = [page.inner_text(f"#verdict-{part}") for part in ("word", "gloss", "consequence")]
    return " ".join(part if part.endswith(".") else part + "." for part in parts)


def spoken(page) -> list[dict]:
    return page.evaluate("window.spoken")


def done(page) -> None:
    page.locator("#verdict-done:enabled").click()
    page.wait_for_selector("#idle-screen:not([hidden])")


def test_each_verdict_is_said_as_the_screen_shows_it_never_a_word_of_the_challenge(
    browser, home: Home, server
):
    page = kiosk(browser, home, server, "speaks-en", "open", "--speak")
    judge(page, "qi za")
    assert shown(page) == "ACCEPTABLE. the play stands. The challenger loses their turn."
    assert spoken(page) == [{"text": shown(page), "lang": "en"}]
    done(page)
    judge(page, "qi zzz")
    assert spoken(page)[-1] == {"text": shown(page), "lang": "en"}
    assert shown(page).startswith("UNACCEPTABLE. the play comes off the board.")
    done(page)
    page.route("**/api/v1/adjudications", lambda route: route.abort())
    judge(page, "zax", "error-screen")  # a refusal: its title alone, never the typed word
    assert spoken(page)[-1] == {"text": "NOT JUDGED.", "lang": "en"}
    said = " ".join(utterance["text"] for utterance in spoken(page)).upper()
    assert not {"QI", "ZA", "ZZZ", "ZAX"} & set(said.replace(".", " ").split())
    assert len(spoken(page)) == 3  # one utterance each: nothing else was said
    page.context.close()


def test_a_spanish_kiosk_says_its_verdict_in_spanish(browser, home: Home, server):
    page = kiosk(browser, home, server, "habla-es", "es", "--speak")
    judge(page, "chico perro año")
    assert page.inner_text("#verdict-word") == "VÁLIDA"
    assert spoken(page) == [{"text": shown(page), "lang": "es"}]
    assert shown(page).startswith("VÁLIDA. ")
    said = spoken(page)[0]["text"].upper()
    assert not any(word.upper() in said for word in ("CHICO", "PERRO", "AÑO"))
    page.context.close()


def test_the_director_turns_speech_on_and_off_and_the_open_kiosk_follows(
    browser, home: Home, server
):
    page = kiosk(browser, home, server, "quiet", "open")
    judge(page, "qi")
    assert spoken(page) == []  # not set to speak: silent
    done(page)

    director = open_page(browser, LAPTOP, timeout=10_000)
    director.goto(server.url + "/director/login")
    fill_sign_in(director, "director", DIRECTOR_PASSWORD)
    director.wait_for_url(server.url + "/director/")
    director.goto(server.url + "/director/kiosks")
    form = director.locator("#access-quiet")
    form.locator("input[name=speak]").check()
    form.locator("button").click()
    assert "Kiosk quiet: saved how it shows its verdicts" in director.inner_text(".flash-ok")
    assert director.locator("#access-quiet input[name=speak]").is_checked()
    assert not director.locator("#access-quiet input[name=large]").is_checked()

    wait_until(page, "window.Kiosk.state.speaks === true", timeout=30)  # its next status
    judge(page, "za")
    assert spoken(page) == [{"text": shown(page), "lang": "en"}]
    done(page)
    home.cli("kiosk", "access", "quiet", "--no-speak")
    wait_until(page, "window.Kiosk.state.speaks === false", timeout=30)
    judge(page, "qi")
    assert len(spoken(page)) == 1
    director.context.close()
    page.context.close()


@pytest.mark.skipif(axe_missing_reason() is not None, reason=str(axe_missing_reason()))
@pytest.mark.parametrize("screen", ["hd", "tablet"])
def test_the_large_high_contrast_kiosk_passes_axe_and_fits(browser, home: Home, server, screen):
    viewport = {"hd": HD, "tablet": TABLET}[screen]
    usual = kiosk(browser, home, server, f"usual-{screen}", "open", viewport=viewport)
    large = kiosk(browser, home, server, f"large-{screen}", "open", "--large", viewport=viewport)
    sizes = [
        page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
        for page in (usual, large)
    ]
    assert sizes[1] >= 1.3 * sizes[0], sizes
    assert large.evaluate("document.documentElement.classList.contains('access-large')")
    background = large.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == "rgb(0, 0, 0)"
    axe = AxeRecord()
    axe.check(large, "large, idle")
    assert off_screen(large) == []
    for words, verdict in (("qi za", "ACCEPTABLE"), ("qi zzz", "UNACCEPTABLE")):
        judge(large, words)
        assert large.inner_text("#verdict-word") == verdict
        large.locator("#verdict-done:enabled").wait_for()
        axe.check(large, f"large, {verdict}")
        assert off_screen(large) == [], verdict
        done(large)
    large.route("**/api/v1/adjudications", lambda route: route.abort())
    judge(large, "qi", "error-screen")
    axe.check(large, "large, NOT JUDGED")
    assert off_screen(large) == []
    refer = kiosk(browser, home, server, f"refer-{screen}", "refer", "--large", viewport=viewport)
    judge(refer, "qi abcdefgh")
    assert refer.inner_text("#verdict-word") == "REFER"
    axe.check(refer, "large, REFER")
    assert off_screen(refer) == []

    home.cli("kiosk", "access", f"usual-{screen}", "--large")  # the open screen follows
    wait_until(usual, "document.documentElement.classList.contains('access-large')", timeout=30)
    for page in (usual, large, refer):
        page.context.close()
    axe.assert_clean()


@pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning")
def test_a_speaking_large_kiosk_judges_in_webkit(webkit, home: Home, server):
    from selenium.webdriver.common.by import By

    from support.webkit import pair_in_webkit, text, wait_for

    code = home.pairing_code("ipad-access", "es")
    home.cli("kiosk", "access", "ipad-access", "--speak", "--large")
    pair_in_webkit(webkit, server.url, code)
    assert webkit.execute_script("return document.documentElement.className") == "access-large"
    webkit.execute_script(RECORD_SPEECH)  # after its scripts: the kiosk asks for speech late
    box = webkit.find_element(By.ID, "word-input")
    box.click()
    box.send_keys("chico perro")
    webkit.find_element(By.ID, "judge-button").click()
    wait_for(webkit, "!document.getElementById('verdict-screen').hidden")
    assert text(webkit, "verdict-word") == "VÁLIDA"
    said = webkit.execute_script("return window.spoken")
    assert len(said) == 1 and said[0]["lang"] == "es"
    assert said[0]["text"].startswith("VÁLIDA. ") and "CHICO" not in said[0]["text"].upper()
