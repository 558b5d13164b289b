"""The kiosk in other alphabets, end to end in real Chromium against a real `adjudicator serve`.

Polish, Spanish and Catalan lexicons (small lists imported with the CLI), a federation's own
alphabet from a TOML file, and the Debian Spanish list through its shipped recipe: the status
bar names the alphabet, the row of special tiles types what a keyboard lacks, words are shown as
tiles (a digraph as one tile), the players change how letters split into tiles before JUDGE, a
character the alphabet cannot read is refused by name, and the journal has what was shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.browser import Home, Server, open_page, pair_page

pytestmark = [
    pytest.mark.browser,
]

POLISH = ["źdźbło", "żółw", "gęś", "łódź", "kot", "pies"]
SPANISH = ["chico", "perro", "camión", "año", "[c][h]at", "churro", "llama"]
CATALAN = ["col·legi", "plaça", "quatre", "nyap", "paella"]
SWEDISH = ["öga", "äpple", "år", "idé"]
SWEDISH_TOML = """name = "swedish-club"
description = "Swedish club set"
tiles = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "R",
         "S", "T", "U", "V", "X", "Y", "Z", "Å", "Ä", "Ö"]
fold = { "É" = "E" }
"""
SPANISH_DICT = Path("/usr/share/dict/spanish")
POLISH_DICT = Path("/usr/share/dict/polish")


SERVER_SETTINGS = {"verdict_seconds": "300"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("alphabets-home"))
    home.import_words("PL-T", POLISH, "polish")
    home.import_words("ES-T", SPANISH, "spanish")
    home.import_words("CA-T", CATALAN, "catalan")
    alphabet = home.path / "swedish-club.toml"
    alphabet.write_text(SWEDISH_TOML, encoding="utf-8")
    home.import_words("SV-T", SWEDISH, str(alphabet))
    alphabet.unlink()  # the manifest keeps the definition
    home.tournament("pl", "PL-T", "double", "Mistrzostwa Warszawy")
    home.tournament("es", "ES-T", "double", "Open de Madrid")
    home.tournament("ca", "CA-T", "single", "Obert de Barcelona")
    home.tournament("sv", "SV-T", "5-per-word", "Klubbmästerskap")
    home.tournament("en", "TINY", "double", "Spring Open")
    return home


class Kiosk:
    """A paired kiosk page, and the requests it sends."""

    def __init__(self, page, home: Home):
        self.page = page
        self.home = home
        self.judged: list = []
        self.spelled: list = []
        page.on("request", self._note)

    def _note(self, request) -> None:
        if request.url.endswith("/api/v1/adjudications"):
            self.judged.append(json.loads(request.post_data)["words"])
        elif request.url.endswith("/api/v1/spell"):
            self.spelled.append(json.loads(request.post_data)["words"])

    @property
    def box(self):
        return self.page.locator("#word-input")

    def tap_tile(self, tile: str) -> None:
        self.page.click(f"#tile-row .tile-key[data-tile='{tile}']")

    def type_tapping(self, text: str) -> None:
        """Type `text` on the keyboard, tapping the tile row's key for each {TILE} in it:
        "{Ź}d" taps Ź, then types d."""
        for index, part in enumerate(re.split(r"\{([^}]+)\}", text)):
            if index % 2:
                self.tap_tile(part)
            elif part:
                self.page.keyboard.type(part)

    def chips(self) -> list[list[str]]:
        """Each word in the box as its tiles (every chip read)."""
        self.page.wait_for_function(
            "() => !document.querySelector('#chips .chip-unread')", timeout=10_000
        )
        return self.page.evaluate(
            """() => [...document.querySelectorAll('#chips .chip-word')].map(word =>
                [...word.querySelectorAll('.tile')].map(tile => tile.textContent))"""
        )

    def split(self, index: int) -> None:
        self.page.click(f"#chips .chip-split[data-index='{index}']")

    def judge(self) -> str:
        self.page.click("#judge-button")
        self.page.wait_for_selector("#verdict-screen:not([hidden])")
        return self.page.inner_text("#verdict-word")

    def verdict_tiles(self) -> list[list[str]]:
        return self.page.evaluate(
            """() => [...document.querySelectorAll('#verdict-words li')].map(word =>
                [...word.querySelectorAll('.tile')].map(tile => tile.textContent))"""
        )

    def multi_tiles_shown(self, where: str) -> list[str]:
        return self.page.locator(f"{where} .tile-multi").all_inner_texts()

    def done(self) -> None:
        self.page.locator("#verdict-done:enabled").click()
        self.page.wait_for_selector("#idle-screen:not([hidden])")

    def hint(self) -> str:
        return self.page.inner_text("#word-hint").strip()

    def journal(self) -> list[list[str]]:
        rows = json.loads(self.home.cli("journal", "export", "--format", "json"))
        return [row["words"] for row in rows if row["kiosk"] == self.name]

    name = ""


@pytest.fixture
def kiosk(browser, home: Home, server: Server) -> Iterator:
    pages = []

    def pair(tournament: str, name: str, viewport=None) -> Kiosk:
        page = open_page(browser, viewport or {"width": 1366, "height": 768}, timeout=10_000)
        pages.append(page)
        paired = Kiosk(pair_page(page, server.url, home.pairing_code(name, tournament)), home)
        paired.name = name
        return paired

    yield pair
    for page in pages:
        page.context.close()


def test_polish_words_typed_with_the_tile_row_and_judged(kiosk):
    k = kiosk("pl", "stol-1")
    page = k.page
    assert page.inner_text("#lexicon-alphabet").strip() == "· Polish tiles"
    assert page.locator("#tile-row .tile-key").all_inner_texts() == list("ĄĆĘŁŃÓŚŹŻ")
    assert page.locator("#tile-help").is_visible()
    k.box.focus()
    k.type_tapping("{Ź}d{Ź}b{Ł}o ")
    assert k.box.input_value() == "" and k.chips() == [list("ŹDŹBŁO")]
    assert k.box.evaluate("box => box === document.activeElement")  # the keyboard stays up
    page.keyboard.type("Żółw GĘŚ ")  # a Polish keyboard types them directly, in either case
    assert k.chips() == [list("ŹDŹBŁO"), list("ŻÓŁW"), list("GĘŚ")]
    assert k.judge() == "ACCEPTABLE"
    assert k.verdict_tiles() == [list("ŹDŹBŁO"), list("ŻÓŁW"), list("GĘŚ")]
    assert k.judged == [["ŹDŹBŁO", "ŻÓŁW", "GĘŚ"]]
    k.done()

    # Ó is a tile of its own: ZOLW is another word, never read as ŻÓŁW
    k.box.fill("zolw kot ")
    assert k.judge() == "UNACCEPTABLE"
    k.done()
    # letters typed with combining accents (some keyboards do) are the same letters (NFC)
    k.box.fill("z\u0307o\u0301\u0142w ")
    assert k.chips() == [list("ŻÓŁW")]
    assert k.judge() == "ACCEPTABLE"
    assert k.journal() == [["ŹDŹBŁO", "ŻÓŁW", "GĘŚ"], ["ZOLW", "KOT"], ["ŻÓŁW"]]
    assert k.spelled == []  # one character, one tile: nothing to ask the server
    k.done()

    k.box.fill("kot quiz")
    assert k.hint() == (
        "Word 2 (\u201cquiz\u201d) has the letter \u201cq\u201d (U+0071), which is not one of "
        "the Polish tiles at position 1: use the Polish tiles only: A to Z without Q, V and X, "
        "and Ą Ć Ę Ł Ń Ó Ś Ź Ż. Type a blank as the letter it stands for. Nothing is judged "
        "until it is fixed."
    )
    assert k.box.input_value() == "quiz"
    page.click("#judge-button")
    page.wait_for_timeout(300)
    assert len(k.judged) == 3 and page.locator("#verdict-screen").is_hidden()


def test_spanish_digraphs_are_one_tile_and_the_players_choose_the_split(kiosk):
    k = kiosk("es", "mesa-1")
    page = k.page
    assert page.inner_text("#lexicon-alphabet").strip() == "· Spanish tiles"
    assert page.locator("#tile-row .tile-key").all_inner_texts() == ["CH", "LL", "Ñ", "RR"]
    k.box.focus()
    k.type_tapping("chat camión a{Ñ}o ")
    assert k.chips() == [["CH", "A", "T"], list("CAMION"), ["A", "Ñ", "O"]]
    assert k.multi_tiles_shown("#chips") == ["CH"]
    assert page.locator("#chips .chip-split").count() == 1  # only CHAT splits another way
    assert page.locator("#split-help").is_visible()
    assert k.judge() == "UNACCEPTABLE"  # the list has C,H,A,T, not the CH tile
    assert k.judged[-1] == ["[CH]AT", "CAMION", "AÑO"]
    assert k.multi_tiles_shown("#verdict-words") == ["CH"]
    k.done()

    page.keyboard.type("chat camión año ")
    assert k.chips()[0] == ["CH", "A", "T"]
    k.split(0)
    assert k.chips()[0] == ["C", "H", "A", "T"]
    assert k.hint() == "CHAT as 4 tiles: C H A T."
    label = page.get_attribute("#chips .chip-split", "aria-label")
    assert label == "CHAT as 4 tiles: C H A T. Press to split it into tiles another way."
    assert k.judge() == "ACCEPTABLE"
    assert k.judged[-1] == ["[C][H]AT", "CAMION", "AÑO"]
    assert k.verdict_tiles()[0] == ["C", "H", "A", "T"]
    k.done()

    # CHURRO splits four ways; the tile row types RR as one tile, whatever is around it
    k.type_tapping("chu{RR}o pe{RR}o ")
    assert k.chips() == [["CH", "U", "RR", "O"], ["P", "E", "RR", "O"]]
    seen = []
    for _ in range(4):
        k.split(0)
        seen.append(k.chips()[0])
    assert seen == [
        ["CH", "U", "R", "R", "O"],
        ["C", "H", "U", "RR", "O"],
        ["C", "H", "U", "R", "R", "O"],
        ["CH", "U", "RR", "O"],
    ]
    assert k.judge() == "ACCEPTABLE"
    assert k.journal() == [
        ["[CH]AT", "CAMION", "AÑO"],
        ["CHAT", "CAMION", "AÑO"],
        ["[CH]U[RR]O", "PE[RR]O"],
    ]


def test_spanish_refusals_name_the_character_and_nothing_is_judged(kiosk):
    k = kiosk("es", "mesa-2")
    page = k.page
    k.box.fill("chico whisky")
    assert k.chips() == [["CH", "I", "C", "O"]]
    assert k.hint().startswith(
        "Word 2 (\u201cwhisky\u201d) has the letter \u201cw\u201d (U+0077), which is not one "
        "of the Spanish tiles at position 1"
    )
    # the server reads what the characters alone cannot tell: an unclosed bracket
    k.box.fill("[ch ")
    page.wait_for_selector("#chips .chip-problem")
    assert k.hint().startswith(
        "Word 2 ('[ch') has an opening bracket '[' at position 1 with no closing bracket ']'"
    )
    assert k.hint().endswith("Tap its \u00d7 to remove it.")
    page.click("#judge-button")
    page.wait_for_timeout(300)
    assert k.judged == [] and page.locator("#verdict-screen").is_hidden()
    page.click("#chips .chip-problem .chip-remove")
    assert k.hint() == ""
    k.box.fill("perro ")
    assert k.chips() == [["CH", "I", "C", "O"], ["P", "E", "RR", "O"]]
    assert k.judge() == "ACCEPTABLE"
    assert k.judged == [["[CH]ICO", "PE[RR]O"]]


def test_words_typed_while_the_server_is_out_of_reach_are_read_when_it_answers(kiosk):
    k = kiosk("es", "mesa-3")
    page = k.page
    page.route("**/api/v1/spell", lambda route: route.abort())
    k.box.fill("chico perro ")
    page.wait_for_selector("#offline-alert:not([hidden])")
    assert page.locator("#chips .chip-unread").count() == 2  # shown as typed, not yet as tiles
    assert page.locator("#chips .tile").count() == 0
    page.click("#judge-button")
    page.wait_for_selector("#error-screen:not([hidden])")
    assert page.inner_text("#error-message") == "Cannot reach the adjudication server."
    assert k.judged == []  # nothing is judged before the words are read
    page.unroute("**/api/v1/spell")
    page.locator("#error-back:enabled").click()
    assert k.chips() == [["CH", "I", "C", "O"], ["P", "E", "RR", "O"]]  # read at the next poll
    assert k.judge() == "ACCEPTABLE"
    assert k.judged == [["[CH]ICO", "PE[RR]O"]]


def test_a_kiosk_whose_first_status_never_came_judges_once_the_server_answers(kiosk):
    """Issue 44, item 1 (a Spanish kiosk said "Cannot reach" while the server judged for the
    others): a kiosk whose first ask for its status failed (a worker slow to open a large
    list, a dropped packet) asks again when JUDGE is pressed, and judges, rather than saying
    the server cannot be reached without asking it."""
    k = kiosk("es", "mesa-4")
    page = k.page
    blocked = {"now": True}

    def status(route):
        if blocked["now"] or "wait=" in route.request.url:  # the held polls stay out of reach
            route.abort()
        else:
            route.continue_()

    page.route("**/api/v1/kiosk*", status)
    page.reload()
    page.wait_for_selector("#offline-alert:not([hidden])")
    assert page.inner_text("#lexicon-words") == ""  # no status yet
    k.box.fill("chico perro ")  # read before the alphabet is known, and again once it is
    page.click("#judge-button")  # asked again, and still out of reach: said so, nothing judged
    page.wait_for_selector("#error-screen:not([hidden])")
    assert page.inner_text("#error-message") == "Cannot reach the adjudication server."
    assert k.judged == []
    page.locator("#error-back:enabled").click()
    blocked["now"] = False
    assert k.judge() == "ACCEPTABLE"
    assert k.judged == [["[CH]ICO", "PE[RR]O"]]
    page.unroute("**/api/v1/kiosk*")


def test_a_verdict_the_page_fails_to_show_is_not_called_out_of_reach(kiosk):
    """Issue 44, item 1: the server judged and answered, and the page failed while showing the
    verdict (a fault of the page's own, such as one in drawing a tile): the kiosk says it could
    not show the answer and where it is kept, never that the server is out of reach."""
    k = kiosk("es", "mesa-5")
    page = k.page
    page.evaluate("() => { Kiosk.showVerdict = () => { throw new Error('drawn badly'); }; }")
    k.box.fill("chico ")
    page.click("#judge-button")
    page.wait_for_selector("#error-screen:not([hidden])")
    assert page.inner_text("#error-message") == "This screen could not show the server's answer."
    assert "the journal says whether these words were judged" in page.inner_text("#error-advice")
    assert k.judged == [["[CH]ICO"]]
    assert k.home.cli("journal", "export", "--format", "json").count('"mesa-5"') == 1


def test_catalan_tiles_from_the_row_and_as_typed(kiosk):
    k = kiosk("ca", "taula-1")
    page = k.page
    assert page.locator("#tile-row .tile-key").all_inner_texts() == ["Ç", "L·L", "NY", "QU"]
    k.box.focus()
    k.type_tapping("co{L·L}egi pla{Ç}a QUATRE nyap col.legi ")
    assert k.chips() == [
        ["C", "O", "L·L", "E", "G", "I"],
        ["P", "L", "A", "Ç", "A"],
        ["QU", "A", "T", "R", "E"],
        ["NY", "A", "P"],
        ["C", "O", "L·L", "E", "G", "I"],
    ]
    assert page.locator("#chips .chip-split").count() == 0  # no Catalan word splits otherwise
    assert k.judge() == "ACCEPTABLE"
    assert k.judged == [["CO[L·L]EGI", "PLAÇA", "[QU]ATRE", "[NY]AP", "CO[L·L]EGI"]]
    assert k.multi_tiles_shown("#verdict-words") == ["L·L", "QU", "NY", "L·L"]
    k.done()

    k.box.fill("paella ·l ")
    page.wait_for_selector("#chips .chip-problem")
    assert "which is only part of the tile L·L" in k.hint()
    page.click("#chips .chip-problem .chip-remove")
    assert k.judge() == "ACCEPTABLE"  # PAELLA: L and L, two tiles, as listed
    assert k.journal()[-1] == ["PAELLA"]


def test_a_federation_alphabet_from_a_toml_file(kiosk):
    k = kiosk("sv", "bord-1")
    page = k.page
    assert page.inner_text("#lexicon-alphabet").strip() == "· swedish-club tiles"
    assert page.locator("#tile-row .tile-key").all_inner_texts() == ["Å", "Ä", "Ö"]
    k.box.focus()
    k.type_tapping("{Ö}ga {Ä}pple idé ")  # É is read as E, as the federation's file says
    assert k.chips() == [["Ö", "G", "A"], ["Ä", "P", "P", "L", "E"], ["I", "D", "E"]]
    assert k.judge() == "ACCEPTABLE"
    assert k.judged == [["ÖGA", "ÄPPLE", "IDE"]]
    assert page.inner_text("#verdict-gloss") == "the play stands"
    k.done()
    k.box.fill("qi")  # no Q in this set
    assert "\u201cq\u201d (U+0071), which is not one of the swedish-club tiles" in k.hint()


def test_the_kiosk_reads_typed_words_afresh_when_the_alphabet_changes(kiosk, home: Home):
    """The director moves the tournament to a Polish lexicon while words are typed."""
    home.tournament("switch", "ES-T", "double", "Switching division")
    k = kiosk("switch", "mesa-switch")
    page = k.page
    k.box.fill("chico año ")
    assert k.chips() == [["CH", "I", "C", "O"], ["A", "Ñ", "O"]]
    home.cli("tournament", "set", "switch", "--lexicon", "PL-T")
    page.wait_for_selector("#tile-row .tile-key[data-tile='\u0104']", timeout=15_000)
    assert page.inner_text("#alphabet-name") == "Polish"  # an English kiosk
    assert k.chips() == [list("CHICO")]  # one letter, one tile; and no Ñ in Polish:
    assert k.box.input_value() == "año "
    assert k.hint().startswith("Word 2 (\u201caño\u201d) has the letter \u201cñ\u201d")
    page.click("#judge-button")
    page.wait_for_timeout(300)
    assert k.judged == [] and page.locator("#verdict-screen").is_hidden()


def test_words_read_in_an_alphabet_gone_meanwhile_are_read_again_and_judged(kiosk, home: Home):
    """The director moves an English tournament to a Spanish lexicon, and the kiosk has not yet
    heard (its status out of reach): it reads CHICO in English letters. The server refuses to
    judge words read in another alphabet than the tournament's (409, nothing recorded, where it
    once recorded [CH]ICO and the kiosk could not show it); the kiosk asks its status, reads
    the words in Spanish tiles and judges them once more."""
    home.tournament("flip", "TINY", "double", "Flipping division")
    k = kiosk("flip", "mesa-flip")
    page = k.page
    page.wait_for_function("() => document.getElementById('lexicon-alphabet').hidden")
    sent = {"judged": False}

    def status(route):  # out of reach until the kiosk has sent its challenge
        if sent["judged"] and "wait=" not in route.request.url:
            route.continue_()
        else:
            route.abort()

    def judged(route):
        sent["judged"] = True
        route.continue_()

    page.route("**/api/v1/kiosk*", status)
    page.route("**/api/v1/adjudications", judged)
    home.cli("tournament", "set", "flip", "--lexicon", "ES-T")
    k.box.fill("chico ")
    assert page.locator("#chips .chip-word").all_inner_texts() == ["CHICO"]  # English letters
    assert page.locator("#chips .tile").count() == 0
    assert k.judge() == "ACCEPTABLE"
    assert k.verdict_tiles() == [["CH", "I", "C", "O"]]
    assert k.judged == [["CHICO"], ["[CH]ICO"]]  # refused in English letters, judged in tiles
    assert len(k.journal()) == 1  # recorded once, as shown
    page.unroute("**/api/v1/kiosk*")
    page.unroute("**/api/v1/adjudications")


def test_an_english_kiosk_has_no_tile_row_and_plain_words(kiosk):
    k = kiosk("en", "table-1")
    page = k.page
    assert page.locator("#tile-row").is_hidden() and page.locator("#lexicon-alphabet").is_hidden()
    k.box.fill("qi za ")
    assert page.locator("#chips .chip-word").all_inner_texts() == ["QI", "ZA"]
    assert page.locator("#chips .tile").count() == 0
    assert k.judge() == "ACCEPTABLE"
    assert page.locator("#verdict-words li").all_inner_texts() == ["QI", "ZA"]
    assert k.spelled == []


def debian_kiosk(kiosk, home: Home, language: str, code: str, table: str):
    """A kiosk at `table` of a new tournament on Debian's word list for `language`, imported
    with its recipe (debian-spanish, code es: lexicon ES-DEBIAN), showing the list's name."""
    lexicon = f"{code.upper()}-DEBIAN"
    home.cli("lexicon", "import", "--recipe", f"debian-{language}")
    home.tournament(f"{code}-debian", lexicon, "double", "Debian list (not official)")
    k = kiosk(f"{code}-debian", table)
    assert k.page.inner_text("#lexicon-name") == lexicon
    return k


