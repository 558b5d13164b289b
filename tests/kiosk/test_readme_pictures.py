"""The README's pictures: the kiosk (words typed, and a verdict), the director's overview and
the hall map.

Every run takes them afresh into test-artifacts/ and checks the README shows each one from
docs/images/; `make screenshots` (pytest --screenshots) writes them into docs/images/, so the
pictures are always of the pages as they are. They use the real CSW21 and NWL2018 lists.
"""

from __future__ import annotations

import sqlite3
import struct
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from support import tsh_files
from support.browser import (
    ARTIFACTS,
    SETTLE_JS,
    Home,
    Server,
    off_screen,
    open_page,
    pair_page,
    sign_in,
)
from support.paths import ROOT, SHARED_LEXICONS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not (SHARED_LEXICONS / "CSW21.txt").is_file(),
        reason=f"the real word lists are not at {SHARED_LEXICONS}",
    ),
]


DOCS = ROOT / "docs" / "images"
README = ROOT / "README.md"


def shown(name: str) -> bool:
    """Whether the README (docs/images/NAME) or a page of the manual (images/NAME) shows it."""
    pages = (ROOT / "docs").glob("*.md")
    return f"docs/images/{name}" in README.read_text() or any(
        f"](images/{name})" in page.read_text() for page in pages
    )


PICTURES = {  # file -> viewport
    "kiosk-idle.png": (1280, 720),
    "kiosk-verdict.png": (1280, 720),
    "director-overview.png": (1280, 800),
    "director-hall.png": (1280, 800),
}
DIRECTOR_PASSWORD = "pictures-director-1"
SERVER_SETTINGS = {"verdict_seconds": "300"}


@pytest.fixture(scope="module")
def folder(request) -> Path:
    """docs/images with --screenshots, else test-artifacts/readme."""
    target = DOCS if request.config.getoption("--screenshots") else ARTIFACTS / "readme"
    target.mkdir(parents=True, exist_ok=True)
    return target


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.prepare(tmp_path_factory.mktemp("pictures-home"))
    for name in ("CSW21", "NWL2018"):
        home.cli("lexicon", "import", str(SHARED_LEXICONS / f"{name}.txt"), "--name", name)
    home.tournament("open-csw", "CSW21", "5-per-word", "Spring Open, Division A (CSW)")
    home.tournament("open-nwl", "NWL2018", "double", "Spring Open, Division B (NWL)")
    home.cli("director", "set-password", "--password-stdin", stdin=DIRECTOR_PASSWORD + "\n")
    return home


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", header[16:24])


def kiosk(browser, home: Home, server: Server, name: str, tournament: str, *options: str):
    width, height = PICTURES["kiosk-idle.png"]
    page = open_page(browser, {"width": width, "height": height})
    return pair_page(page, server.url, home.pairing_code(name, tournament, *options))


def kiosk_picture(page, folder: Path, name: str) -> None:
    """Take the settled kiosk page as the picture `name` (the idle kiosk's size), which the
    README or the manual shows and docs/images/ holds."""
    page.evaluate(SETTLE_JS)
    assert off_screen(page) == []
    page.screenshot(path=str(folder / name))
    assert shown(name), f"neither the README nor the manual shows {name}"
    for path in (folder / name, DOCS / name):
        assert path.is_file(), f"{path} is missing: run make screenshots"
        assert png_size(path) == PICTURES["kiosk-idle.png"], path


def test_the_readme_pictures(browser, home: Home, server: Server, folder: Path):
    page = kiosk(browser, home, server, "table-1", "open-csw")
    page.locator("#word-input").fill("qi ze cat ")
    page.evaluate(SETTLE_JS)
    assert off_screen(page) == []
    page.screenshot(path=str(folder / "kiosk-idle.png"))

    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert page.inner_text("#verdict-word") == "ACCEPTABLE"
    page.locator("#verdict-done:enabled").wait_for()
    page.evaluate(SETTLE_JS)
    assert off_screen(page) == []
    page.screenshot(path=str(folder / "kiosk-verdict.png"))
    kiosk(browser, home, server, "table-2", "open-csw")
    kiosk(browser, home, server, "table-3", "open-nwl")
    home.cli("kiosk", "add", "table-4", "--tournament", "open-nwl")

    width, height = PICTURES["director-overview.png"]
    viewport = {"width": width, "height": height}
    director = sign_in(
        browser, server.url, "/director/login", "director", DIRECTOR_PASSWORD, viewport=viewport
    )
    director.wait_for_selector("#glance")
    assert "3 of 4 kiosks online" in director.inner_text("#glance-kiosks")
    director.screenshot(path=str(folder / "director-overview.png"))
    hall_picture(browser, home, server, director, folder)

    for name, (width, height) in PICTURES.items():
        assert shown(name), f"neither the README nor the manual shows {name}"
        for path in (folder / name, DOCS / name):
            assert path.is_file(), f"{path} is missing: run make screenshots"
            assert png_size(path) == (width, height), path


