"""The site's home page is the README: an MkDocs hook that shows README.md as index.md, its
links into docs/ made relative to the site (`docs/journal.md` -> `journal.md`), so the front
page and the manual's home are one text (mkdocs.yml: `hooks`)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
INTO_DOCS = re.compile(r"\]\(docs/")


def home_markdown() -> str:
    """The README as the site's home page: each link into docs/ made relative to the site."""
    return INTO_DOCS.sub("](", README.read_text())


def on_page_markdown(markdown: str, page, **_) -> str:
    """MkDocs hook: the home page (index.md) shows the README."""
    return home_markdown() if page.file.src_uri == "index.md" else markdown