@pytest.mark.slow
@pytest.mark.skipif(not SPANISH_DICT.is_file(), reason="wspanish is not installed")
def test_the_debian_spanish_list_through_its_recipe(kiosk, home: Home):
    k = debian_kiosk(kiosk, home, "spanish", "es", "mesa-debian")
    page = k.page
    k.box.focus()
    k.type_tapping("ni{Ñ}o chorizo leche camión ")
    assert k.chips()[:2] == [["N", "I", "Ñ", "O"], ["CH", "O", "R", "I", "Z", "O"]]
    assert k.judge() == "ACCEPTABLE"
    assert k.judged[-1] == ["NIÑO", "[CH]ORIZO", "LE[CH]E", "CAMION"]
    k.done()
    page.keyboard.type("chorizo ")
    k.split(0)  # C and H: not how the list spells it
    assert k.chips() == [["C", "H", "O", "R", "I", "Z", "O"]]
    assert k.judge() == "UNACCEPTABLE"


@pytest.mark.slow
@pytest.mark.skipif(not POLISH_DICT.is_file(), reason="wpolish is not installed")
def test_the_debian_polish_list_through_its_recipe(kiosk, home: Home):
    """About 4 million words: the kiosk types and shows them in Polish tiles and judges them."""
    k = debian_kiosk(kiosk, home, "polish", "pl", "stol-debian")
    page = k.page
    assert page.inner_text("#alphabet-name") == "Polish"  # an English kiosk
    k.box.focus()
    k.type_tapping("{Ź}d{Ź}b{Ł}a g{Ę}{Ś} łódź ")
    assert k.chips() == [list("ŹDŹBŁA"), list("GĘŚ"), list("ŁÓDŹ")]
    assert k.judge() == "ACCEPTABLE"
    assert k.verdict_tiles() == [list("ŹDŹBŁA"), list("GĘŚ"), list("ŁÓDŹ")]
    k.done()
    page.keyboard.type("zolw kot ")  # Ż, Ó and Ł are tiles of their own: ZOLW is no word
    assert k.judge() == "UNACCEPTABLE"
    assert k.journal() == [["ŹDŹBŁA", "GĘŚ", "ŁÓDŹ"], ["ZOLW", "KOT"]]