def hall_picture(browser, home: Home, server: Server, director, folder: Path) -> None:
    """The hall map of the NWL division linked to TSH: kiosks online at three tables, one
    never seen, one offline; a challenge at table 2 and a second opinion waiting at table 5."""
    event = tsh_files.make_event({"B": 24}, 3, 2, name="Spring Open")
    path = tsh_files.write_tourney_js(home.path / "event" / "tourney.js", event)
    home.cli("tsh", "link", "open-nwl", str(path), "--division", "B")
    pages = {n: kiosk(browser, home, server, f"b-{n}", "open-nwl", "--table", str(n))
             for n in (1, 2, 5)}  # fmt: skip
    for table in (7, 11):
        home.cli("kiosk", "add", f"b-{table}", "--tournament", "open-nwl", "--table", str(table))
    with sqlite3.connect(home.path / "journal.sqlite3") as db:  # b-11 was seen 7 minutes ago
        ago = (datetime.now(UTC) - timedelta(minutes=7, seconds=5)).isoformat()
        db.execute("UPDATE kiosks SET last_seen_at = ? WHERE name = 'b-11'", (ago,))
    for table, words in ((2, "qi za "), (5, "cat dogz ")):
        page = pages[table]
        page.wait_for_selector("#table-game:not([hidden])")
        page.click("#table-player-2")
        page.locator("#word-input").fill(words)
        page.click("#judge-button")
        page.wait_for_selector("#verdict-screen:not([hidden])")
    flagged = pages[5].inner_text("#verdict-id").lstrip("#")
    home.cli("second-opinion", flagged, "CAT", "DOGS")  # other words: flagged for the director
    director.goto(server.url + "/director/hall?tournament=open-nwl")
    tile = director.locator('.tile[data-table="2"]')
    assert tile.get_attribute("data-challenges") == "1"
    assert director.locator('.tile[data-table="5"] .tile-mark').count() == 1
    director.screenshot(path=str(folder / "director-hall.png"))


SPANISH_PICTURE = "kiosk-spanish.png"


@pytest.mark.skipif(
    not Path("/usr/share/dict/spanish").is_file(), reason="wspanish is not installed"
)
def test_the_readme_picture_of_a_spanish_kiosk(browser, home: Home, server: Server, folder: Path):
    """A kiosk on the Debian Spanish list: words as tiles, a split mark, the tile row."""
    home.cli("lexicon", "import", "--recipe", "debian-spanish")
    home.tournament("abierto", "ES-DEBIAN", "double", "Abierto de primavera (lista de Debian)")
    page = kiosk(browser, home, server, "mesa-1", "abierto")
    page.wait_for_selector("#tile-row:not([hidden])")
    page.locator("#word-input").fill("ni")
    page.click("#tile-row .tile-key[data-tile='\u00d1']")
    page.locator("#word-input").press("End")
    page.keyboard.type("o churro ")
    page.wait_for_selector("#chips .chip-split")
    assert page.locator("#chips .tile-multi").all_inner_texts() == ["CH", "RR"]
    kiosk_picture(page, folder, SPANISH_PICTURE)


FRENCH_PICTURE = "kiosk-french.png"
FRENCH_WORDS = (  # a few French words, typed with their accents: a list made here, not a lexicon
    "élève", "œuvre", "garçon", "noël", "âme", "où", "zèbre", "kiwi", "jeton", "joker", "mot",
)  # fmt: skip


def test_the_readme_picture_of_a_french_kiosk(browser, home: Home, server: Server, folder: Path):
    """A French tournament's kiosk: accents typed, words shown as their tiles, the verdict
    VALABLE with its consequence in French."""
    source = ARTIFACTS / "french-words.txt"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text("\n".join(FRENCH_WORDS) + "\n", encoding="utf-8")
    home.cli("lexicon", "import", str(source), "--name", "FR-CLUB", "--alphabet", "french",
             "--description", "liste du club")  # fmt: skip
    home.cli("tournament", "create", "open-fr", "--lexicon", "FR-CLUB", "--rule", "5-per-word",
             "--title", "Open de printemps, série A", "--language", "fr")  # fmt: skip
    page = kiosk(browser, home, server, "table-fr", "open-fr")
    assert page.get_attribute("html", "lang") == "fr"
    page.locator("#word-input").fill("élève œuvre ")
    page.wait_for_selector("#chips .chip-word .tile")
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    assert page.inner_text("#verdict-word") == "VALABLE"
    assert page.inner_text("#verdict-consequence").startswith("2 mots contestés, 5 chacun")
    page.locator("#verdict-done:enabled").wait_for()
    kiosk_picture(page, folder, FRENCH_PICTURE)
