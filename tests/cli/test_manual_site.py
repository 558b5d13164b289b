"""The manual as a reader meets it (issue 44, item 5): the site MkDocs builds has a page for each
procedure (installing with pipx, day one, the takeover, a stick missing), the site's own search
finds them, its home page is the README, and the README links into each procedure instead of
keeping a second copy of its steps."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from support.paths import ROOT

README = (ROOT / "README.md").read_text()
PROCEDURES = {  # page -> what the site's search must find on it
    "install/": ("pipx", "pipx install", "data home"),
    "day-one/": ("pipx", "kiosk sheet", "kit seal", "hall/trust", "set-password"),
    "takeover/": ("kit seal", "kit open", "confirm-alone", "passphrase", "stick"),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built as `make docs` builds it (strict: a warning fails the build)."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def search_index(site) -> list[dict]:
    """The search index the site's search box reads: one entry a page and one a section."""
    return json.loads((site / "search" / "search_index.json").read_text())["docs"]


def found(index: list[dict], term: str) -> set[str]:
    """The pages (`install/`, ...) whose text the site's search finds `term` in."""
    return {
        entry["location"].split("#", 1)[0]
        for entry in index
        if term.lower() in entry["text"].lower() or term.lower() in entry["title"].lower()
    }


@pytest.mark.parametrize(
    "term,page", [("pipx", "install/"), ("kit open", "takeover/"), ("kit seal", "takeover/")]
)
def test_the_sites_search_finds_the_procedure(search_index, term, page):
    assert page in found(search_index, term), f"searching {term!r} does not find {page}"


@pytest.mark.parametrize("page", sorted(PROCEDURES))
def test_each_procedure_has_its_page_with_its_steps(search_index, page):
    for term in PROCEDURES[page]:
        assert page in found(search_index, term), f"{page} does not say {term!r}"


def test_a_stick_missing_has_its_section(search_index):
    titles = {entry["title"]: entry["location"] for entry in search_index}
    assert titles.get("A stick missing at the start", "").startswith("takeover/#"), titles


class Links(HTMLParser):
    """Every href of a page."""

    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs += [value for name, value in attrs if name == "href" and value]


def test_the_sites_home_page_is_the_readme_and_links_into_the_manual(site):
    home = (site / "index.html").read_text()
    assert "Quick start" in home and "make run" in home and "set-password" in home
    parser = Links()
    parser.feed(home)
    body = [href for href in parser.hrefs if not href.startswith(("http", "#", "."))]
    for page in ("install/", "day-one/", "takeover/", "journal/", "director/"):
        assert any(href.startswith(page) for href in body), f"the home page lacks {page}"
    for href in body:  # every link of the README works on the site too
        target = site / href.split("#", 1)[0]
        assert target.exists() or (target / "index.html").exists(), href
    assert "docs/" not in " ".join(body), "a README link still points into docs/ on the site"


def test_the_readme_links_into_each_procedure_and_keeps_the_quick_start():
    for page in ("docs/install.md", "docs/day-one.md", "docs/takeover.md"):
        assert f"]({page})" in README, f"the README does not link to {page}"
    quick_start = " ".join(README.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0].split())
    for said in ("make run", "make test", "director set-password", "/director/login"):
        assert said in quick_start, f"the quick start lacks {said!r}"


def test_the_readme_keeps_no_second_copy_of_a_procedure():
    """Its commands are the quick start's and the developers' (`make`, the load run): every
    `adjudicator` step lives in the manual."""
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    steps = [line for block in blocks for line in block.splitlines() if "adjudicator " in line]
    assert steps == [], f"the README repeats procedure steps of the manual: {steps}"