@pytest.mark.parametrize(
    "table, fault",
    [  # reading the words with the alphabet's tiles; making the challenge's request
        ("mesa-6", "KioskSpell.Reader.prototype.read = () => Promise.reject(new TypeError('x'));"),
        ("mesa-7", "Kiosk.finalPlay = () => { throw new TypeError('final play'); };"),
    ],
)
def test_a_fault_of_the_page_before_judging_is_never_called_out_of_reach(kiosk, table, fault):
    """Issue 44, item 1 (a Spanish kiosk said "Cannot reach the adjudication server" at JUDGE
    without sending the challenge, while the API judged the same words): whatever fails in the
    page itself before the challenge is sent is said to be the page's, with nothing judged and
    JUDGE usable again; only a request that failed says the server is out of reach."""
    k = kiosk("es", table)
    page = k.page
    page.evaluate(f"() => {{ {fault} }}")
    k.box.fill("chico ")
    page.click("#judge-button")
    page.wait_for_selector("#error-screen:not([hidden])")
    assert page.inner_text("#error-message") == "This screen failed before the words were judged."
    assert "Nothing was judged. Reload this page" in page.inner_text("#error-advice")
    assert k.judged == []
    assert page.is_hidden("#offline-alert")
    page.reload()  # as the screen says
    k.box.fill("chico ")
    assert k.judge() == "ACCEPTABLE"
    assert k.judged == [["[CH]ICO"]]


def test_a_fault_of_the_page_while_showing_its_status_is_never_called_out_of_reach(kiosk):
    """Issue 44, item 1, the status's path: the server answered the kiosk's status and the page
    failed while showing it. The page says so, never that the server is out of reach."""
    k = kiosk("es", "mesa-8")
    page = k.page
    page.evaluate("() => { Kiosk.formatCount = () => { throw new TypeError('drawn badly'); }; }")
    assert page.evaluate("() => Kiosk.refreshStatus()") is True  # the server was reached
    assert page.is_hidden("#offline-alert")
    assert page.is_visible("#service-alert")
    assert page.inner_text("#service-alert-text") == (
        "This screen could not show the server's answer."
    )
    page.reload()
    k.box.fill("chico ")
    assert k.judge() == "ACCEPTABLE"
