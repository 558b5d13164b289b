"""Tournaments (or divisions): each binds one compiled lexicon edition and one challenge rule.

The tournament pins the lexicon's fingerprint when it is set, so a lexicon re-imported with
different words is refused at the kiosk ("call the director") rather than used silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.hall.languages import DEFAULT as DEFAULT_LANGUAGE
from adjudicator.hall.languages import check_language
from adjudicator.judging.rules import get_rule
from adjudicator.record.db import Database
from adjudicator.textcheck import TITLE_MAX, check_name, check_text
from adjudicator.words.store import LexiconStore

_SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")


class TournamentError(AdjudicatorError):
    """A tournament cannot be created, found or changed as asked."""


@dataclass(frozen=True)
class Tournament:
    slug: str
    title: str
    lexicon: str
    lexicon_fingerprint: str
    rule: str
    created_at: str
    updated_at: str
    language: str = DEFAULT_LANGUAGE  # the kiosks' language (hall/languages.py)

    def to_api(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "title": self.title,
            "lexicon": self.lexicon,
            "lexicon_fingerprint": self.lexicon_fingerprint,
            "rule": self.rule,
            "language": self.language,
            "updated_at": self.updated_at,
        }


def check_slug(slug: str) -> str:
    """A slug is lower-case letters, digits and dashes, such as `spring-open-nwl`."""
    return check_name(
        slug,
        "tournament slug",
        63,
        _SLUG,
        "use lower-case letters, digits and dashes, such as spring-open-nwl.",
        TournamentError,
    )


def create(
    db: Database,
    store: LexiconStore,
    slug: str,
    lexicon: str,
    rule: str,
    title: str = "",
    *,
    language: str = DEFAULT_LANGUAGE,
) -> Tournament:
    """Create a tournament on a compiled lexicon and a rule; its kiosks speak `language`."""
    check_slug(slug)
    title = check_text(title, "tournament title", TITLE_MAX)
    get_rule(rule)
    language = check_language(language)
    fingerprint = store.open(lexicon).manifest.fingerprint
    now = _now()
    with db.transaction() as cur:
        if cur.execute("SELECT slug FROM tournaments WHERE slug = ?", (slug,)).one():
            raise TournamentError(
                f"Tournament {slug} already exists: change it with `tournament set`."
            )
        cur.execute(
            "INSERT INTO tournaments (slug, title, lexicon, lexicon_fingerprint, rule, created_at, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (slug, title or slug, lexicon, fingerprint, rule, now, now),
        )
        cur.execute("UPDATE tournaments SET language = ? WHERE slug = ?", (language, slug))
    return get(db, slug)


def get(db: Database, slug: str) -> Tournament:
    """The tournament `slug`, or TournamentError naming the ones there are."""
    row = db.query_one("SELECT * FROM tournaments WHERE slug = ?", (slug,))
    if row is None:
        known = ", ".join(t.slug for t in list_all(db)) or "none yet"
        raise TournamentError(f"No tournament {slug!r} (tournaments: {known}).")
    return Tournament(**row)


def list_all(db: Database) -> list[Tournament]:
    """Every tournament, by slug."""
    with db.transaction() as cur:
        rows = cur.execute("SELECT * FROM tournaments ORDER BY slug").all()
    return [Tournament(**row) for row in rows]


def update(
    db: Database,
    store: LexiconStore,
    slug: str,
    *,
    lexicon: str | None = None,
    rule: str | None = None,
    title: str | None = None,
    language: str | None = None,
) -> Tournament:
    """Change a tournament's lexicon, rule, title or language; kiosks use it from their next
    challenge (a language from their next page)."""
    current = get(db, slug)
    if language is not None:
        language = check_language(language)
    if title is not None:
        title = check_text(title, "tournament title", TITLE_MAX)
    if rule is not None:
        get_rule(rule)
    new_lexicon = lexicon or current.lexicon
    fingerprint = (
        store.open(new_lexicon).manifest.fingerprint if lexicon else current.lexicon_fingerprint
    )
    with db.transaction() as cur:
        cur.execute(
            "UPDATE tournaments SET title = ?, lexicon = ?, lexicon_fingerprint = ?, rule = ?, "
            "updated_at = ? WHERE slug = ?",
            (title or current.title, new_lexicon, fingerprint, rule or current.rule, _now(), slug),
        )
        if language is not None:
            cur.execute("UPDATE tournaments SET language = ? WHERE slug = ?", (language, slug))
    return get(db, slug)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
