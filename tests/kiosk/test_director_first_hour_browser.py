"""The director's pages on a 1366x768 laptop, in real headless Chromium against `adjudicator
serve`: no word in a table is broken across lines ("Tour/nam/ent", "ACCEP/TABLE", "2/5"), and
the journal shows each challenge's round, table and challenger. Screenshots: test-artifacts/."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.browser import browser_missing_reason, launched_chromium
from support.paths import ARTIFACTS
from support.servers import Server, cli, prepare_home

DIRECTOR_PASSWORD = "director-laptop-1"
PAGES = (
    "/director/",
    "/director/tournaments",
    "/director/journal",
    "/director/kiosks",
    "/director/lexicons",
    "/director/flags",
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(browser_missing_reason() is not None, reason=str(browser_missing_reason())),
]

# Every word in a table cell whose letters land on more than one line (a break after a hyphen,
# as in "Wojciechowska-Kowalczyk", is a line break, not a broken word; but a slug, a rule or a
# kiosk name (class "ident"), such as "5-per-word", stays whole).
BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll('table td, table th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
      const parent = node.parentElement;
      if (!parent.offsetParent && parent.tagName !== 'BODY') continue;  // not shown
      const words = cell.classList.contains('ident') ? /\\S+/g : /[^\\s-]+-*/g;
      let m;
      while ((m = words.exec(node.textContent))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set(Array.from(range.getClientRects())
          .filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    home = prepare_home(tmp_path_factory.mktemp("laptop-home"))
    cli(home.path, "director", "set-password", "--password-stdin", stdin=DIRECTOR_PASSWORD + "\n")
    cli(
        home.path,
        "tournament",
        "create",
        "spring-open-nwl-division",
        "--lexicon",
        "TINY",
        "--rule",
        "5-per-word",
        "--title",
        "Spring Open Tournament, NWL division",
    )
    cli(home.path, "kiosk", "add", "table-12-by-the-window", "--tournament", "hall")
    with Server(home) as running:
        for words, table in ((["QI", "ZA"], "12"), (["QUIXOTIC", "ZEBRAS"], "7")):
            status, _ = running.adjudicate(
                words, round="5", table=table, challenger="Wojciechowska-Kowalczyk"
            )
            assert status == 201
        yield running


@pytest.fixture(scope="module")
def laptop(server) -> Iterator:
    with launched_chromium() as chromium:
        context = chromium.new_context(viewport={"width": 1366, "height": 768})
        page = context.new_page()
        page.goto(server.url + "/director/login")
        assert page.input_value("#name") == "director"  # named for the director already
        page.fill("#password", DIRECTOR_PASSWORD)
        page.click("#sign-in")
        page.wait_for_url(server.url + "/director/")
        yield page
        context.close()


@pytest.mark.parametrize("path", PAGES)
def test_no_word_in_a_table_is_broken_at_1366x768(laptop, server, path):
    laptop.goto(server.url + path)
    ARTIFACTS.mkdir(exist_ok=True)
    name = path.strip("/").replace("/", "-") or "root"
    laptop.screenshot(path=str(ARTIFACTS / f"laptop-{name}.png"), full_page=True)
    broken = laptop.evaluate(BROKEN_WORDS)
    assert broken == [], broken
    sideways = laptop.evaluate(
        "() => [document.documentElement.scrollWidth - innerWidth,"
        " ...Array.from(document.querySelectorAll('main'), m => m.scrollWidth - m.clientWidth)]"
    )
    assert max(sideways) <= 0, f"{path} scrolls sideways by {max(sideways)} px"


def test_the_journal_shows_round_table_and_challenger(laptop, server):
    laptop.goto(server.url + "/director/journal")
    headers = laptop.locator("#journal thead th").all_inner_texts()
    assert {"Round", "Table", "Challenger"} <= set(headers)
    row = laptop.locator("#journal tbody tr").first
    cells = dict(zip(headers, row.locator("td").all_inner_texts(), strict=False))
    assert cells["Round"] == "5" and cells["Table"] == "7"
    assert cells["Challenger"] == "Wojciechowska-Kowalczyk"
